// The math library, where(), cast<T>() and index(). Each builds a Proto function node
// whose first child names the opcode; the typing rules live in the IR (op_table.cpp).
#pragma once

#include "loom/expr/domain.hpp"

namespace loom {

// Asks a reduction for a loom::scalar on the device instead of a host value:
// `loom::scalar<float> s = loom::sum(x, loom::on_device);` (see loom/reduce.hpp).
struct on_device_t {
    explicit constexpr on_device_t() = default;
};
inline constexpr on_device_t on_device{};

// Asks a reduction of a 2-D expression for one value per row (loom::axis<1>: the fold over
// the columns) or per column (loom::axis<0>): `y = loom::sum(A * loom::as_row(x), loom::axis<1>);`
// (see loom/matrix.hpp); of a 3-D expression, the fold of its axis 0 or 2 (loom/array3.hpp).
template <int Axis> struct axis_t {
    static_assert(Axis >= 0 && Axis <= 2,
                  "loom::axis<D>: D is 0 (along the rows) or 1 (along the columns), or 2 (a 3-D array's last axis)");
    explicit constexpr axis_t() = default;
};
template <int Axis> inline constexpr axis_t<Axis> axis{};

namespace expr {
// What makes loom::min(e, x) and loom::max(e, x) a reduction rather than an element-wise call.
template <class T> struct is_reduction_tag : std::is_same<T, on_device_t> {};
template <int Axis> struct is_reduction_tag<axis_t<Axis>> : std::true_type {};
} // namespace expr

// At least one argument must be a vector, a device scalar or a Loom expression; the
// others may be host scalars. (loom::min(x, loom::on_device) is a reduction, not this.)
template <class... A> using enable_if_loom_call =
    std::enable_if_t<(expr::is_operand_v<A> || ...) && !(expr::is_reduction_tag<std::decay_t<A>>::value || ...), int>;

// Found unqualified by argument-dependent lookup on every Loom operand: vectors, views and
// matrices live in namespace loom, and every expression derives from loom::expression_anchor.
#define LOOM_UNARY_FUNCTION(name)                                                                                      \
    template <class A, enable_if_loom_call<A> = 0> auto name(A&& a) {                                                  \
        return expr::call<opcode::name>(std::forward<A>(a));                                                           \
    }
#define LOOM_BINARY_FUNCTION(name)                                                                                     \
    template <class A, class B, enable_if_loom_call<A, B> = 0> auto name(A&& a, B&& b) {                               \
        return expr::call<opcode::name>(std::forward<A>(a), std::forward<B>(b));                                       \
    }

LOOM_UNARY_FUNCTION(sin)
LOOM_UNARY_FUNCTION(cos)
LOOM_UNARY_FUNCTION(tan)
LOOM_UNARY_FUNCTION(asin)
LOOM_UNARY_FUNCTION(acos)
LOOM_UNARY_FUNCTION(atan)
LOOM_UNARY_FUNCTION(sinh)
LOOM_UNARY_FUNCTION(cosh)
LOOM_UNARY_FUNCTION(tanh)
LOOM_UNARY_FUNCTION(exp)
LOOM_UNARY_FUNCTION(exp2)
LOOM_UNARY_FUNCTION(log)
LOOM_UNARY_FUNCTION(log2)
LOOM_UNARY_FUNCTION(log10)
LOOM_UNARY_FUNCTION(log1p)
LOOM_UNARY_FUNCTION(expm1)
LOOM_UNARY_FUNCTION(sqrt)
LOOM_UNARY_FUNCTION(rsqrt)
LOOM_UNARY_FUNCTION(cbrt)
LOOM_UNARY_FUNCTION(fabs)
LOOM_UNARY_FUNCTION(abs)
LOOM_UNARY_FUNCTION(floor)
LOOM_UNARY_FUNCTION(ceil)
LOOM_UNARY_FUNCTION(round)
LOOM_UNARY_FUNCTION(trunc)
LOOM_UNARY_FUNCTION(erf)
LOOM_UNARY_FUNCTION(erfc)
LOOM_UNARY_FUNCTION(tgamma)
LOOM_UNARY_FUNCTION(lgamma)
LOOM_BINARY_FUNCTION(atan2)
LOOM_BINARY_FUNCTION(pow)
LOOM_BINARY_FUNCTION(hypot)
LOOM_BINARY_FUNCTION(fmod)
LOOM_BINARY_FUNCTION(fmin)
LOOM_BINARY_FUNCTION(fmax)
LOOM_BINARY_FUNCTION(min)
LOOM_BINARY_FUNCTION(max)
// Complex numbers (docs/complex.md); a real operand counts as complex with a zero imaginary part.
LOOM_UNARY_FUNCTION(arg)
LOOM_UNARY_FUNCTION(conj)
LOOM_UNARY_FUNCTION(real)
LOOM_UNARY_FUNCTION(imag)
// std::polar(r, theta): r * (cos(theta) + i sin(theta)), from real operands.
LOOM_BINARY_FUNCTION(polar)
// Classification, as <cmath>: a bool (stored as 0 or 1 in a numeric vector). An integer operand
// is classified as the double it converts to: never NaN nor infinite, normal unless 0.
LOOM_UNARY_FUNCTION(isnan)
LOOM_UNARY_FUNCTION(isinf)
LOOM_UNARY_FUNCTION(isfinite)
LOOM_UNARY_FUNCTION(isnormal)
LOOM_UNARY_FUNCTION(signbit)
// Bit counts of an integer of 8 to 64 bits, signed or unsigned, in its own width, as an int (as
// C++20's std::popcount, std::countl_zero and std::countr_zero): clz(uint8_t(1)) is 7, ctz(0) the
// width. A floating-point operand does not compile.
LOOM_UNARY_FUNCTION(popcount)
LOOM_UNARY_FUNCTION(clz)
LOOM_UNARY_FUNCTION(ctz)
// <cmath>'s copysign, fdim (x - y if x > y, else +0), rint (to nearest, halves to even) and
// nextafter, typed as the other math functions.
LOOM_BINARY_FUNCTION(copysign)
LOOM_BINARY_FUNCTION(fdim)
LOOM_UNARY_FUNCTION(rint)
LOOM_BINARY_FUNCTION(nextafter)
// x * 2^e exactly (std::ldexp): float for a float x, else double; e an integer, converted to int.
LOOM_BINARY_FUNCTION(ldexp)
// The bits of a value as the unsigned integer of its width, unchanged (C++20's
// std::bit_cast<std::uint32_t>(x) of a float, OpenCL C's as_uint): a float's are a uint32, a
// double's a uint64, an int16's a uint16. A complex, bool or short vector operand does not compile.
LOOM_UNARY_FUNCTION(as_bits)
// Short vectors (docs/vector-types.md): length(a) = sqrt(dot(a, a)), dot(a, b) the sum of the
// component products, left to right, in the component type of the operands' math result.
LOOM_UNARY_FUNCTION(length)
LOOM_BINARY_FUNCTION(dot)

#undef LOOM_UNARY_FUNCTION
#undef LOOM_BINARY_FUNCTION

// std::clamp(v, lo, hi): lo if v < lo, hi if hi < v, else v.
template <class V, class L, class H, enable_if_loom_call<V, L, H> = 0> auto clamp(V&& v, L&& lo, H&& hi) {
    return expr::call<opcode::clamp>(std::forward<V>(v), std::forward<L>(lo), std::forward<H>(hi));
}

// a * b + c with one rounding.
template <class A, class B, class C, enable_if_loom_call<A, B, C> = 0> auto fma(A&& a, B&& b, C&& c) {
    return expr::call<opcode::fma>(std::forward<A>(a), std::forward<B>(b), std::forward<C>(c));
}

// Element-wise cond ? a : b, typed like the conditional operator.
template <class C, class A, class B, enable_if_loom_call<C, A, B> = 0> auto where(C&& cond, A&& a, B&& b) {
    return expr::call<opcode::select>(std::forward<C>(cond), std::forward<A>(a), std::forward<B>(b));
}

// Component I of a short vector expression (loom::get<0>(v) is v.x); loom::x(v) ... loom::w(v)
// are the same, found unqualified by argument-dependent lookup.
template <std::size_t I, class A, enable_if_loom_call<A> = 0> auto get(A&& a) {
    return expr::make_node<expr::proto::tag::function>(expr::component_tag<I>{}, std::forward<A>(a));
}
template <class A, enable_if_loom_call<A> = 0> auto x(A&& a) { return get<0>(std::forward<A>(a)); }
template <class A, enable_if_loom_call<A> = 0> auto y(A&& a) { return get<1>(std::forward<A>(a)); }
template <class A, enable_if_loom_call<A> = 0> auto z(A&& a) { return get<2>(std::forward<A>(a)); }
template <class A, enable_if_loom_call<A> = 0> auto w(A&& a) { return get<3>(std::forward<A>(a)); }

// A short vector of type V (loom::float4, ...) from its components, each converted to V's
// component type as static_cast does: OpenCL's (float4)(a, b, c, d), CUDA's make_float4.
template <class V, class... A, enable_if_loom_call<A...> = 0> auto make_vec(A&&... a) {
    static_assert(is_short_vector_v<V>, "loom::make_vec<V>: V is a short vector type (loom::float4, loom::int2, ...)");
    return expr::make_node<expr::proto::tag::function>(expr::make_vector_tag<V>{}, std::forward<A>(a)...);
}

// Conversion to T, as static_cast<T> does it; a real value becomes a complex one with a zero
// imaginary part, a complex one changes precision (a complex value has no cast to a real type);
// a short vector converts component by component to a vector of its width, and a scalar to
// any vector (every component the value).
template <class T, class A, enable_if_loom_call<A> = 0> auto cast(A&& a) {
    static_assert(is_host_number_v<T>,
                  "loom::cast<T>: T must be an arithmetic, std::complex or short vector (loom::float4) type");
    return expr::make_node<expr::proto::tag::function>(expr::cast_tag<T>{}, std::forward<A>(a));
}

// A host value converted to T (static_cast<T>): a host scalar of type T where one goes.
template <class T, class A, std::enable_if_t<std::is_arithmetic_v<std::decay_t<A>>, int> = 0> constexpr T cast(A a) {
    static_assert(std::is_arithmetic_v<T>, "loom::cast<T>: T must be an arithmetic type");
    return static_cast<T>(a);
}

// The element index i (a std::uint64_t) of the element being computed.
inline auto index() { return expr::make_terminal(expr::index_tag{}); }

} // namespace loom
