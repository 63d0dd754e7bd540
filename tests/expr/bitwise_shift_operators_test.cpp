// & | ^ ~ << >> on every integer type, against the same C++ expression on the host.
#include "support.hpp"

using namespace loom_test;

namespace {

constexpr std::size_t n = 4096;

template <class T> operands<T, T> bitwise_operands(T) {
    std::vector<T> a = full_range<T>(n, 600), b = full_range<T>(n, 601);
    a[0] = highest<T>(), b[0] = lowest<T>();
    a[1] = T(0), b[1] = T(~T(0));
    return operands<T, T>(a, b);
}

template <class T> operands<T> complement_operands(T) {
    std::vector<T> a = full_range<T>(n, 602);
    a[0] = T(0), a[1] = highest<T>(), a[2] = lowest<T>();
    return operands<T>(a);
}

// Shift operands with defined results in C++17 and OpenCL C: the count is below the width
// W of the promoted left operand; a left operand of signed promoted type is non-negative
// and small enough that the result fits (values under 2^(W/2 - 1), counts under W/2;
// uint16 promotes to int and 65535 << 15 still fits). Unsigned 32/64-bit values may shift
// bits out (defined). Right shifts of negative values are arithmetic (C++20; GCC and
// OpenCL C do the same).
template <class T> struct shift_limits {
    static constexpr unsigned width = sizeof(T) < 4 ? 32 : 8 * sizeof(T);
    static constexpr bool promoted_signed = std::is_signed_v<T> || sizeof(T) < 4;
};

template <class T> operands<T, T> left_shift_operands(T) {
    using L = shift_limits<T>;
    std::vector<T> a, b;
    if constexpr (L::promoted_signed) {
        const T hi = std::is_same_v<T, std::uint16_t>
                         ? highest<T>()
                         : T(std::min<std::uint64_t>(highest<T>(), (std::uint64_t(1) << (L::width / 2 - 1)) - 1));
        a = random_values<T>(n, T(0), hi, 603);
        b = random_values<T>(n, T(0), T(L::width / 2 - 1), 604);
    } else {
        a = full_range<T>(n, 603);
        b = random_values<T>(n, T(0), T(L::width - 1), 604);
        a[0] = highest<T>(), b[0] = T(L::width - 1);
    }
    return operands<T, T>(a, b);
}

template <class T> operands<T, T> right_shift_operands(T) {
    using L = shift_limits<T>;
    std::vector<T> a = full_range<T>(n, 605), b = random_values<T>(n, T(0), T(L::width - 1), 606);
    a[0] = lowest<T>(), b[0] = T(L::width - 1);
    a[1] = highest<T>(), b[1] = T(1);
    return operands<T, T>(a, b);
}

} // namespace

TEST_CASE("a & b, a | b and a ^ b match C++ for every integer type") {
    over_types(
        integers{}, [](auto t) { return bitwise_operands(t); },
        [](batch& bt, const auto& in) {
            record(
                bt, "a & b", [](const auto& a, const auto& b) { return a & b; }, in);
            record(
                bt, "a | b", [](const auto& a, const auto& b) { return a | b; }, in);
            record(
                bt, "a ^ b", [](const auto& a, const auto& b) { return a ^ b; }, in);
        });
}

TEST_CASE("~a matches C++ for every integer type (8- and 16-bit operands complement as int)") {
    over_types(
        integers{}, [](auto t) { return complement_operands(t); },
        [](batch& bt, const auto& in) {
            record(
                bt, "~a", [](const auto& a) { return ~a; }, in);
        });
}

TEST_CASE("a << b matches C++ for every integer type: the result has the promoted left operand's type") {
    over_types(
        integers{}, [](auto t) { return left_shift_operands(t); },
        [](batch& bt, const auto& in) {
            record(
                bt, "a << b", [](const auto& a, const auto& b) { return a << b; }, in);
        });
}

TEST_CASE("a >> b matches C++ for every integer type, negative values shifting arithmetically") {
    over_types(
        integers{}, [](auto t) { return right_shift_operands(t); },
        [](batch& bt, const auto& in) {
            record(
                bt, "a >> b", [](const auto& a, const auto& b) { return a >> b; }, in);
        });
}

TEST_CASE("a shift count of another type does not change the result type, and a host scalar count works") {
    const auto h8 = random_values<std::int8_t>(n, 0, 127, 607);
    const auto h64 = random_values<std::int64_t>(n, 0, 15, 608);
    const auto hu = random_values<std::uint32_t>(n, 0, highest<std::uint32_t>(), 609);
    const auto hc8 = random_values<std::uint8_t>(n, 0, 31, 610);
    loom::vector<std::int8_t> a8(ctx(), h8);
    loom::vector<std::int64_t> c64(ctx(), h64);
    loom::vector<std::uint32_t> u(ctx(), hu);
    loom::vector<std::uint8_t> c8(ctx(), hc8);
    loom::vector<std::int32_t> r1(ctx(), n);
    loom::vector<std::int64_t> r2(ctx(), n);
    loom::vector<std::uint32_t> r3(ctx(), n), r4(ctx(), n);
    static_assert(std::is_same_v<decltype(std::int8_t() << std::int64_t()), int>);
    r1 = a8 << c64; // int: the count's type does not take part
    r2 = a8 << c64; // still int, widened only by the assignment
    r3 = u >> c8;
    r4 = (u << 3u) ^ (u >> 29); // a rotate, with host scalar counts
    std::vector<std::int32_t> w1(n);
    std::vector<std::int64_t> w2(n);
    std::vector<std::uint32_t> w3(n), w4(n);
    for (std::size_t i = 0; i < n; ++i) {
        w1[i] = h8[i] << h64[i];
        w2[i] = h8[i] << h64[i];
        w3[i] = hu[i] >> hc8[i];
        w4[i] = (hu[i] << 3u) ^ (hu[i] >> 29);
    }
    check_elements("int8 << int64", r1.to_host(), w1);
    check_elements("int8 << int64 into int64", r2.to_host(), w2);
    check_elements("uint32 >> uint8", r3.to_host(), w3);
    check_elements("uint32 rotate by scalars", r4.to_host(), w4);
}
