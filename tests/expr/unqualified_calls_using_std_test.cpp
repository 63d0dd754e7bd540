// Loom's functions called unqualified with <cmath>'s and <algorithm>'s in scope by
// using-declarations, as generic numeric code writes it (unqualified_calls.hpp): overload
// resolution must pick Loom's for Loom operands.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numeric>

using std::abs, std::acos, std::asin, std::atan, std::atan2, std::cbrt, std::ceil, std::clamp, std::cos, std::cosh,
    std::erf, std::erfc, std::exp, std::exp2, std::expm1, std::fabs, std::floor, std::fma, std::fmax, std::fmin,
    std::fmod, std::hypot, std::lgamma, std::log, std::log10, std::log1p, std::log2, std::max, std::min, std::minmax,
    std::pow, std::round, std::sin, std::sinh, std::sqrt, std::tan, std::tanh, std::tgamma, std::trunc, std::reduce,
    std::count, std::polar, std::real, std::imag, std::isnan, std::isinf, std::isfinite, std::isnormal, std::signbit,
    std::copysign, std::fdim, std::rint, std::nextafter, std::ldexp;

#include "unqualified_calls.hpp"

TEST_CASE("every Loom function resolves unqualified with using std::sin and the rest in scope") {
    unqualified::check_unqualified_calls();
}
