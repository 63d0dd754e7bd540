// loom::loop_while: a loop that runs while a condition on device scalars holds, checked
// by the host only every k iterations, and still ending at exactly the right iteration.
#include "support.hpp"

#include <cmath>
#include <stdexcept>

#include "runtime/context_impl.hpp"

using namespace skeleton_test;

namespace {

// x += 1 per iteration while max(x) < limit: ends after exactly `limit - start` iterations.
std::uint64_t count_up(loom::context& c, loom::vector<float>& x, float limit, std::uint64_t k,
                       std::uint64_t max_iterations = ~std::uint64_t(0)) {
    loom::scalar<float> top = loom::max(x, loom::on_device);
    return loom::loop_while(
        c, top < limit,
        [&] {
            x = x + 1.0f;
            top = loom::max(x, loom::on_device);
        },
        k, max_iterations);
}

} // namespace

TEST_CASE("loop_while ends at the exact iteration whatever check_every is") {
    for (std::uint64_t k : {1u, 3u, 4u, 7u, 16u, 100u}) {
        CAPTURE(k);
        loom::vector<float> x(ctx(), 257, 0.0f);
        CHECK(count_up(ctx(), x, 10.0f, k) == 10);
        const auto hx = x.to_host();
        for (float v : hx) CHECK(v == 10.0f);
    }
}

TEST_CASE("loop_while: a false condition runs nothing; max_iterations bounds the loop") {
    loom::vector<float> x(ctx(), 33, 5.0f);
    CHECK(count_up(ctx(), x, 5.0f, 4) == 0);
    CHECK(x.to_host() == std::vector<float>(33, 5.0f));
    CHECK(count_up(ctx(), x, 1000.0f, 4, 6) == 6);
    CHECK(x.to_host() == std::vector<float>(33, 11.0f));
}

TEST_CASE("loop_while takes back the swaps of the iterations issued after the condition fell") {
    // Ping-pong: next = u + 1; swap. After m iterations u holds m and next m - 1.
    for (std::uint64_t k : {1u, 2u, 5u, 8u}) {
        CAPTURE(k);
        const std::size_t n = 1000;
        loom::vector<std::int32_t> u(ctx(), n, 0), next(ctx(), n, -1);
        loom::scalar<std::int32_t> top(ctx(), 0);
        const auto ran = loom::loop_while(
            ctx(), top < 7,
            [&] {
                next = u + 1;
                loom::swap(u, next);
                top = loom::max(u, loom::on_device);
            },
            k);
        CHECK(ran == 7);
        CHECK(u.to_host() == std::vector<std::int32_t>(n, 7));
        CHECK(next.to_host() == std::vector<std::int32_t>(n, 6));
    }
}

TEST_CASE("a 1-D heat loop with a residual condition equals the host loop, iteration for iteration") {
    const std::size_t n = 4096;
    const float tol = 2e-3f;
    std::vector<float> h0(n, 0.0f);
    for (std::size_t i = n / 4; i < n / 2; ++i) h0[i] = 1.0f;
    // Host reference: the same arithmetic, in the same order, stopping at the first
    // iteration whose residual max |next - u| is below tol.
    std::vector<float> a = h0, b(n);
    std::uint64_t expected = 0;
    float residual = 1.0f;
    while (residual >= tol && expected < 5000) {
        residual = 0.0f;
        for (std::size_t i = 0; i < n; ++i) {
            const float l = a[i == 0 ? 0 : i - 1], r = a[i + 1 == n ? n - 1 : i + 1];
            b[i] = a[i] + 0.25f * ((l - 2.0f * a[i]) + r);
            residual = std::max(residual, std::fabs(b[i] - a[i]));
        }
        std::swap(a, b);
        ++expected;
    }
    for (int fusion : {1, 0}) {
        CAPTURE(fusion);
        loom::context c(loom::context_options{"", "", fusion});
        loom::vector<float> u(c, h0), next(c, n);
        loom::scalar<float> res(c, 1.0f);
        c.finish();
        const auto syncs_before = c.statistics().host_syncs;
        const auto ran = loom::loop_while(
            c, res >= tol,
            [&] {
                next = u + 0.25f * ((loom::shift(u, -1) - 2.0f * u) + loom::shift(u, 1));
                res = loom::max(loom::fabs(next - u), loom::on_device);
                loom::swap(u, next);
            },
            32, 5000);
        CHECK(ran == expected);
        // One read of the flag every 32 iterations, and one of the count at the end.
        CHECK(c.statistics().host_syncs - syncs_before <= ran / 32 + 2);
        CHECK(u.to_host() == a);
    }
}

TEST_CASE("scans inside the body stop with the loop too") {
    loom::vector<std::int32_t> x(ctx(), 300, 1), prefix(ctx(), 300);
    loom::scalar<std::int32_t> last(ctx(), 0);
    const auto ran = loom::loop_while(
        ctx(), last < 3000,
        [&] {
            loom::inclusive_scan(x, prefix); // 300 * round
            x = x + 1;
            last = loom::max(prefix, loom::on_device);
        },
        6);
    CHECK(ran == 10); // prefix ends at 300 * 10
    CHECK(last.value() == 3000);
    CHECK(prefix.to_host().back() == 3000);
    CHECK(x.to_host()[0] == 11);
}

TEST_CASE("loop_while: zero host syncs per iteration, and every iteration after the first reuses its plans") {
    loom::vector<float> x(ctx(), 4096, 0.0f);
    count_up(ctx(), x, 2.0f, 16); // plans and kernels of the pattern made here
    loom::vector<float> y(ctx(), 4096, 0.0f);
    const auto before = ctx().statistics();
    CHECK(count_up(ctx(), y, 1000.0f, 100) == 1000);
    const auto after = ctx().statistics();
    CHECK(after.host_syncs - before.host_syncs == 1000 / 100 + 1);
    CHECK(after.plans_made == before.plans_made);
    CHECK(after.kernels_compiled == before.kernels_compiled);
}

TEST_CASE("loop_while errors: nesting is refused; a throwing body leaves the context usable") {
    loom::vector<float> x(ctx(), 16, 0.0f);
    loom::scalar<float> top(ctx(), 0.0f);
    CHECK_THROWS_WITH_AS(loom::loop_while(ctx(), top < 1.0f, [&] { count_up(ctx(), x, 3.0f, 1); }),
                         doctest::Contains("not supported"), loom::error);
    CHECK_THROWS_AS(loom::loop_while(ctx(), top < 1.0f,
                                     [&](std::uint64_t i) {
                                         x = x + 1.0f;
                                         if (i == 2) throw std::runtime_error("body failed");
                                     }),
                    std::runtime_error);
    x = x * 2.0f; // not guarded any more: runs
    CHECK(x.to_host() == std::vector<float>(16, 6.0f));
}
