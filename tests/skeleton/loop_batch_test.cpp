// loom::loop_while runs iterations that are one single-group pass each as batches, one
// looped launch per batch (runtime/iteration_batch.hpp). Each case checks the vectors, the
// iteration count and the stop against a host loop, with fusion on (batched) and off (one
// kernel per statement, never batched), and that batching happened where it should.
#include "support.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/context_impl.hpp"

using namespace skeleton_test;

namespace {

using i32 = std::int32_t;

std::uint64_t launches(const loom::context& c) { return c.statistics().kernels_launched; }

// On a CPU device one group covers these loops' reductions: one pass, so they batch.
bool batches(const loom::context& c) { return !c.impl()->info().gpu; }

struct loop_result {
    std::uint64_t ran = 0;
    std::vector<i32> prev, u, next;
    std::uint64_t launched = 0;
};

// A three-level scheme whose buffers rotate through three vectors each iteration:
// next = (u + prev + u[i+1]) % 1009, then prev <- u, u <- next, next <- old prev, written as
// two swaps; it runs while max(age) < stop, age counting iterations on the device.
loop_result three_buffer_rotation(loom::context& c, const std::vector<i32>& h0, i32 stop, std::uint64_t k) {
    const std::size_t n = h0.size();
    loom::vector<i32> prev(c, h0), u(c, n, 1), next(c, n, 0), age(c, n, 0);
    loom::scalar<i32> oldest(c, 0);
    c.finish();
    loop_result r;
    const std::uint64_t before = launches(c);
    r.ran = loom::loop_while(
        c, oldest < stop,
        [&] {
            next = (u + prev + loom::shift(u, 1)) % 1009;
            age = age + 1;
            loom::swap(prev, u);
            loom::swap(u, next);
            oldest = loom::max(age, loom::on_device);
        },
        k, 1000);
    r.launched = launches(c) - before;
    r.prev = prev.to_host();
    r.u = u.to_host();
    r.next = next.to_host();
    return r;
}

loop_result three_buffer_reference(const std::vector<i32>& h0, std::uint64_t iterations) {
    const std::size_t n = h0.size();
    std::vector<i32> prev = h0, u(n, 1), next(n, 0);
    for (std::uint64_t it = 0; it < iterations; ++it) {
        for (std::size_t i = 0; i < n; ++i) next[i] = (u[i] + prev[i] + u[std::min(i + 1, n - 1)]) % 1009;
        std::swap(prev, u);
        std::swap(u, next);
    }
    loop_result r;
    r.ran = iterations;
    r.prev = prev;
    r.u = u;
    r.next = next;
    return r;
}

} // namespace

TEST_CASE("a batched loop follows swaps through three buffers and stops at the exact iteration") {
    const std::vector<i32> h0 = random_values<i32>(1000, 0, 1008, 41);
    const loop_result expected = three_buffer_reference(h0, 37);
    for (std::uint64_t k : {1u, 5u, 16u, 40u}) {
        for (int fusion : {1, 0}) {
            CAPTURE(k);
            CAPTURE(fusion);
            loom::context c(loom::context_options{"", "", fusion});
            const loop_result got = three_buffer_rotation(c, h0, 37, k);
            CHECK(got.ran == 37);
            CHECK(got.prev == expected.prev);
            CHECK(got.u == expected.u);
            CHECK(got.next == expected.next);
            // Fused: after the launch that sets the loop's flag, a launch per batch, a batch
            // ending at each read of the condition (every k iterations) or after 16; the
            // loop issues up to k - 1 idle iterations past the 37th, batched too.
            if (fusion && batches(c)) {
                const std::uint64_t issued = (37 + k - 1) / k * k;
                CHECK(got.launched == 1 + (issued / k) * ((k + 15) / 16));
            }
        }
    }
}

TEST_CASE("iterations whose host values differ, or whose swaps change pattern, still run in order") {
    const std::size_t n = 2000;
    // body(i) adds i: a by-value argument that differs each iteration ends every batch.
    {
        loom::vector<i32> x(ctx(), n, 0);
        loom::scalar<i32> top(ctx(), 0);
        const auto ran = loom::loop_while(
            ctx(), top < 400,
            [&](std::uint64_t i) {
                x = x + i32(i);
                top = loom::max(x, loom::on_device);
            },
            8, 1000);
        // top after m iterations: 0 + 1 + ... + (m - 1) = m (m - 1) / 2; the first m with it >= 400 is 29.
        CHECK(ran == 29);
        CHECK(x.to_host() == std::vector<i32>(n, 29 * 28 / 2));
    }
    // A swap on even iterations only: the rotation between iterations alternates between a
    // swap and none, so no batch holds more than two iterations; the result is the host's.
    for (std::uint64_t k : {3u, 16u}) {
        CAPTURE(k);
        loom::vector<i32> u(ctx(), n, 0), next(ctx(), n, 0);
        loom::scalar<i32> top(ctx(), 0);
        const auto ran = loom::loop_while(
            ctx(), top < 25,
            [&](std::uint64_t i) {
                next = u + 1;
                if (i % 2 == 0) loom::swap(u, next);
                top = loom::max(next + u, loom::on_device);
            },
            k, 1000);
        std::vector<i32> hu(n, 0), hn(n, 0);
        std::uint64_t expected = 0;
        for (i32 t = 0; t < 25; ++expected) {
            for (std::size_t i = 0; i < n; ++i) hn[i] = hu[i] + 1;
            if (expected % 2 == 0) std::swap(hu, hn);
            t = hn[0] + hu[0];
        }
        CHECK(ran == expected);
        CHECK(u.to_host() == hu);
        CHECK(next.to_host() == hn);
    }
}

TEST_CASE("a long batched loop launches far fewer kernels than it runs iterations") {
    const std::size_t n = 4096;
    loom::vector<float> x(ctx(), n, 0.0f);
    loom::scalar<float> top(ctx(), 0.0f);
    ctx().finish();
    const std::uint64_t before = launches(ctx());
    const auto ran = loom::loop_while(
        ctx(), top < 1000.0f,
        [&] {
            x = x + 1.0f;
            top = loom::max(x, loom::on_device);
        },
        100, 5000);
    CHECK(ran == 1000);
    CHECK(x.to_host() == std::vector<float>(n, 1000.0f));
    if (batches(ctx())) {
        // Checks every 100 iterations: batches of 16, 16, 16, 16, 16, 16 and 4 each time.
        CHECK(launches(ctx()) - before == 1 + 10 * 7);
    }
}
