// Map-reduce fusion: pending element-wise statements of the reduction's length run inside
// its first pass. Every case checks the stored vectors and the reduced values against host
// references and against a context with fusion off, and counts the launches.
#include "support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include <loom/inspect.hpp>

using namespace skeleton_test;

namespace {

using i32 = std::int32_t;

std::uint64_t launches(const loom::context& c) { return c.statistics().kernels_launched; }

// Passes a reduction of n elements launches on this context's device: one when one group
// covers the input (as on a CPU for small inputs), two otherwise.
std::uint64_t passes(loom::context& c, std::size_t n) {
    loom::vector<i32> probe(c, n, 1);
    c.finish();
    const std::uint64_t before = launches(c);
    CHECK(loom::sum(probe) == i32(n));
    return launches(c) - before;
}

loom::context& unfused() {
    static loom::context c(loom::context_options{"", "", 0});
    return c;
}

// y = 3x + 1 and z = y * y - x, pending; then sum(z - 2) and, on the device, max(z).
struct chain_result {
    std::vector<i32> y, z;
    i32 sum = 0, max = 0;
    std::uint64_t launches = 0; // by the two reductions (with the statements they ran)
    loom::flush_report report;  // of the first reduction's flush
};

chain_result run_chain(loom::context& c, const std::vector<i32>& hx) {
    loom::vector<i32> x(c, hx), y(c, hx.size()), z(c, hx.size());
    loom::scalar<i32> m(c);
    c.finish();
    chain_result r;
    const std::uint64_t before = launches(c);
    y = 3 * x + 1;
    z = y * y - x;
    r.sum = loom::sum(z - 2);
    r.report = loom::last_flush(c);
    y = y + 1;
    m = loom::max(z + y, loom::on_device);
    r.launches = launches(c) - before;
    r.max = m.value();
    r.y = y.to_host();
    r.z = z.to_host();
    return r;
}

} // namespace

TEST_CASE("pending statements run in the reduction's first pass, at every size, equal to the unfused run") {
    for (std::size_t n : sizes()) {
        CAPTURE(n);
        const std::vector<i32> hx = random_values<i32>(n, -100, 100, 11);
        std::vector<i32> y(n), z(n);
        i32 sum = 0, max = std::numeric_limits<i32>::lowest();
        for (std::size_t i = 0; i < n; ++i) {
            y[i] = 3 * hx[i] + 1;
            z[i] = y[i] * y[i] - hx[i];
            sum = i32(std::uint32_t(sum) + std::uint32_t(z[i] - 2)); // wraps, as the device's int sum does
            y[i] += 1;
            max = std::max(max, z[i] + y[i]);
        }
        const chain_result fused = run_chain(ctx(), hx), plain = run_chain(unfused(), hx);
        CHECK(fused.y == y);
        CHECK(fused.z == z);
        CHECK(fused.sum == sum);
        CHECK(plain.y == y);
        CHECK(plain.z == z);
        CHECK(plain.sum == sum);
        if (n > 0) {
            CHECK(fused.max == max);
            CHECK(plain.max == max);
        }
        if (n < 2) continue; // nothing to fuse: the statements and the reduction are a scalar's length
        // Fused: each reduction's passes only. Unfused: one kernel per statement as well.
        const std::uint64_t p = passes(ctx(), n);
        CHECK(fused.launches == 2 * p);
        CHECK(plain.launches == 2 * passes(unfused(), n) + 3);
        REQUIRE(fused.report.kernels.size() == 1);
        const loom::kernel_report& k = fused.report.kernels[0];
        CHECK(k.in_reduction);
        CHECK(k.ends == "reduction");
        CHECK(k.first_statement == 0);
        CHECK(k.last_statement == 1);
        CHECK(k.stores == 2); // y and z are live vectors
        CHECK(k.loads == 1);  // x; y is forwarded in registers
        CHECK(fused.report.statements == 2);
    }
}

TEST_CASE("a dead temporary read by the reduction is never stored") {
    const std::size_t n = 5000;
    const std::vector<i32> hx = random_values<i32>(n, -1000, 1000, 12);
    loom::vector<i32> x(ctx(), hx);
    i32 got = 0;
    {
        loom::vector<i32> t(ctx(), n);
        t = x * x;
        got = loom::sum(t + x); // t is still alive here: stored
    }
    loom::flush_report live = loom::last_flush(ctx());
    i32 expected = 0;
    for (i32 v : hx) expected += v * v + v;
    CHECK(got == expected);
    REQUIRE(live.kernels.size() == 1);
    CHECK(live.kernels[0].stores == 1);
    {
        loom::vector<i32> t(ctx(), n);
        t = x * x;
    } // t dies with its statement pending
    got = loom::sum(x * 2);
    const loom::flush_report dead = loom::last_flush(ctx());
    CHECK(got == 2 * std::accumulate(hx.begin(), hx.end(), i32(0)));
    REQUIRE(dead.kernels.size() == 1);
    CHECK(dead.kernels[0].in_reduction);
    CHECK(dead.kernels[0].stores == 0);
    CHECK(dead.kernels[0].elided == 1);
}

TEST_CASE("a reduction that reads, at other indices, what a pending statement writes runs after it") {
    const std::size_t n = 3001;
    const std::vector<i32> hx = random_values<i32>(n, -50, 50, 13);
    loom::vector<i32> x(ctx(), hx), y(ctx(), n);
    y = x * 2;
    const i32 got = loom::sum(loom::shift(y, 1) - y);
    const loom::flush_report r = loom::last_flush(ctx());
    // With the clamp boundary, sum(y[i+1] - y[i]) telescopes to y[n-1] - y[0] plus the
    // clamped last term (0).
    CHECK(got == 2 * hx[n - 1] - 2 * hx[0]);
    REQUIRE(r.kernels.size() == 1);
    CHECK_FALSE(r.kernels[0].in_reduction);
    CHECK(r.kernels[0].ends == "neighbour_read");
    CHECK(y.to_host()[17] == 2 * hx[17]);
}

TEST_CASE("statements of another length run on their own; the reduction reads its input alone") {
    loom::vector<i32> a(ctx(), 10, 4), b(ctx(), 10), x(ctx(), 1000, 3);
    ctx().finish();
    b = a * a;
    const std::uint64_t before = launches(ctx());
    CHECK(loom::sum(x) == 3000);
    const std::uint64_t used = launches(ctx()) - before;
    CHECK(used == 1 + passes(ctx(), 1000));
    CHECK(b.to_host() == std::vector<i32>(10, 16));
}

TEST_CASE("a fused statement reads the scalar the reduction then overwrites: it sees the old value") {
    for (std::size_t n : {std::size_t(300), std::size_t(1) << 20}) {
        CAPTURE(n);
        const std::vector<float> hx = random_values<float>(n, 0.0f, 1.0f, 14);
        loom::vector<float> x(ctx(), hx), y(ctx(), n);
        loom::scalar<float> r(ctx(), 0.5f);
        y = x * r;
        r = loom::max(y, loom::on_device);
        float expected = 0.0f;
        for (float v : hx) expected = std::max(expected, v * 0.5f);
        CHECK(r.value() == expected);
        const std::vector<float> got = y.to_host();
        for (std::size_t i = 0; i < n; i += 997) CHECK(got[i] == hx[i] * 0.5f);
    }
}

TEST_CASE("minmax and count take the fused statements too") {
    const std::size_t n = 70001;
    const std::vector<float> hx = random_values<float>(n, -4.0f, 4.0f, 15);
    loom::vector<float> x(ctx(), hx), y(ctx(), n);
    y = x * 2.0f - 1.0f;
    const auto [lo, hi] = loom::minmax(y);
    CHECK(loom::last_flush(ctx()).kernels.at(0).in_reduction);
    y = y + 1.0f;
    const auto positive = loom::count(y > 0.0f);
    float elo = INFINITY, ehi = -INFINITY;
    std::int64_t epos = 0;
    for (float v : hx) {
        const float w = v * 2.0f - 1.0f;
        elo = std::min(elo, w);
        ehi = std::max(ehi, w);
        epos += (w + 1.0f) > 0.0f;
    }
    CHECK(lo == elo);
    CHECK(hi == ehi);
    CHECK(std::int64_t(positive) == epos);
}

TEST_CASE("a device loop of stencil, residual and max is one looped kernel a batch, equal to the unfused loop") {
    const std::size_t n = 4096;
    const std::vector<float> h0 = random_values<float>(n, 0.5f, 1.5f, 16);
    std::vector<float> results[2];
    for (int fusion : {1, 0}) {
        CAPTURE(fusion);
        loom::context c(loom::context_options{"", "", fusion});
        loom::vector<float> u(c, h0), next(c, n), res(c, n);
        loom::scalar<float> r(c, 1.0f);
        c.finish();
        const std::uint64_t before = launches(c);
        const auto ran = loom::loop_while(
            c, r > 1e-30f,
            [&] {
                next = u + 0.2f * (loom::shift(u, -1) - 2.0f * u + loom::shift(u, 1));
                res = next - u;
                loom::swap(u, next);
                r = loom::max(loom::fabs(res), loom::on_device);
            },
            16, 64);
        CHECK(ran == 64);
        const std::uint64_t launched = launches(c) - before;
        // Fused: the reduction's passes only, the first running the stencil and the residual,
        // the last the loop's bookkeeping. Where that is one pass (one group covers 4096
        // elements on a CPU), the 16 iterations between two reads of the condition run as
        // one looped launch: 64 / 16 of them, after the one that sets the loop's flag.
        // Unfused: one kernel per statement besides the passes.
        const std::uint64_t pass_count = passes(c, n);
        if (fusion && pass_count == 1)
            CHECK(launched == 1 + 64 / 16);
        else if (fusion)
            CHECK(launched / 64 == pass_count);
        else
            CHECK(launched / 64 == 4 + pass_count);
        results[fusion] = u.to_host();
    }
    CHECK(results[0] == results[1]);
    std::vector<float> u = h0, next(n);
    for (int it = 0; it < 64; ++it) {
        for (std::size_t i = 0; i < n; ++i) {
            const float l = u[i == 0 ? 0 : i - 1], r = u[i + 1 < n ? i + 1 : n - 1];
            next[i] = u[i] + 0.2f * (l - 2.0f * u[i] + r);
        }
        std::swap(u, next);
    }
    for (std::size_t i = 0; i < n; ++i) CHECK(results[1][i] == doctest::Approx(u[i]).epsilon(1e-5));
}

TEST_CASE("loop_while: the held reduction pass runs before whatever follows it in the body") {
    // A statement after the reduction, a host read in the body, and a two-pass reduction:
    // each must see the reduction done, and the loop must stop at the exact iteration.
    for (std::size_t n : {std::size_t(1000), std::size_t(1) << 20}) {
        for (int variant : {0, 1, 2}) {
            CAPTURE(n);
            CAPTURE(variant);
            loom::vector<i32> x(ctx(), n, 0), y(ctx(), n, 0);
            loom::scalar<i32> top(ctx(), 0);
            std::vector<i32> seen;
            const auto ran = loom::loop_while(
                ctx(), top < 37,
                [&] {
                    x = x + 1;
                    top = loom::max(x, loom::on_device);
                    if (variant == 1) y = y + top; // reads the reduction's result
                    if (variant == 2 && seen.size() < 3) seen.push_back(top.value());
                },
                5, 1000);
            CHECK(ran == 37);
            CHECK(top.value() == 37);
            CHECK(x.to_host()[n - 1] == 37);
            if (variant == 1) CHECK(y.to_host()[0] == 37 * 38 / 2);
            if (variant == 2) CHECK(seen == std::vector<i32>{1, 2, 3});
        }
    }
}

TEST_CASE("loop_while: two reductions, a scan after the reduction, and a throw after it keep program order") {
    const std::size_t n = 2000;
    // Two device reductions: the second launches the first's held pass before its own.
    {
        loom::vector<i32> x(ctx(), n, 0);
        loom::scalar<i32> lo(ctx(), 0), hi(ctx(), 0);
        const auto ran = loom::loop_while(
            ctx(), hi - lo < 1,
            [&] {
                x = x + 1;
                lo = loom::min(x, loom::on_device);
                hi = loom::max(x * 2, loom::on_device);
            },
            3, 100);
        CHECK(ran == 1); // after one iteration hi - lo = 2 - 1
        CHECK(lo.value() == 1);
        CHECK(hi.value() == 2);
    }
    // A scan after the reduction reads the scalar the held pass writes.
    {
        loom::vector<i32> x(ctx(), n, 0), prefix(ctx(), n);
        loom::scalar<i32> top(ctx(), 0);
        const auto ran = loom::loop_while(
            ctx(), top < 5,
            [&] {
                x = x + 1;
                top = loom::max(x, loom::on_device);
                loom::inclusive_scan(x + top, prefix); // (x + top) = 2 * iteration
            },
            4, 100);
        CHECK(ran == 5);
        CHECK(prefix.to_host()[n - 1] == i32(10 * n));
    }
    // A body that throws after its reduction: the held pass still runs, once.
    {
        loom::vector<i32> x(ctx(), n, 0);
        loom::scalar<i32> top(ctx(), 0);
        CHECK_THROWS_AS(loom::loop_while(
                            ctx(), top < 100,
                            [&](std::uint64_t i) {
                                x = x + 1;
                                top = loom::max(x, loom::on_device);
                                if (i == 3) throw std::runtime_error("body failed");
                            },
                            2, 100),
                        std::runtime_error);
        CHECK(top.value() == 4);
        CHECK(x.to_host()[0] == 4);
    }
}
