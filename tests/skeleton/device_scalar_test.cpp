// loom::scalar: values on the device, reductions that leave their result there, and
// scalars read by later expressions with no host round trip; all against host references.
#include "support.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "runtime/context_impl.hpp"
#include "launch/skeleton_geometry.hpp"

using namespace skeleton_test;

namespace {

std::uint64_t syncs() { return ctx().statistics().host_syncs; }
std::uint64_t launches() { return ctx().statistics().kernels_launched; }

} // namespace

TEST_CASE("a scalar holds a value; scalar statements compute on the device") {
    loom::scalar<float> s(ctx(), 2.5f), t(ctx());
    CHECK(s.value() == 2.5f);
    CHECK(t.value() == 0.0f);
    t = s * 2.0f + 1.0f;
    s += t;
    CHECK(t.value() == 6.0f);
    CHECK(s.value() == 8.5f);
    loom::scalar<int> flag(ctx());
    flag = s > t;
    CHECK(flag.value() == 1);
    loom::scalar<double> wide(ctx());
    if (ctx().has_fp64()) {
        wide = s; // converted like C++ does
        CHECK(wide.value() == 8.5);
    }
    loom::scalar<float> copy = s; // a device copy, independent afterwards
    s = 0.0f;
    CHECK(copy.value() == 8.5f);
    CHECK(s.value() == 0.0f);
}

TEST_CASE("a scalar is broadcast in vector expressions, at every size, with no host sync") {
    loom::scalar<float> s(ctx(), 0.75f);
    for (std::size_t n : sizes()) {
        CAPTURE(n);
        const auto hx = random_values<float>(n, -4.0f, 4.0f);
        loom::vector<float> x(ctx(), hx), y(ctx(), n);
        ctx().finish();
        const auto before = syncs();
        y = x * s + loom::sin(s);
        y = y - s; // reads s again in the same kernel: broadcast reads do not end a kernel
        ctx().impl()->flush();
        CHECK(syncs() == before);
        const auto hy = y.to_host();
        for (std::size_t i = 0; i < n; ++i) CHECK(hy[i] == (hx[i] * 0.75f + std::sin(0.75f)) - 0.75f);
    }
}

TEST_CASE("a statement that writes a scalar and one that reads it run in order") {
    const std::size_t n = 1000;
    const auto hx = random_values<float>(n, 1.0f, 2.0f);
    loom::vector<float> x(ctx(), hx), y(ctx(), n);
    loom::scalar<float> s(ctx(), 1.0f);
    s = s + 2.0f; // 3
    y = x * s;
    s = s * 10.0f; // 30: must not be seen by y
    const auto hy = y.to_host();
    for (std::size_t i = 0; i < n; ++i) CHECK(hy[i] == hx[i] * 3.0f);
    CHECK(s.value() == 30.0f);
}

TEST_CASE("reductions on the device equal the host reductions, bit for bit, at every size") {
    for (std::size_t n : sizes()) {
        CAPTURE(n);
        const auto hx = random_values<float>(n, -100.0f, 100.0f, 3);
        const auto hi = random_values<std::int32_t>(n, -1000, 1000, 4);
        loom::vector<float> x(ctx(), hx);
        loom::vector<std::int32_t> k(ctx(), hi);
        ctx().finish();
        const auto syncs_before = syncs();
        const auto launches_before = launches();
        loom::scalar<float> sum = loom::sum(x * x, loom::on_device);
        loom::scalar<float> mn = loom::min(x, loom::on_device), mx = loom::max(x, loom::on_device);
        loom::scalar<std::int32_t> isum = loom::sum(k, loom::on_device);
        loom::scalar<std::uint64_t> positive = loom::count(k > 0, loom::on_device);
        loom::scalar<std::int32_t> any_big = loom::any(k > 990, loom::on_device),
                                   all_small = loom::all(k < 1001, loom::on_device);
        loom::scalar<float> biggest_abs = loom::reduce(
            loom::fabs(x), 0.0f, [](auto a, auto b) { return loom::max(a, b); }, loom::on_device);
        auto [lo, hi_] = loom::minmax(x, loom::on_device);
        ctx().impl()->flush();
        CHECK(syncs() == syncs_before); // nothing waited
        // One or two passes per reduction (8, and minmax), and one kernel for minmax's two zeroed scalars.
        const auto geo = loom::launch::reduce_geometry_for(ctx().impl()->info(), n);
        const std::uint64_t passes = geo.groups == 1 ? 1 : 2;
        if (n > 0) CHECK(launches() - launches_before == passes * 9 + 1);
        CHECK(sum.value() == loom::sum(x * x));
        CHECK(mn.value() == loom::min(x));
        CHECK(mx.value() == loom::max(x));
        CHECK(lo.value() == mn.value());
        CHECK(hi_.value() == mx.value());
        CHECK(isum.value() == std::accumulate(hi.begin(), hi.end(), 0));
        CHECK(positive.value() == std::uint64_t(std::count_if(hi.begin(), hi.end(), [](int v) { return v > 0; })));
        CHECK(any_big.value() == (std::any_of(hi.begin(), hi.end(), [](int v) { return v > 990; }) ? 1 : 0));
        CHECK(all_small.value() == 1);
        float ref_abs = 0.0f;
        for (float v : hx) ref_abs = std::max(ref_abs, std::fabs(v));
        CHECK(biggest_abs.value() == ref_abs);
    }
}

TEST_CASE("a device reduction feeds later expressions: normalise a vector with no round trip") {
    const std::size_t n = (1u << 20) + 1;
    const auto hx = random_values<float>(n, -1.0f, 1.0f, 5);
    loom::vector<float> x(ctx(), hx), y(ctx(), n);
    loom::scalar<float> norm2(ctx());
    ctx().finish();
    const auto before = syncs();
    norm2 = loom::sum(x * x, loom::on_device);
    y = x / loom::sqrt(norm2);
    loom::scalar<float> check = loom::sum(y * y, loom::on_device); // a scalar in a reduction's input, fused too
    loom::vector<float> prefix(ctx(), n);
    loom::inclusive_scan(x * norm2, prefix); // ... and in a scan's input
    ctx().impl()->flush();
    CHECK(syncs() == before);
    const float host_norm2 = norm2.value();
    CHECK(host_norm2 == loom::sum(x * x));
    const auto hy = y.to_host();
    for (std::size_t i = 0; i < n; i += 4099) CHECK(hy[i] == hx[i] / std::sqrt(host_norm2));
    CHECK(check.value() == doctest::Approx(1.0f).epsilon(1e-3));
    const auto hp = prefix.to_host();
    CHECK(hp[0] == hx[0] * host_norm2);
    CHECK(hp[1] == hx[0] * host_norm2 + hx[1] * host_norm2);
}

TEST_CASE("an empty input gives the identity on the device too") {
    loom::vector<float> x(ctx(), 0);
    loom::scalar<float> s(ctx(), 5.0f);
    s = loom::sum(x, loom::on_device);
    CHECK(s.value() == 0.0f);
    s = loom::min(x, loom::on_device);
    CHECK(std::isinf(s.value()));
}

TEST_CASE("scalar errors name the problem") {
    loom::scalar<float> empty;
    loom::vector<float> x(ctx(), 8, 1.0f), y(ctx(), 8);
    CHECK_THROWS_WITH_AS(y = x * empty, doctest::Contains("empty loom::scalar"), loom::error);
    CHECK_THROWS_WITH_AS((void)empty.value(), doctest::Contains("empty loom::scalar"), loom::error);
    loom::scalar<float> s(ctx());
    CHECK_THROWS_WITH_AS(s = x * 2.0f, doctest::Contains("length mismatch"), loom::error);
    CHECK(s.value() == 0.0f); // the failed statement left it as it was
    loom::context other;
    loom::scalar<float> foreign(other, 3.0f);
    CHECK_THROWS_WITH_AS(y = x * foreign, doctest::Contains("two contexts"), loom::error);
    CHECK_THROWS_WITH_AS(foreign = loom::sum(x, loom::on_device), doctest::Contains("another context"), loom::error);
    CHECK(foreign.value() == 3.0f);
}
