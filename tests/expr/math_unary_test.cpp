// The one-argument math functions on float and double, inputs in each function's domain,
// against a host reference computed in a wider type. Tolerances are the OpenCL 1.2 maximum
// errors (section 7.4), in ULPs of the result type.
#include "math_support.hpp"

using namespace loom_test;

namespace {

constexpr std::size_t n = 4096;
constexpr bool single(std::size_t bytes) { return bytes == 4; }

template <class T> operands<T> uniform(T lo, T hi, std::uint64_t stream) {
    return operands<T>(random_values<T>(n, lo, hi, stream));
}

} // namespace

TEST_CASE_TEMPLATE("trigonometric and hyperbolic functions are within their ULP bounds", T, float, double) {
    batch bt;
    const auto angles = uniform<T>(T(-100), T(100), 1000);
    const auto unit = uniform<T>(T(-1), T(1), 1001);
    const auto wide = uniform<T>(T(-100), T(100), 1002);
    const auto hyper = uniform<T>(T(-10), T(10), 1003);
    record_math<T>(bt, "sin", LOOM_MATH(sin), 4, angles);
    record_math<T>(bt, "cos", LOOM_MATH(cos), 4, angles);
    record_math<T>(bt, "tan", LOOM_MATH(tan), 5, angles);
    record_math<T>(bt, "asin", LOOM_MATH(asin), 4, unit);
    record_math<T>(bt, "acos", LOOM_MATH(acos), 4, unit);
    record_math<T>(bt, "atan", LOOM_MATH(atan), 5, wide);
    record_math<T>(bt, "sinh", LOOM_MATH(sinh), 4, hyper);
    record_math<T>(bt, "cosh", LOOM_MATH(cosh), 4, hyper);
    record_math<T>(bt, "tanh", LOOM_MATH(tanh), 5, hyper);
    bt.check_all();
}

TEST_CASE_TEMPLATE("exponential and logarithmic functions are within their ULP bounds", T, float, double) {
    batch bt;
    const T e = single(sizeof(T)) ? T(80) : T(700);
    const T e2 = single(sizeof(T)) ? T(120) : T(1000);
    const auto exp_in = uniform<T>(-e, e, 1010);
    const auto exp2_in = uniform<T>(-e2, e2, 1011);
    const auto positive = operands<T>(log_uniform<T>(n, -double(e2), double(e2), 1012));
    const auto log1p_in = uniform<T>(T(-0.99), T(100), 1013);
    const auto expm1_in = uniform<T>(T(-20), T(20), 1014);
    record_math<T>(bt, "exp", LOOM_MATH(exp), 3, exp_in);
    record_math<T>(bt, "exp2", LOOM_MATH(exp2), 3, exp2_in);
    record_math<T>(bt, "log", LOOM_MATH(log), 3, positive);
    record_math<T>(bt, "log2", LOOM_MATH(log2), 3, positive);
    record_math<T>(bt, "log10", LOOM_MATH(log10), 3, positive);
    record_math<T>(bt, "log1p", LOOM_MATH(log1p), 2, log1p_in);
    record_math<T>(bt, "expm1", LOOM_MATH(expm1), 3, expm1_in);
    bt.check_all();
}

TEST_CASE_TEMPLATE("sqrt, rsqrt and cbrt are within their ULP bounds (double sqrt correctly rounded)", T, float,
                   double) {
    batch bt;
    const auto positive = operands<T>(log_uniform<T>(n, -100, 100, 1020));
    const auto any = uniform<T>(T(-1e6), T(1e6), 1021);
    // The host's sqrt is correctly rounded in T itself (a long double reference would round twice).
    record_math<T, T>(bt, "sqrt", LOOM_MATH(sqrt), single(sizeof(T)) ? 3 : 0, positive);
    record_math<T>(
        bt, "rsqrt", [](const auto& a) { return loom::rsqrt(a); }, [](auto a) { return 1 / std::sqrt(a); }, 2,
        positive);
    record_math<T>(bt, "cbrt", LOOM_MATH(cbrt), 2, any);
    bt.check_all();
}

TEST_CASE_TEMPLATE("erf, erfc, tgamma and lgamma are within 16 ULPs", T, float, double) {
    batch bt;
    const auto erf_in = uniform<T>(T(-4), T(4), 1030);
    const auto erfc_in = uniform<T>(T(-2), single(sizeof(T)) ? T(9) : T(26), 1031);
    const auto gamma_in = uniform<T>(T(0.1), single(sizeof(T)) ? T(30) : T(150), 1032);
    // lgamma away from its zeros at 1 and 2, where no relative bound can hold.
    std::vector<T> lg = random_values<T>(n, T(2.5), T(1000), 1033);
    for (std::size_t i = 0; i < n; i += 2) lg[i] = T(0.05) + T(0.85) * T(i) / T(n);
    const auto lgamma_in = operands<T>(lg);
    record_math<T>(bt, "erf", LOOM_MATH(erf), 16, erf_in);
    record_math<T>(bt, "erfc", LOOM_MATH(erfc), 16, erfc_in);
    record_math<T>(bt, "tgamma", LOOM_MATH(tgamma), 16, gamma_in);
    record_math<T>(bt, "lgamma", LOOM_MATH(lgamma), 16, lgamma_in);
    bt.check_all();
}
