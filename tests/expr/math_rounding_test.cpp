// fabs, abs, floor, ceil, round and trunc on float and double: exact, halves rounding
// away from zero (std::round), signed zeros, infinities and NaN passing through.
#include "math_support.hpp"

using namespace loom_test;

TEST_CASE_TEMPLATE("fabs, abs, floor, ceil, round and trunc are exact", T, float, double) {
    const std::size_t n = 4096;
    std::vector<T> v = random_values<T>(n, T(-1e6), T(1e6), 1600);
    const std::vector<T> small = random_values<T>(n, T(-4), T(4), 1601);
    for (std::size_t i = 0; i < n; i += 4) v[i] = small[i];
    for (std::size_t i = 1; i < n; i += 4) v[i] = std::floor(small[i]) + T(0.5); // exact halves
    const T specials[] = {T(0.0),
                          T(-0.0),
                          T(0.5),
                          T(-0.5),
                          T(1.5),
                          T(-2.5),
                          T(0.49999997),
                          -T(0.49999997),
                          std::numeric_limits<T>::infinity(),
                          -std::numeric_limits<T>::infinity(),
                          std::numeric_limits<T>::quiet_NaN(),
                          std::numeric_limits<T>::denorm_min(),
                          std::numeric_limits<T>::max(),
                          T(1) / std::numeric_limits<T>::epsilon() + T(1)};
    std::copy(std::begin(specials), std::end(specials), v.begin() + 2);
    const operands<T> in(v);
    batch bt;
    record_math<T, T>(bt, "fabs", LOOM_MATH(fabs), 0, in);
    record_math<T, T>(bt, "abs", LOOM_MATH(abs), 0, in);
    record_math<T, T>(bt, "floor", LOOM_MATH(floor), 0, in);
    record_math<T, T>(bt, "ceil", LOOM_MATH(ceil), 0, in);
    record_math<T, T>(bt, "round", LOOM_MATH(round), 0, in);
    record_math<T, T>(bt, "trunc", LOOM_MATH(trunc), 0, in);
    bt.check_all();
}

TEST_CASE("floor(x) of a float vector stays float and can be compared bit for bit with signed zeros") {
    const std::vector<float> h = {-0.25f, -0.0f, 0.75f};
    loom::vector<float> x(ctx(), h), y(ctx(), 3);
    y = loom::ceil(x); // ceil(-0.25f) is -0.0f
    const auto out = y.to_host();
    CHECK(std::signbit(out[0]));
    CHECK(std::signbit(out[1]));
    CHECK(out[2] == 1.0f);
}
