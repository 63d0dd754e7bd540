// atan2 pow hypot fmod fmin fmax min max clamp fma on float and double, against a host
// reference: wider precision for the functions with an error bound, the same type for the
// exact ones (fmod, fmin, fmax, min, max, clamp, fma), which must match bit for bit.
#include "math_support.hpp"

using namespace loom_test;

namespace {

constexpr std::size_t n = 4096;

template <class T> std::vector<T> uniform_values(T lo, T hi, std::uint64_t stream) {
    return random_values<T>(n, lo, hi, stream);
}

// Every fourth element NaN in one operand or the other, every eighth pair equal.
template <class T> operands<T, T> with_nans(std::uint64_t stream) {
    std::vector<T> a = uniform_values<T>(T(-100), T(100), stream), b = uniform_values<T>(T(-100), T(100), stream + 1);
    const T nan = std::numeric_limits<T>::quiet_NaN();
    for (std::size_t i = 0; i < n; ++i) {
        if (i % 8 == 1) a[i] = nan;
        if (i % 8 == 3) b[i] = nan;
        if (i % 8 == 5) b[i] = a[i];
    }
    a[6] = T(-0.0), b[6] = T(0.0);
    return operands<T, T>(a, b);
}

} // namespace

TEST_CASE_TEMPLATE("atan2, pow and hypot are within their ULP bounds", T, float, double) {
    batch bt;
    const operands<T, T> atan2_in(uniform_values<T>(T(-10), T(10), 1100), uniform_values<T>(T(-10), T(10), 1101));
    const operands<T, T> pow_in(uniform_values<T>(T(0.01), T(100), 1102), uniform_values<T>(T(-10), T(10), 1103));
    const operands<T, T> hypot_in(uniform_values<T>(T(-1e3), T(1e3), 1104), uniform_values<T>(T(-1e3), T(1e3), 1105));
    record_math<T>(bt, "atan2", LOOM_MATH(atan2), 6, atan2_in);
    record_math<T>(bt, "pow", LOOM_MATH(pow), 16, pow_in);
    record_math<T>(bt, "hypot", LOOM_MATH(hypot), 4, hypot_in);
    bt.check_all();
}

TEST_CASE_TEMPLATE("fmod, fmin and fmax are exact, and fmin/fmax return the number when one operand is NaN", T, float,
                   double) {
    batch bt;
    std::vector<T> divisors = uniform_values<T>(T(-10), T(10), 1111);
    for (T& d : divisors)
        if (d == T(0)) d = T(1);
    const operands<T, T> fmod_in(uniform_values<T>(T(-1e3), T(1e3), 1110), divisors);
    const operands<T, T> nan_in = with_nans<T>(1112);
    record_math<T, T>(bt, "fmod", LOOM_MATH(fmod), 0, fmod_in);
    record_math<T, T>(bt, "fmin", LOOM_MATH(fmin), 0, nan_in);
    record_math<T, T>(bt, "fmax", LOOM_MATH(fmax), 0, nan_in);
    bt.check_all();
}

TEST_CASE_TEMPLATE("min, max and clamp follow std::min, std::max and std::clamp, NaN operands included", T, float,
                   double) {
    batch bt;
    const operands<T, T> nan_in = with_nans<T>(1120);
    std::vector<T> lo = uniform_values<T>(T(-50), T(0), 1121), hi = uniform_values<T>(T(0), T(50), 1122);
    const operands<T, T, T> clamp_in(uniform_values<T>(T(-100), T(100), 1123), lo, hi);
    // std::min(a, b) is (b < a) ? b : a: min(NaN, 1) is NaN, min(1, NaN) is 1.
    record_math<T, T>(
        bt, "min", [](const auto& a, const auto& b) { return loom::min(a, b); },
        [](T a, T b) { return std::min(a, b); }, 0, nan_in);
    record_math<T, T>(
        bt, "max", [](const auto& a, const auto& b) { return loom::max(a, b); },
        [](T a, T b) { return std::max(a, b); }, 0, nan_in);
    record_math<T, T>(
        bt, "clamp", [](const auto& v, const auto& l, const auto& h) { return loom::clamp(v, l, h); },
        [](T v, T l, T h) { return std::clamp(v, l, h); }, 0, clamp_in);
    bt.check_all();
}

TEST_CASE_TEMPLATE("fma rounds once: it matches std::fma exactly and differs from a * b + c", T, float, double) {
    batch bt;
    const operands<T, T, T> in(uniform_values<T>(T(-1e3), T(1e3), 1130), uniform_values<T>(T(-1e3), T(1e3), 1131),
                               uniform_values<T>(T(-1e3), T(1e3), 1132));
    record_math<T, T>(bt, "fma", LOOM_MATH(fma), 0, in);
    // The check means something only if a * b + c, rounded twice, differs somewhere.
    const auto& [a, b, c] = in.host;
    std::size_t differ = 0;
    for (std::size_t i = 0; i < n; ++i) differ += std::fma(a[i], b[i], c[i]) != a[i] * b[i] + c[i];
    CHECK(differ > 0);
    bt.check_all();
}

TEST_CASE("math functions accept host scalars and mixed float/double operands, computing as <cmath> does") {
    batch bt;
    const operands<float> x(uniform_values<float>(0.5f, 4.0f, 1140));
    const operands<float, double> fd(uniform_values<float>(0.5f, 4.0f, 1141), uniform_values<double>(-3.0, 3.0, 1142));
    // pow(float, int) is pow(double, double) in C++11 and later.
    record_math<double, long double>(
        bt, "pow(x, 3)", [](const auto& a) { return loom::pow(a, 3); }, [](long double a) { return std::pow(a, 3.0L); },
        16, x);
    record_math<float>(
        bt, "pow(x, 2.5f)", [](const auto& a) { return loom::pow(a, 2.5f); }, [](double a) { return std::pow(a, 2.5); },
        16, x);
    record_math<float>(
        bt, "atan2(1.0f, x)", [](const auto& a) { return loom::atan2(1.0f, a); },
        [](double a) { return std::atan2(1.0, a); }, 6, x);
    record_math<double, long double>(bt, "hypot(float, double)", LOOM_MATH(hypot), 4, fd);
    record_math<double, double>(bt, "fmax(float, double)", LOOM_MATH(fmax), 0, fd);
    record_math<float, float>(
        bt, "fma(x, x, 1.0f)", [](const auto& a) { return loom::fma(a, a, 1.0f); },
        [](float a) { return std::fma(a, a, 1.0f); }, 0, x);
    bt.check_all();
}
