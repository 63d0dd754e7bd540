// context_options::profiling on a real device: every launch is timed by the device, the
// times reach statistics() once the launches have run, results are unchanged, and nothing
// is timed (or costs an event) with profiling off. The default backend: OpenCL here, CUDA
// where a CUDA device is found.
#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

loom::context_options with_profiling(int on, int fusion = 1) {
    loom::context_options o;
    o.profiling = on;
    o.fusion = fusion;
    o.fp_contract = 0;
    return o;
}

std::vector<float> random_floats(unsigned seed, std::size_t n) {
    std::printf("profiling_test: seed %u\n", seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(0.5f, 1.5f);
    std::vector<float> v(n);
    for (float& f : v) f = d(rng);
    return v;
}

// The device time of `z = a * x + y` over n elements, one launch with a finish: the least of
// five such launches, so that a run preempted by other work on the machine does not count.
std::uint64_t saxpy_ns(loom::context& ctx, std::size_t n) {
    const auto hx = random_floats(11, n), hy = random_floats(12, n);
    loom::vector<float> x(ctx, hx), y(ctx, hy), z(ctx, n);
    std::uint64_t least = ~std::uint64_t(0);
    for (int run = 0; run < 5; ++run) {
        const loom::context_statistics before = ctx.statistics();
        z = 2.5f * x + y;
        ctx.finish();
        const loom::context_statistics after = ctx.statistics();
        CHECK(after.kernels_launched - before.kernels_launched == 1);
        CHECK(after.kernels_timed - before.kernels_timed == 1);
        least = std::min(least, after.kernel_ns - before.kernel_ns);
    }
    const auto r = z.to_host();
    for (std::size_t i = 0; i < n; ++i) REQUIRE(r[i] == 2.5f * hx[i] + hy[i]);
    return least;
}

} // namespace

TEST_CASE("with profiling on, every launch is timed once it has run, and results are unchanged") {
    loom::context ctx(with_profiling(1));
    const std::uint64_t small = saxpy_ns(ctx, 1 << 12);
    const std::uint64_t large = saxpy_ns(ctx, 1 << 24);
    CHECK(small > 0);
    // 4096 times the work: the device's own clock must see it (a clock that counted launches,
    // or host time, would not separate them this far). On an H100 a launch of 2^12 elements
    // takes a few microseconds whatever its size, so 2^22 was only 8 times that.
    CHECK(large > 8 * small);

    // Two reduction passes and a chain of statements: the launches timed after a finish are
    // exactly the launches made, and their time is within the host's time around them.
    const std::size_t n = std::size_t(1) << 20;
    const auto hx = random_floats(13, n);
    loom::vector<float> x(ctx, hx), t(ctx, n);
    const loom::context_statistics before = ctx.statistics();
    const auto start = std::chrono::steady_clock::now();
    t = x * x;
    const float total = loom::sum(t + 1.0f);
    ctx.finish();
    const auto host_ns = std::uint64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
    const loom::context_statistics after = ctx.statistics();
    CHECK(after.kernels_launched - before.kernels_launched >= 2);
    CHECK(after.kernels_timed - before.kernels_timed == after.kernels_launched - before.kernels_launched);
    CHECK(after.kernel_ns - before.kernel_ns > 0);
    CHECK(after.kernel_ns - before.kernel_ns <= host_ns);
    double want = 0;
    for (float v : hx) want += double(v) * double(v) + 1.0;
    CHECK(double(total) == doctest::Approx(want).epsilon(1e-4));
}

TEST_CASE("with profiling off nothing is timed") {
    loom::context ctx(with_profiling(0));
    loom::vector<float> x(ctx, random_floats(14, 4096)), y(ctx, 4096);
    y = x * 2.0f;
    ctx.finish();
    const loom::context_statistics s = ctx.statistics();
    CHECK(s.kernels_launched == 1);
    CHECK(s.kernels_timed == 0);
    CHECK(s.kernel_ns == 0);
}

TEST_CASE("a long run of launches with no wait keeps a bounded record and times them all") {
    // Fusion off: one launch per statement, more than kernel_clock keeps before it collects
    // the oldest half (max_pending, 8192), and no host wait until the end.
    loom::context ctx(with_profiling(1, 0));
    const std::size_t n = 64;
    const int statements = 9000;
    loom::vector<float> y(ctx, std::vector<float>(n, 0.0f));
    const std::uint64_t syncs = ctx.statistics().host_syncs;
    for (int k = 0; k < statements; ++k) y += 1.0f;
    ctx.finish();
    const loom::context_statistics s = ctx.statistics();
    CHECK(s.kernels_launched == std::uint64_t(statements));
    CHECK(s.kernels_timed == s.kernels_launched);
    CHECK(s.host_syncs - syncs == 1); // the finish: the bound's wait is the backend's own
    for (float v : y.to_host()) REQUIRE(v == float(statements));
}

TEST_CASE("LOOM_PROFILE turns profiling on, and a value that is not on or off is refused") {
    loom::context_options from_environment;
    from_environment.profiling = -1;
    setenv("LOOM_PROFILE", "sometimes", 1);
    try {
        loom::context bad(from_environment);
        FAIL("a context was made with LOOM_PROFILE=sometimes");
    } catch (const loom::error& e) {
        const std::string m = e.what();
        CHECK(m.find("LOOM_PROFILE='sometimes'") != std::string::npos);
        CHECK(m.find("on (or 1, true)") != std::string::npos);
    }
    setenv("LOOM_PROFILE", "on", 1);
    loom::context on(from_environment);
    setenv("LOOM_PROFILE", "off", 1);
    loom::context off(from_environment);
    unsetenv("LOOM_PROFILE");
    for (loom::context* ctx : {&on, &off}) {
        loom::vector<float> x(*ctx, random_floats(15, 1024)), y(*ctx, 1024);
        y = x + 1.0f;
        ctx->finish();
    }
    CHECK(on.statistics().kernels_timed == 1);
    CHECK(off.statistics().kernels_timed == 0);
}
