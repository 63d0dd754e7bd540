// Defects found under threads, faults and bad input (issue 20), each with the test that keeps
// it found: contexts opened on several threads at once; liveness read once per flush; a failed
// flush keeps the initial contents of vectors made in its window; offsets at the ends of
// int64 clamp and wrap without overflow; grid sizes whose product overflows are refused;
// environment variables that hold a wrong value say so.
#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <atomic>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include "../cache/cache_test_support.hpp"
#include "runtime/kernel_observer.hpp"
#include "support/log.hpp"

namespace {

loom::context_options on_opencl(int fusion = 1) {
    loom::context_options o;
    o.backend = "opencl";
    o.fusion = fusion;
    return o;
}

// Sets a kernel observer for a scope (the hook every new plan's kernels pass before compiling).
struct observing {
    explicit observing(loom::detail::kernel_observer o) { loom::detail::set_kernel_observer(std::move(o)); }
    ~observing() { loom::detail::set_kernel_observer(nullptr); }
};

} // namespace

TEST_CASE("contexts opened on four threads at once all work") {
    std::vector<std::thread> threads;
    std::atomic<int> right{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&right, t] {
            try {
                loom::context ctx(on_opencl());
                loom::vector<float> x(ctx, 1000, float(t)), y(ctx, 1000);
                y = x * 2.0f + 1.0f;
                right += y.to_host()[999] == float(t) * 2.0f + 1.0f;
            } catch (const std::exception&) {
            }
        });
    for (std::thread& t : threads) t.join();
    CHECK(right == 4);
}

TEST_CASE("a vector dying while its flush is planned does not change the plan its key names") {
    // The observer runs inside planning, after the key was made: where a destructor on another
    // thread may land. The plan must still store the target its key calls live, so that the
    // next flush with the same key (with a live target) keeps its result.
    loom::context ctx(on_opencl());
    loom::vector<float> x(ctx, 256, 3.0f);
    ctx.finish();
    auto t = std::make_unique<loom::vector<float>>(ctx, 256);
    {
        observing kill([&](const loom::ir::kernel&) { t.reset(); });
        *t = loom::cos(x) * 0.5f - 1.0f; // a new expression: a new plan
        ctx.finish();
    }
    loom::vector<float> u(ctx, 256);
    u = loom::cos(x) * 0.5f - 1.0f; // the same key: the cached plan must store u
    CHECK(u.to_host()[100] == std::cos(3.0f) * 0.5f - 1.0f);
}

TEST_CASE("a failed flush keeps the initial contents of vectors made before it") {
    loom::context ctx(on_opencl());
    loom::vector<float> x(ctx, 64, 2.0f);
    ctx.finish();
    loom::vector<float> y(ctx, 16, 7.0f); // its fill is pending when the flush fails
    loom::vector<float> z(ctx, 64);
    {
        observing fail([](const loom::ir::kernel&) { throw loom::error("a compiler failure, as a test provokes it"); });
        z = loom::tan(x) + loom::atan(x); // a new plan: the observer throws while it is made
        CHECK_THROWS_AS(ctx.finish(), loom::error);
    }
    const auto hy = y.to_host();
    CHECK(hy == std::vector<float>(16, 7.0f));
    CHECK(x.to_host()[5] == 2.0f); // and what existed before keeps its value
}

TEST_CASE("shift by offsets at the ends of int64 clamps and wraps without overflow") {
    loom::context ctx(on_opencl());
    const std::vector<float> hx{1, 2, 3, 4, 5, 6, 7, 8};
    loom::vector<float> x(ctx, hx), y(ctx, hx.size());
    const std::int64_t big = std::numeric_limits<std::int64_t>::max(), small = std::numeric_limits<std::int64_t>::min();
    y = loom::shift(x, big);
    CHECK(y.to_host() == std::vector<float>(8, 8.0f));
    y = loom::shift(x, small);
    CHECK(y.to_host() == std::vector<float>(8, 1.0f));
    y = loom::shift(x, big, loom::boundary::constant(-1.0f));
    CHECK(y.to_host() == std::vector<float>(8, -1.0f));
    y = loom::shift(x, big, loom::boundary::wrap); // 2^63 - 1 = 7 (mod 8): element i + 7
    std::vector<float> wrapped(8);
    for (std::size_t i = 0; i < 8; ++i) wrapped[i] = hx[(i + 7) % 8];
    CHECK(y.to_host() == wrapped);
}

TEST_CASE("a grid whose sizes multiply past 2^64 is refused") {
    loom::context ctx(on_opencl());
    loom::vector<float> u(ctx, 12);
    const std::size_t huge = (std::size_t(1) << 63) + 6; // (2^63 + 6) * 2 wraps to 12
    CHECK_THROWS_AS(loom::grid(u, huge, 2), loom::error);
    CHECK_THROWS_AS(loom::grid(u, 2, huge), loom::error);
    CHECK_NOTHROW(loom::grid(u, 4, 3));
}

TEST_CASE("environment variables are never ignored silently: LOOM_LOG, LOOM_LOG_FILE, LOOM_FUSION") {
    using loom::cache::test::captured_stderr;
    using loom::cache::test::scoped_env;
    using loom::cache::test::scratch_dir;
    scratch_dir dir;
    {
        scoped_env log("LOOM_LOG", "fusoin,launch");
        scoped_env file("LOOM_LOG_FILE", "/nonexistent-dir/loom.log");
        captured_stderr err(dir.path() / "stderr.txt");
        loom::logging::reload_from_environment();
        const std::string text = err.text();
        CHECK(text.find("LOOM_LOG names no channel 'fusoin'") != std::string::npos);
        CHECK(text.find("LOOM_LOG_FILE='/nonexistent-dir/loom.log' cannot be opened") != std::string::npos);
    }
    loom::logging::reload_from_environment(); // back to the test's own environment
    for (const char* off : {"off", "0", "false"}) {
        scoped_env fusion("LOOM_FUSION", off);
        loom::context ctx(on_opencl(-1));
        loom::vector<float> x(ctx, 64, 1.0f), y(ctx, 64);
        ctx.finish();
        const auto before = ctx.statistics().kernels_launched;
        y = x + 1.0f;
        y = y * 2.0f;
        ctx.finish();
        CHECK(ctx.statistics().kernels_launched - before == 2); // one kernel per statement: fusion is off
    }
    scoped_env fusion("LOOM_FUSION", "of");
    CHECK_THROWS_WITH_AS(loom::context(on_opencl(-1)), doctest::Contains("LOOM_FUSION='of'"),
                         loom::error);
}
