// The limits on what one flush holds (src/runtime/flush_limits.cpp): only memory the flush
// will allocate counts toward the byte limit, so a long stream of big temporaries that die
// in the loop body is never cut; live vectors that will be allocated still are; and a forced
// flush cuts where the fewest temporaries cross. Every result is checked against the host.
#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <cstdio>
#include <random>
#include <vector>

namespace {

loom::context& fused() {
    static loom::context ctx(loom::context_options{"opencl", "", 1});
    return ctx;
}

std::vector<float> random_floats(unsigned seed, std::size_t n, float lo, float hi) {
    std::printf("flush_limits_test: seed %u\n", seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(lo, hi);
    std::vector<float> v(n);
    for (float& f : v) f = d(rng);
    return v;
}

} // namespace

TEST_CASE("a stream of dead temporaries over 2^24 elements is never cut by the byte limit") {
    loom::context& ctx = fused();
    const std::size_t n = std::size_t(1) << 24; // 64 MiB a vector: ten iterations fill 30 temporaries, 1.9 GiB
    const auto hx = random_floats(31, n, 0.5f, 1.0f), hy = random_floats(32, n, -0.5f, 0.0f);
    loom::vector<float> x(ctx, hx), y(ctx, hy);
    ctx.finish();
    const auto before = ctx.statistics();
    for (int it = 0; it < 10; ++it) {
        loom::vector<float> t1(ctx, n), t2(ctx, n), t3(ctx, n);
        t1 = 0.25f * x;
        t2 = t1 + y;
        t3 = t2 * t2;
        y = t3 - x;
    }
    CHECK(ctx.statistics().flushes == before.flushes); // nothing ran yet
    const auto got = y.to_host();
    CHECK(ctx.statistics().flushes == before.flushes + 1);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
        float v = hy[i];
        for (int it = 0; it < 10; ++it) {
            const float t = 0.25f * hx[i] + v;
            v = t * t - hx[i];
        }
        wrong += got[i] != v;
    }
    CHECK(wrong == 0);
}

TEST_CASE("live vectors that a flush will allocate still reach the byte limit") {
    loom::context& ctx = fused();
    const std::size_t n = std::size_t(1) << 24;
    loom::vector<float> x(ctx, n, 1.5f);
    ctx.finish();
    const auto before = ctx.statistics();
    std::vector<loom::vector<float>> kept;
    for (int k = 0; k < 18; ++k) { // 18 x 64 MiB, all still named: more than 1 GiB to allocate
        kept.emplace_back(ctx, n);
        kept.back() = x * float(k);
    }
    CHECK(ctx.statistics().flushes > before.flushes);
    for (int k = 0; k < 18; k += 17) CHECK(kept[std::size_t(k)][n - 1] == 1.5f * float(k));
}

TEST_CASE("a flush forced by the statement limit cuts between iterations, not inside one") {
    loom::context& ctx = fused();
    const std::size_t n = 4096;
    const auto hx = random_floats(33, n, 0.5f, 1.5f);
    loom::vector<float> x(ctx, hx), y(ctx, n, 0.0f);
    ctx.finish();
    const auto before = ctx.statistics();
    // 100 iterations of 3 statements (t1, t2 die in the body): the 256-statement limit falls
    // inside iteration 86; the cut goes back to an iteration's end.
    for (int it = 0; it < 100; ++it) {
        loom::vector<float> t1 = loom::vector<float>(ctx, n);
        t1 = x * 0.5f;
        loom::vector<float> t2(ctx, n);
        t2 = t1 + y;
        y = t2 * 0.5f;
        if (ctx.statistics().flushes != before.flushes) {
            // The statements run so far are whole iterations: 5 per iteration (two fills).
            const auto mid = ctx.statistics();
            CAPTURE(mid.statements - before.statements);
            CHECK((mid.statements - before.statements) % 5 == 0);
            break;
        }
    }
    CHECK(ctx.statistics().flushes == before.flushes + 1);
}
