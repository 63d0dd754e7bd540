// The typing rules against the C++ compiler itself: for every pair of element types (and
// bool), the type Loom gives an operation is decltype of the same operation on host values.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <tuple>
#include <type_traits>

#include "ir/promotion.hpp"
#include "loom/detail/shape_builder.hpp"
#include "loom/dtype.hpp"
#include "loom/error.hpp"
#include "loom_type.hpp"

namespace {

using loom::dtype;
using loom::opcode;

template <class... T> struct types {};
using all_types = types<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                        std::uint32_t, std::uint64_t, float, double>;
using integer_types = types<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                            std::uint32_t, std::uint64_t>;

using loom::test::dt;

std::string pair_name(dtype a, dtype b) { return std::string(loom::name_of(a)) + ", " + loom::name_of(b); }

// Calls f(A{}, B{}) for every A in the first list and B in the second.
template <class F, class A, class... B> void row(F& f, types<B...>) { (f(A{}, B{}), ...); }
template <class F, class... A, class Cols> void every_pair(types<A...>, Cols cols, F f) { (row<F, A>(f, cols), ...); }
template <class F, class... A> void every_type(types<A...>, F f) { (f(A{}), ...); }

using loom::test::loom_type;

} // namespace

#pragma GCC diagnostic ignored "-Wbool-operation"
#pragma GCC diagnostic ignored "-Wsign-compare"

TEST_CASE("usual_arithmetic gives the type of a + b in C++ for every pair of types") {
    every_pair(all_types{}, all_types{}, [](auto a, auto b) {
        using R = decltype(a + b);
        INFO(pair_name(dt<decltype(a)>(), dt<decltype(b)>()));
        CHECK(loom::ir::usual_arithmetic(dt<decltype(a)>(), dt<decltype(b)>()) == dt<R>());
    });
}

TEST_CASE("integer_promotion gives the type of +a in C++ for every type") {
    every_type(all_types{}, [](auto a) {
        INFO(loom::name_of(dt<decltype(a)>()));
        CHECK(loom::ir::integer_promotion(dt<decltype(a)>()) == dt<decltype(+a)>());
    });
}

TEST_CASE("math_result gives the type of std::sin(a) and std::pow(a, b) for every type and pair") {
    every_type(all_types{}, [](auto a) {
        INFO(loom::name_of(dt<decltype(a)>()));
        CHECK(loom::ir::math_result(dt<decltype(a)>()) == dt<decltype(std::sin(a))>());
    });
    every_pair(all_types{}, all_types{}, [](auto a, auto b) {
        INFO(pair_name(dt<decltype(a)>(), dt<decltype(b)>()));
        CHECK(loom::ir::math_result(dt<decltype(a)>(), dt<decltype(b)>()) == dt<decltype(std::pow(a, b))>());
    });
}

TEST_CASE("binary operators are typed like C++ for every pair of element types") {
    using elements = types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                           std::uint32_t, std::uint64_t, float, double>;
    every_pair(elements{}, elements{}, [](auto a, auto b) {
        using A = decltype(a);
        using B = decltype(b);
        INFO(pair_name(dt<A>(), dt<B>()));
        CHECK(loom_type<A, B>(opcode::add) == dt<decltype(a + b)>());
        CHECK(loom_type<A, B>(opcode::sub) == dt<decltype(a - b)>());
        CHECK(loom_type<A, B>(opcode::mul) == dt<decltype(a * b)>());
        CHECK(loom_type<A, B>(opcode::div) == dt<decltype(a / b)>());
        CHECK(loom_type<A, B>(opcode::less) == dt<decltype(a < b)>());
        CHECK(loom_type<A, B>(opcode::equal) == dt<decltype(a == b)>());
        CHECK(loom_type<A, B>(opcode::logical_and) == dt<decltype(a && b)>());
        CHECK(loom_type<A, B>(opcode::logical_or) == dt<decltype(a || b)>());
        CHECK(loom_type<A, B>(opcode::atan2) == dt<decltype(std::atan2(a, b))>());
        CHECK(loom_type<A, B>(opcode::fmin) == dt<decltype(std::fmin(a, b))>());
        // where(c, a, b) is c ? a : b. min, max and clamp take the type of a + b (std::min
        // needs one type; Loom converts both by the usual arithmetic conversions, so
        // min(int8, int8) is an int, like int8 + int8).
        CHECK(loom_type<bool, A, B>(opcode::select) == dt<decltype(true ? a : b)>());
        CHECK(loom_type<A, B>(opcode::min) == dt<decltype(a + b)>());
        CHECK(loom_type<A, B>(opcode::max) == dt<decltype(a + b)>());
        CHECK(loom_type<A, B, B>(opcode::clamp) == dt<decltype(a + b)>());
        CHECK(loom_type<A, B, A>(opcode::fma) == dt<decltype(std::fma(a, b, a))>());
        if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) {
            CHECK(loom_type<A, B>(opcode::mod) == dt<decltype(a % b)>());
            CHECK(loom_type<A, B>(opcode::bit_and) == dt<decltype(a & b)>());
            CHECK(loom_type<A, B>(opcode::bit_xor) == dt<decltype(a ^ b)>());
            CHECK(loom_type<A, B>(opcode::shift_left) == dt<decltype(a << b)>());
            CHECK(loom_type<A, B>(opcode::shift_right) == dt<decltype(a >> b)>());
        }
    });
}

TEST_CASE("unary operators and abs are typed like C++ for every element type") {
    using elements = types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                           std::uint32_t, std::uint64_t, float, double>;
    every_type(elements{}, [](auto a) {
        using A = decltype(a);
        INFO(loom::name_of(dt<A>()));
        CHECK(loom_type<A>(opcode::negate) == dt<decltype(-a)>());
        CHECK(loom_type<A>(opcode::unary_plus) == dt<decltype(+a)>());
        CHECK(loom_type<A>(opcode::logical_not) == dt<decltype(!a)>());
        CHECK(loom_type<A>(opcode::sqrt) == dt<decltype(std::sqrt(a))>());
        if constexpr (std::is_integral_v<A>) CHECK(loom_type<A>(opcode::bit_not) == dt<decltype(~a)>());
        if constexpr (!std::is_unsigned_v<A> || sizeof(A) < 4)
            CHECK(loom_type<A>(opcode::abs) == dt<decltype(std::abs(a))>());
    });
}

TEST_CASE("the float built-ins are typed like <cmath>: copysign, fdim, nextafter, rint, ldexp") {
    using elements = types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                           std::uint32_t, std::uint64_t, float, double>;
    every_pair(elements{}, elements{}, [](auto a, auto b) {
        using A = decltype(a);
        using B = decltype(b);
        INFO(pair_name(dt<A>(), dt<B>()));
        CHECK(loom_type<A, B>(opcode::copysign) == dt<decltype(std::copysign(a, b))>());
        CHECK(loom_type<A, B>(opcode::fdim) == dt<decltype(std::fdim(a, b))>());
        CHECK(loom_type<A, B>(opcode::nextafter) == dt<decltype(std::nextafter(a, b))>());
        if constexpr (std::is_integral_v<B>) {
            CHECK(loom_type<A, B>(opcode::ldexp) == dt<decltype(std::ldexp(a, int(b)))>());
        } else {
            CHECK_THROWS_WITH_AS((loom_type<A, B>(opcode::ldexp)), doctest::Contains("exponent"), loom::error);
        }
    });
    every_type(elements{}, [](auto a) {
        using A = decltype(a);
        INFO(loom::name_of(dt<A>()));
        CHECK(loom_type<A>(opcode::rint) == dt<decltype(std::rint(a))>());
    });
}

TEST_CASE("classification gives bool for every real type, integers included; bit counts give int") {
    every_type(all_types{}, [](auto a) {
        using A = decltype(a);
        INFO(loom::name_of(dt<A>()));
        CHECK(loom_type<A>(opcode::isnan) == dt<decltype(std::isnan(a))>());
        CHECK(loom_type<A>(opcode::isinf) == dtype::boolean);
        CHECK(loom_type<A>(opcode::isfinite) == dtype::boolean);
        CHECK(loom_type<A>(opcode::isnormal) == dtype::boolean);
        CHECK(loom_type<A>(opcode::signbit) == dt<decltype(std::signbit(a))>());
        for (opcode op : {opcode::popcount, opcode::clz, opcode::ctz}) {
            if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>)
                CHECK(loom_type<A>(op) == dtype::i32);
            else
                CHECK_THROWS_WITH_AS(loom_type<A>(op), doctest::Contains("count the bits of an integer"), loom::error);
        }
    });
    CHECK_THROWS_AS(loom_type<std::complex<float>>(opcode::isnan), loom::error);
    // as_bits: the unsigned type of the operand's width, no promotion; no bits of a bool.
    CHECK(loom_type<float>(opcode::as_bits) == dtype::u32);
    CHECK(loom_type<double>(opcode::as_bits) == dtype::u64);
    CHECK(loom_type<std::int8_t>(opcode::as_bits) == dtype::u8);
    CHECK(loom_type<std::int16_t>(opcode::as_bits) == dtype::u16);
    CHECK(loom_type<std::uint32_t>(opcode::as_bits) == dtype::u32);
    CHECK(loom_type<std::int64_t>(opcode::as_bits) == dtype::u64);
    CHECK_THROWS_WITH_AS(loom_type<bool>(opcode::as_bits), doctest::Contains("as_bits"), loom::error);
    CHECK_THROWS_AS(loom_type<std::complex<float>>(opcode::as_bits), loom::error);
    CHECK_THROWS_AS((loom_type<std::complex<double>, std::int32_t>(opcode::ldexp)), loom::error);
}

TEST_CASE("where keeps the type when both branches agree, bool included") {
    CHECK(loom_type<bool, std::int8_t, std::int8_t>(opcode::select) == dtype::i8);
    CHECK(loom_type<bool, bool, bool>(opcode::select) == dtype::boolean);
    CHECK(loom_type<bool, bool, std::int8_t>(opcode::select) == dtype::i32);
    CHECK(loom_type<float, double, double>(opcode::select) == dtype::f64);
}

TEST_CASE("ops that C++ rejects for an operand type are rejected with loom::error") {
    CHECK_THROWS_AS((loom_type<float, float>(opcode::mod)), loom::error);
    CHECK_THROWS_AS((loom_type<std::int32_t, double>(opcode::bit_or)), loom::error);
    CHECK_THROWS_AS((loom_type<float, std::int32_t>(opcode::shift_left)), loom::error);
    CHECK_THROWS_AS((loom_type<std::int32_t, float>(opcode::shift_right)), loom::error);
    CHECK_THROWS_AS((loom_type<double>(opcode::bit_not)), loom::error);
    CHECK_THROWS_AS((loom_type<std::uint32_t>(opcode::abs)), loom::error);
    CHECK_THROWS_AS((loom_type<std::uint64_t>(opcode::abs)), loom::error);
}

TEST_CASE("the type predicates sort every dtype") {
    using loom::ir::is_float;
    using loom::ir::is_signed_integer;
    using loom::ir::is_unsigned_integer;
    every_type(all_types{}, [](auto a) {
        using A = decltype(a);
        INFO(loom::name_of(dt<A>()));
        CHECK(is_float(dt<A>()) == std::is_floating_point_v<A>);
        CHECK(is_signed_integer(dt<A>()) == (std::is_integral_v<A> && std::is_signed_v<A>));
        CHECK(is_unsigned_integer(dt<A>()) == (std::is_unsigned_v<A> && !std::is_same_v<A, bool>));
        CHECK(loom::size_of(dt<A>()) == sizeof(A));
    });
}

TEST_CASE("a real operand meeting a complex one is made complex, at the wider component type") {
    using cf = std::complex<float>;
    using cd = std::complex<double>;
    // Same-precision mixes agree with std::complex's own operators.
    CHECK(loom_type<cf, float>(opcode::mul) == dt<decltype(cf{} * float{})>());
    CHECK(loom_type<cd, double>(opcode::div) == dt<decltype(cd{} / double{})>());
    CHECK(loom_type<cf, cf>(opcode::add) == dtype::c64);
    // Loom's rule where C++ has no operator: the usual conversion of the component types.
    CHECK(loom_type<cf, double>(opcode::mul) == dtype::c128);
    CHECK(loom_type<double, cf>(opcode::sub) == dtype::c128);
    CHECK(loom_type<cf, cd>(opcode::add) == dtype::c128);
    CHECK(loom_type<cf, std::int64_t>(opcode::add) == dtype::c64);
    CHECK(loom_type<std::uint8_t, cd>(opcode::mul) == dtype::c128);
    CHECK(loom_type<cf, cf>(opcode::equal) == dtype::boolean);
    CHECK(loom_type<cf, double>(opcode::not_equal) == dtype::boolean);
    CHECK(loom_type<cf>(opcode::negate) == dtype::c64);
    // The complex functions: abs, arg, real, imag give the component type.
    CHECK(loom_type<cf>(opcode::abs) == dtype::f32);
    CHECK(loom_type<cd>(opcode::arg) == dtype::f64);
    CHECK(loom_type<cf>(opcode::real) == dtype::f32);
    CHECK(loom_type<cd>(opcode::imag) == dtype::f64);
    CHECK(loom_type<cf>(opcode::exp) == dtype::c64);
    CHECK(loom_type<cd>(opcode::sqrt) == dtype::c128);
    CHECK(loom_type<cf>(opcode::conj) == dtype::c64);
    // On real operands, as <complex>'s overloads for reals: float -> complex<float>, else complex<double>.
    CHECK(loom_type<float>(opcode::conj) == dtype::c64);
    CHECK(loom_type<std::int32_t>(opcode::conj) == dtype::c128);
    CHECK(loom_type<float>(opcode::real) == dtype::f32);
    CHECK(loom_type<float, float>(opcode::polar) == dtype::c64);
    CHECK(loom_type<float, double>(opcode::polar) == dtype::c128);
    CHECK(loom::size_of(dtype::c64) == sizeof(std::complex<float>));
    CHECK(loom::size_of(dtype::c128) == sizeof(std::complex<double>));
}

TEST_CASE("ops std::complex does not define are rejected with loom::error naming the op") {
    using cf = std::complex<float>;
    CHECK_THROWS_WITH_AS((loom_type<cf, cf>(opcode::less)), doctest::Contains("operator <"), loom::error);
    CHECK_THROWS_AS((loom_type<cf, float>(opcode::greater_equal)), loom::error);
    CHECK_THROWS_WITH_AS((loom_type<cf, std::int32_t>(opcode::mod)), doctest::Contains("operator %"), loom::error);
    CHECK_THROWS_AS((loom_type<cf, cf>(opcode::bit_and)), loom::error);
    CHECK_THROWS_AS((loom_type<cf>(opcode::bit_not)), loom::error);
    CHECK_THROWS_AS((loom_type<cf>(opcode::logical_not)), loom::error);
    CHECK_THROWS_WITH_AS((loom_type<cf, cf>(opcode::min)), doctest::Contains("loom::min"), loom::error);
    CHECK_THROWS_WITH_AS((loom_type<cf, float>(opcode::fmod)), doctest::Contains("loom::fmod"), loom::error);
    CHECK_THROWS_WITH_AS((loom_type<cf>(opcode::sin)), doctest::Contains("loom::sin"), loom::error);
    CHECK_THROWS_AS((loom_type<cf, float>(opcode::polar)), loom::error);
    CHECK_THROWS_AS((loom_type<cf, float, float>(opcode::select)), loom::error);
    // No conversion from complex to a real type.
    loom::detail::shape_builder b;
    CHECK_THROWS_WITH_AS(b.cast(dtype::f32, b.vector_slot(dtype::c64)),
                         doctest::Contains("complex<float> value cannot be converted to float"), loom::error);
}
