// Reductions against host references: every size of the suite, the element types, NaN in
// min/max, the integer overflow rule, the float error bound, and the fused one-pass map.
#include "support.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/context_impl.hpp"
#include "launch/skeleton_geometry.hpp"

using namespace skeleton_test;

namespace {

std::uint64_t compiled(const loom::context& c) { return c.impl()->programs().stats().compiled; }

// sum for every type, minmax where `pair`, min and max on their own where `separate`
// (PoCL takes a second or two per new kernel: each check here is two kernels).
template <class T> void check_sum_min_max(T lo, T hi, bool pair, bool separate) {
    for (std::size_t n : sizes()) {
        CAPTURE(n);
        const std::vector<T> h = random_values<T>(n, lo, hi);
        loom::vector<T> x(ctx(), h);
        using S = loom::sum_type_t<loom::vector<T>>;
        static_assert(std::is_same_v<S, decltype(T() + T())>);
        S ref = 0;
        double abs_sum = 0;
        long double exact = 0;
        for (T v : h) {
            ref = S(ref + v);
            abs_sum += std::fabs(double(v));
            exact += (long double)v;
        }
        const S got = loom::sum(x);
        if constexpr (std::is_floating_point_v<T>) {
            const auto geo = loom::launch::reduce_geometry_for(ctx().impl()->info(), n);
            const double bound = gamma<T>(loom::launch::reduce_depth(geo, n)) * abs_sum;
            CHECK(std::fabs((long double)got - exact) <= bound);
        } else {
            CHECK(got == ref);
        }
        const T mn = n                                      ? *std::min_element(h.begin(), h.end())
                     : std::numeric_limits<T>::has_infinity ? std::numeric_limits<T>::infinity()
                                                            : std::numeric_limits<T>::max();
        const T mx = n                                      ? *std::max_element(h.begin(), h.end())
                     : std::numeric_limits<T>::has_infinity ? -std::numeric_limits<T>::infinity()
                                                            : std::numeric_limits<T>::lowest();
        if (separate) {
            CHECK(loom::min(x) == mn);
            CHECK(loom::max(x) == mx);
        }
        if (pair) {
            const auto [a, b] = loom::minmax(x);
            CHECK(a == mn);
            CHECK(b == mx);
        }
    }
}

} // namespace

TEST_CASE("sum, min, max and minmax match the host for every element type and size") {
    SUBCASE("float") { check_sum_min_max<float>(-100.0f, 100.0f, true, true); }
    SUBCASE("double") { check_sum_min_max<double>(-100.0, 100.0, true, false); }
    SUBCASE("int32") { check_sum_min_max<std::int32_t>(-1000, 1000, true, false); }
    SUBCASE("uint32") { check_sum_min_max<std::uint32_t>(0, 4000, false, false); }
    SUBCASE("int64") { check_sum_min_max<std::int64_t>(-(1ll << 40), 1ll << 40, true, false); }
}

TEST_CASE("float sum of random data stays within gamma_k * sum |x_i| of the exact sum") {
    for (std::size_t n : {std::size_t(1000), std::size_t(1) << 20, (std::size_t(1) << 20) + 1}) {
        CAPTURE(n);
        // Values of mixed sign and magnitude (cancellation makes the bound tight).
        std::vector<float> h = random_values<float>(n, -1.0f, 1.0f, 11);
        const std::vector<float> scale = random_values<float>(n, -8.0f, 8.0f, 12);
        for (std::size_t i = 0; i < n; ++i) h[i] = std::ldexp(h[i], int(scale[i]));
        loom::vector<float> x(ctx(), h);
        long double exact = 0;
        double abs_sum = 0;
        for (float v : h) {
            exact += v;
            abs_sum += std::fabs(v);
        }
        const auto geo = loom::launch::reduce_geometry_for(ctx().impl()->info(), n);
        const std::uint64_t k = loom::launch::reduce_depth(geo, n);
        const float got = loom::sum(x);
        CHECK(std::fabs((long double)got - exact) <= gamma<float>(k) * abs_sum);
        // The fused product adds one rounding per element: k + 1.
        long double exact_sq = 0;
        double abs_sq = 0;
        for (float v : h) {
            exact_sq += (long double)v * v;
            abs_sq += double(v) * v;
        }
        CHECK(std::fabs((long double)loom::sum(x * x) - exact_sq) <= gamma<float>(k + 1) * abs_sq);
    }
}

TEST_CASE("CPU geometry: one group up to 2^14 elements, groups of 8 to 64, the GPU form unchanged") {
    loom::backend::device_info cpu;
    cpu.compute_units = 2;
    cpu.max_work_group = 4096;
    struct expected {
        std::uint64_t n, groups;
        unsigned group;
    };
    // 2^14 + 1 is two groups; a work-item gets at least 2048 elements where the input allows.
    for (const expected& e : {expected{0, 1, 8},
                              {1000, 1, 8},
                              {1 << 14, 1, 8},
                              {(1 << 14) + 1, 2, 8},
                              {1 << 16, 4, 8},
                              {1 << 18, 8, 16},
                              {1 << 20, 8, 64},
                              {std::uint64_t(1) << 26, 8, 64}}) {
        CAPTURE(e.n);
        const auto g = loom::launch::reduce_geometry_for(cpu, e.n);
        CHECK(g.chunked);
        CHECK(g.groups == e.groups);
        CHECK(g.group == e.group);
    }
    cpu.max_work_group = 16; // the device's limit caps the group
    CHECK(loom::launch::reduce_geometry_for(cpu, 1 << 20).group == 16);
    loom::backend::device_info gpu = cpu;
    gpu.gpu = true;
    gpu.max_work_group = 1024;
    gpu.compute_units = 132;
    const auto g = loom::launch::reduce_geometry_for(gpu, 1 << 20);
    CHECK(!g.chunked);
    CHECK(g.group == 256);
    CHECK(g.groups == 132 * 8);
    CHECK(loom::launch::reduce_geometry_for(gpu, 1000).groups == 4);
}

TEST_CASE("integer sums at the geometry's boundaries fold every element exactly once") {
    // Around one group's limit (2^14) and where the group size steps; odd sizes leave tails.
    for (std::size_t n : {std::size_t(2047), std::size_t(16383), std::size_t(16384), std::size_t(16385),
                          std::size_t(65537), std::size_t(3 * 65536 - 1), std::size_t(1 << 19) + 7}) {
        CAPTURE(n);
        const std::vector<std::int32_t> h = random_values<std::int32_t>(n, -1000, 1000, 11);
        loom::vector<std::int32_t> x(ctx(), h);
        std::int64_t ref = 0;
        for (std::int32_t v : h) ref += v;
        ctx().finish();
        const auto before = ctx().statistics();
        CHECK(loom::sum(x) == ref);
        CHECK(loom::sum(loom::cast<std::int64_t>(x)) == ref);
        const auto geo = loom::launch::reduce_geometry_for(ctx().impl()->info(), n);
        CHECK(ctx().statistics().kernels_launched - before.kernels_launched == (geo.groups == 1 ? 2u : 4u));
    }
}

TEST_CASE("sum(x * y) is one pass: exactly two launches, no element-wise kernel, no temporary") {
    const std::size_t n = 100003;
    const std::vector<float> hx = random_values<float>(n, -1.0f, 1.0f, 1), hy = random_values<float>(n, -1.0f, 1.0f, 2);
    loom::vector<float> x(ctx(), hx), y(ctx(), hy);
    ctx().finish();
    (void)loom::sum(x * y); // compile outside the measurement
    const auto before = ctx().statistics();
    const std::uint64_t compiled_before = compiled(ctx());
    const float got = loom::sum(x * y);
    const auto after = ctx().statistics();
    CHECK(after.kernels_launched - before.kernels_launched == 2);
    CHECK(after.flushes == before.flushes);    // nothing element-wise ran
    CHECK(compiled(ctx()) == compiled_before); // a repeated reduction compiles nothing
    double ref = 0, abs_ref = 0;
    for (std::size_t i = 0; i < n; ++i) {
        ref += double(hx[i]) * hy[i];
        abs_ref += std::fabs(double(hx[i]) * hy[i]);
    }
    const auto geo = loom::launch::reduce_geometry_for(ctx().impl()->info(), n);
    CHECK(std::fabs(got - ref) <= gamma<float>(loom::launch::reduce_depth(geo, n) + 1) * abs_ref + 1e-12);
    // x * x is the same expression type with both slots naming one buffer: its own plan, one load.
    double ref_sq = 0;
    for (float v : hx) ref_sq += double(v) * v;
    CHECK(loom::sum(x * x) == doctest::Approx(ref_sq).epsilon(1e-5));
}

TEST_CASE("a reduction sees the pending statements before it (program order)") {
    loom::vector<std::int32_t> x(ctx(), 1000, 1);
    x = x * 3 + 1; // pending
    CHECK(loom::sum(x) == 4000);
    x += 1;
    CHECK(loom::sum(x) == 5000);
}

TEST_CASE("min and max skip NaN; an input of only NaN gives the identity") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> h = {3.0f, nan, -2.0f, 7.5f, nan};
    h.resize(1000, 1.0f);
    h[999] = nan;
    loom::vector<float> x(ctx(), h);
    CHECK(loom::min(x) == -2.0f);
    CHECK(loom::max(x) == 7.5f);
    const auto [lo, hi] = loom::minmax(x);
    CHECK(lo == -2.0f);
    CHECK(hi == 7.5f);
    loom::vector<float> all_nan(ctx(), 300, nan);
    CHECK(loom::min(all_nan) == std::numeric_limits<float>::infinity());
    CHECK(loom::max(all_nan) == -std::numeric_limits<float>::infinity());
    // count: NaN is nonzero, as (NaN != 0) is true in C++.
    CHECK(loom::count(x) == 1000);
}

TEST_CASE("integer sums: unsigned wraps modulo 2^N; cast<int64_t> widens") {
    const std::size_t n = 257;
    loom::vector<std::uint32_t> u(ctx(), n, 0xF0000000u);
    std::uint32_t wrapped = 0;
    for (std::size_t i = 0; i < n; ++i) wrapped += 0xF0000000u;
    CHECK(loom::sum(u) == wrapped);
    loom::vector<std::int32_t> s(ctx(), n, 2000000000);
    const std::int64_t wide = loom::sum(loom::cast<std::int64_t>(s));
    CHECK(wide == std::int64_t(n) * 2000000000);
    // int8 values sum in int (C++ promotion), so 257 * 100 does not wrap.
    loom::vector<std::int8_t> b(ctx(), n, std::int8_t(100));
    static_assert(std::is_same_v<decltype(loom::sum(b)), int>);
    CHECK(loom::sum(b) == 25700);
}

TEST_CASE("product, count, any and all") {
    for (std::size_t n :
         {std::size_t(0), std::size_t(1), std::size_t(3), std::size_t(257), (std::size_t(1) << 20) + 1}) {
        CAPTURE(n);
        std::vector<std::int64_t> h = random_values<std::int64_t>(n, -3, 3, 5);
        loom::vector<std::int64_t> x(ctx(), h);
        std::uint64_t nonzero = 0, positive = 0;
        for (auto v : h) {
            nonzero += v != 0;
            positive += v > 0;
        }
        CHECK(loom::count(x) == nonzero);
        CHECK(loom::count(x > 0) == positive);
        CHECK(loom::any(x > 2) == std::any_of(h.begin(), h.end(), [](auto v) { return v > 2; }));
        CHECK(loom::all(x != 0) == (nonzero == n));
    }
    std::vector<double> h = random_values<double>(300, 0.99, 1.01, 6);
    loom::vector<double> x(ctx(), h);
    long double ref = 1;
    for (double v : h) ref *= v;
    CHECK(loom::product(x) == doctest::Approx(double(ref)).epsilon(1e-12));
}

TEST_CASE("reduce with a user lambda: captured scalars and Loom functions, traced once") {
    const std::size_t n = 100001;
    const std::vector<std::int32_t> h = random_values<std::int32_t>(n, 0, 1000000, 8);
    loom::vector<std::int32_t> x(ctx(), h);
    const std::int32_t m = 1000003;
    auto mod_sum = [m](auto a, auto b) { return (a + b) % m; };
    std::int64_t ref = 0;
    for (auto v : h) ref = (ref + v) % m;
    CHECK(loom::reduce(x, 0, mod_sum) == ref);
    const std::int32_t m2 = 997; // same lambda type, another captured value: one kernel, new argument
    auto mod_sum2 = mod_sum;
    (void)mod_sum2;
    std::int64_t ref2 = 0;
    for (auto v : h) ref2 = (ref2 + v) % m2;
    auto mod_sum_of = [](std::int32_t mm) { return [mm](auto a, auto b) { return (a + b) % mm; }; };
    CHECK(loom::reduce(x, 0, mod_sum_of(m2)) == ref2);
    CHECK(loom::reduce(x, 0, mod_sum_of(m)) == ref);
    // Largest magnitude, through a Loom function inside the lambda; the input is fused.
    const std::vector<float> hf = random_values<float>(n, -50.0f, 50.0f, 9);
    loom::vector<float> f(ctx(), hf);
    float ref_abs = 0;
    for (float v : hf) ref_abs = std::max(ref_abs, std::fabs(v * 2.0f));
    CHECK(loom::reduce(f * 2.0f, 0.0f, [](auto a, auto b) { return loom::max(loom::fabs(a), loom::fabs(b)); }) ==
          ref_abs);
}

TEST_CASE("a stencil read in the input is fused too") {
    const std::vector<std::int32_t> h = random_values<std::int32_t>(1001, -9, 9, 41);
    loom::vector<std::int32_t> x(ctx(), h);
    std::int32_t ref = 0;
    for (std::size_t i = 0; i < h.size(); ++i) ref += h[i] * h[std::min(i + 1, h.size() - 1)]; // clamped at the end
    CHECK(loom::sum(x * loom::shift(x, 1)) == ref);
}

TEST_CASE("reduction errors name the problem") {
    loom::vector<float> a(ctx(), 10), b(ctx(), 11);
    CHECK_THROWS_WITH_AS(loom::sum(a + b), doctest::Contains("length mismatch"), loom::error);
    loom::vector<float> empty;
    CHECK_THROWS_AS(loom::sum(empty), loom::error);
}
