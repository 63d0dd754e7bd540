// Reductions and scans configured as their callers expect: the result type named by the caller
// (loom::sum<std::int64_t>(x) over int32 values that overflow int32), to the host and on the
// device, and an exclusive scan's default first value (0).
#include "support.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace skeleton_test;

TEST_CASE("sum<R> and product<R> convert each value to R and accumulate in R, to the host and on the device") {
    constexpr std::size_t n = 10007;
    const std::vector<std::int32_t> h = random_values<std::int32_t>(n, std::numeric_limits<std::int32_t>::max() / 4,
                                                                    std::numeric_limits<std::int32_t>::max());
    loom::vector<std::int32_t> x(ctx(), h);
    std::int64_t want = 0;
    for (std::int32_t v : h) want += v;
    REQUIRE(want > std::numeric_limits<std::int32_t>::max()); // the int32 sum would wrap
    const std::int64_t got = loom::sum<std::int64_t>(x);
    static_assert(std::is_same_v<decltype(loom::sum<std::int64_t>(x)), std::int64_t>);
    CHECK(got == want);
    // Fused with an expression, and on the device.
    CHECK(loom::sum<std::int64_t>(x - 1) == want - std::int64_t(n));
    loom::scalar<std::int64_t> on_device = loom::sum<std::int64_t>(x, loom::on_device);
    CHECK(on_device.value() == want);
    // float values summed in double.
    const std::vector<float> hf = random_values<float>(n, -1.0f, 1.0f);
    loom::vector<float> f(ctx(), hf);
    double want_f = 0;
    for (float v : hf) want_f += double(v);
    static_assert(std::is_same_v<decltype(loom::sum<double>(f)), double>);
    CHECK(std::abs(loom::sum<double>(f) - want_f) <= 1e-12 * n);
    // A product of small integers in int64.
    loom::vector<std::int32_t> small(ctx(), std::vector<std::int32_t>{3, -4, 5, 7, 11, 13, 17, 19, 23});
    CHECK(loom::product<std::int64_t>(small) == std::int64_t(3) * -4 * 5 * 7 * 11 * 13 * 17 * 19 * 23);
    // Without R: the promoted element type, as before.
    static_assert(std::is_same_v<decltype(loom::sum(x)), std::int32_t>);
}

TEST_CASE("exclusive_scan without a first value starts from 0") {
    const std::vector<std::int32_t> h{4, -1, 7, 0, 2};
    loom::vector<std::int32_t> x(ctx(), h), y(ctx(), h.size());
    loom::exclusive_scan(x, y);
    CHECK(y.to_host() == std::vector<std::int32_t>{0, 4, 3, 10, 10});
    loom::exclusive_scan(x * 2, y);
    CHECK(y.to_host() == std::vector<std::int32_t>{0, 8, 6, 20, 20});
}

TEST_CASE_TEMPLATE("sum(x, compensated) keeps the small values large ones cancel, to about one rounding of the "
                   "exact sum; fused with an expression",
                   T, float, double) {
    constexpr std::size_t n = 100003;
    // Two large values that cancel, with many small ones between them: a plain sum loses the
    // small ones' low bits at every addition into a large partial sum.
    std::vector<T> h = random_values<T>(n, T(0.001), T(0.01));
    h[0] = T(1) / std::numeric_limits<T>::epsilon();
    h[n / 2] = -h[0];
    // The large pair cancels exactly; the rest, small, sum without loss in long double.
    long double exact = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (i != 0 && i != n / 2) exact += (long double)h[i];
    loom::vector<T> x(ctx(), h);
    const T got = loom::sum(x, loom::compensated);
    static_assert(std::is_same_v<decltype(loom::sum(x, loom::compensated)), T>);
    // A plain sum loses up to half a unit of the large values' last place (0.5 for float) at
    // every addition into them; the compensated one about one rounding of the result.
    const long double bound = 16 * (long double)std::numeric_limits<T>::epsilon() * std::abs(exact);
    CAPTURE(double(exact));
    CAPTURE(double(got));
    CHECK(std::abs((long double)got - exact) <= bound);
    // Fused: the sum of 2x - x is the same compensated sum.
    const T fused = loom::sum(x * T(2) - x, loom::compensated);
    CHECK(std::abs((long double)fused - exact) <= bound);
}
