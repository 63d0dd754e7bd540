// + - * / % and unary - + on every element type, against the same C++ expression on the
// host (same operand types, so the host computes C++'s promotions and wrap-around).
#include "support.hpp"

using namespace loom_test;

namespace {

constexpr std::size_t n = 4096;

template <class T> operands<T, T> additive_operands(T) {
    std::vector<T> a = additive_range<T>(n, 100), b = additive_range<T>(n, 101);
    // The extremes of the range: uint32/uint64 wrap both ways, 8/16-bit types promote to
    // int and never wrap, int32/int64 stay at half range.
    constexpr bool halved = std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) >= 4;
    const T hi = halved ? T(highest<T>() / 2) : highest<T>();
    const T lo = halved ? T(lowest<T>() / 2) : std::is_floating_point_v<T> ? T(-hi) : lowest<T>();
    a[0] = hi, b[0] = hi;
    a[1] = T(0), b[1] = hi;
    a[2] = lo, b[2] = hi;
    a[3] = lo, b[3] = lo;
    return operands<T, T>(a, b);
}

// Products that cannot overflow a signed promoted type: uint16 * uint16 computes in int,
// so its operands stay under 46341; int32 and int64 stay under the square root of their max.
template <class T> std::vector<T> multiplicative_range(std::size_t count, std::uint64_t stream) {
    if constexpr (std::is_same_v<T, std::uint16_t>)
        return random_values<T>(count, 0, 46340, stream);
    else if constexpr (std::is_same_v<T, std::int32_t>)
        return random_values<T>(count, -46340, 46340, stream);
    else if constexpr (std::is_same_v<T, std::int64_t>)
        return random_values<T>(count, -3037000499LL, 3037000499LL, stream);
    else if constexpr (std::is_floating_point_v<T>)
        return random_values<T>(count, T(-1e3), T(1e3), stream);
    else
        return full_range<T>(count, stream); // 8-bit types promote to int; unsigned 32/64-bit wrap
}

template <class T> operands<T, T> multiplicative_operands(T) {
    std::vector<T> a = multiplicative_range<T>(n, 200), b = multiplicative_range<T>(n, 201);
    a[0] = highest<T>(), b[0] = T(2); // wraps for uint32/uint64, promotes for 8/16-bit types
    if constexpr (std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>) a[0] = T(highest<T>() / 2);
    if constexpr (std::is_same_v<T, std::uint16_t>) a[0] = T(46340);
    return operands<T, T>(a, b);
}

// Numerators avoid the most negative int32/int64 (its quotient by -1 overflows); half of
// the divisors are small so that quotients are not all 0 or 1; no divisor is zero.
template <class T> operands<T, T> division_operands(T) {
    std::vector<T> a = full_range<T>(n, 300), b = full_range<T>(n, 301);
    const std::vector<T> small =
        std::is_signed_v<T> ? random_values<T>(n, T(-20), T(20), 302) : random_values<T>(n, T(0), T(20), 302);
    for (std::size_t i = 0; i < n; ++i) {
        if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) >= 4)
            if (a[i] == lowest<T>()) a[i] = T(a[i] + 1);
        if (i % 2) b[i] = std::is_floating_point_v<T> ? T(small[i] / T(3)) : small[i];
        if (b[i] == T(0)) b[i] = T(1);
    }
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
        a[0] = T(-7), b[0] = T(2); // C++ truncates toward zero: -3, remainder -1
        a[1] = T(7), b[1] = T(-2);
        a[2] = T(sizeof(T) >= 4 ? lowest<T>() + 1 : lowest<T>()), b[2] = T(-1); // int8/int16 promote: -(-128) is 128
    }
    return operands<T, T>(a, b);
}

template <class T> operands<T> unary_operands(T) {
    std::vector<T> a = full_range<T>(n, 400);
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) >= 4)
        for (T& v : a)
            if (v == lowest<T>()) v = T(0);
    a[0] = T(0), a[1] = T(1), a[2] = highest<T>();
    if constexpr (sizeof(T) < 4 || !std::is_signed_v<T> || std::is_floating_point_v<T>) a[3] = lowest<T>();
    return operands<T>(a);
}

} // namespace

TEST_CASE("a + b and a - b match C++ for every element type, unsigned wrap-around included") {
    over_types(
        all_types{}, [](auto t) { return additive_operands(t); },
        [](batch& bt, const auto& in) {
            record(
                bt, "a + b", [](const auto& a, const auto& b) { return a + b; }, in);
            record(
                bt, "a - b", [](const auto& a, const auto& b) { return a - b; }, in);
        });
}

TEST_CASE("a * b matches C++ for every element type; 8- and 16-bit operands multiply in int") {
    over_types(
        all_types{}, [](auto t) { return multiplicative_operands(t); },
        [](batch& bt, const auto& in) {
            record(
                bt, "a * b", [](const auto& a, const auto& b) { return a * b; }, in);
        });
}

TEST_CASE("a / b matches C++ for every element type (integers truncate toward zero, floats round exactly)") {
    over_types(
        all_types{}, [](auto t) { return division_operands(t); },
        [](batch& bt, const auto& in) {
            record(
                bt, "a / b", [](const auto& a, const auto& b) { return a / b; }, in);
        });
}

TEST_CASE("a % b matches C++ for every integer type (the remainder takes the sign of the dividend)") {
    over_types(
        integers{}, [](auto t) { return division_operands(t); },
        [](batch& bt, const auto& in) {
            record(
                bt, "a % b", [](const auto& a, const auto& b) { return a % b; }, in);
        });
}

TEST_CASE("unary - and + match C++ for every element type: small types promote to int, unsigned negation wraps") {
    over_types(
        all_types{}, [](auto t) { return unary_operands(t); },
        [](batch& bt, const auto& in) {
            record(
                bt, "-a", [](const auto& a) { return -a; }, in);
            record(
                bt, "+a", [](const auto& a) { return +a; }, in);
        });
}

TEST_CASE("a chained arithmetic expression matches C++ evaluated in the same order") {
    const auto hx = random_values<float>(n, -10.0f, 10.0f, 500), hy = random_values<float>(n, 1.0f, 10.0f, 501);
    const auto hk = random_values<std::int32_t>(n, -1000, 1000, 502);
    loom::vector<float> x(ctx(), hx), y(ctx(), hy), r(ctx(), n);
    loom::vector<std::int32_t> k(ctx(), hk), q(ctx(), n);
    r = (x + y) * (x - y) / y - -x * 3.0f + 0.5f;
    q = (k * 3 - 7) / 4 % 5 + -k;
    std::vector<float> want(n);
    std::vector<std::int32_t> wantq(n);
    for (std::size_t i = 0; i < n; ++i) {
        want[i] = (hx[i] + hy[i]) * (hx[i] - hy[i]) / hy[i] - -hx[i] * 3.0f + 0.5f;
        wantq[i] = (hk[i] * 3 - 7) / 4 % 5 + -hk[i];
    }
    check_elements("float chain", r.to_host(), want);
    check_elements("int32 chain", q.to_host(), wantq);
}
