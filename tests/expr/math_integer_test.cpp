// Math on integer vectors: abs, min, max and clamp stay integral (abs promotes like
// std::abs); every other function computes in double, as <cmath> does for integers.
#include "math_support.hpp"

using namespace loom_test;

namespace {

constexpr std::size_t n = 4096;

template <class T> operands<T> abs_operands(T) {
    std::vector<T> a = full_range<T>(n, 1500);
    for (T& v : a)
        if (v == lowest<T>() && sizeof(T) >= 4) v = T(v + 1); // abs(INT_MIN) overflows
    a[0] = T(0);
    if constexpr (sizeof(T) < 4) a[1] = lowest<T>(); // promoted: abs(-128) is 128
    return operands<T>(a);
}

template <class T> operands<T, T, T> clamp_operands(T) {
    std::vector<T> v = full_range<T>(n, 1501), lo = full_range<T>(n, 1502), hi = full_range<T>(n, 1503);
    for (std::size_t i = 0; i < n; ++i)
        if (hi[i] < lo[i]) std::swap(lo[i], hi[i]);
    return operands<T, T, T>(v, lo, hi);
}

} // namespace

TEST_CASE("abs of signed and small unsigned integer vectors matches std::abs, promoting 8/16-bit types to int") {
    over_types(
        types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t>{},
        [](auto t) { return abs_operands(t); },
        [](batch& bt, const auto& in) {
            using T = std::decay_t<decltype(std::get<0>(in.host)[0])>;
            using R = decltype(std::abs(T()));
            record_math<R, R>(bt, "abs", LOOM_MATH(abs), 0, in);
        });
}

TEST_CASE("min, max and clamp of integer vectors match std::min, std::max and std::clamp for every integer type") {
    over_types(
        integers{}, [](auto t) { return clamp_operands(t); },
        [](batch& bt, const auto& in) {
            using T = std::decay_t<decltype(std::get<0>(in.host)[0])>;
            const operands<T, T> pair(std::get<0>(in.host), std::get<1>(in.host));
            record_math<T, T>(
                bt, "min", [](const auto& a, const auto& b) { return loom::min(a, b); },
                [](T a, T b) { return std::min(a, b); }, 0, pair);
            record_math<T, T>(
                bt, "max", [](const auto& a, const auto& b) { return loom::max(a, b); },
                [](T a, T b) { return std::max(a, b); }, 0, pair);
            record_math<T, T>(
                bt, "clamp", [](const auto& v, const auto& l, const auto& h) { return loom::clamp(v, l, h); },
                [](T v, T l, T h) { return std::clamp(v, l, h); }, 0, in);
        });
}

TEST_CASE("min and max of mixed integer types use the common type (int32 vs uint32 compares as uint32)") {
    const std::vector<std::int32_t> hs = {-1, 5, -7};
    const std::vector<std::uint32_t> hu = {1, 3, 4000000000u};
    loom::vector<std::int32_t> s(ctx(), hs);
    loom::vector<std::uint32_t> u(ctx(), hu);
    loom::vector<std::int64_t> mn(ctx(), 3), mx(ctx(), 3), cl(ctx(), 3);
    mn = loom::min(s, u); // -1 is 4294967295 as uint32
    mx = loom::max(s, u);
    cl = loom::clamp(s, 0, 4); // int: -1 -> 0, 5 -> 4, -7 -> 0
    CHECK(mn.to_host() == std::vector<std::int64_t>{1, 3, 4000000000LL});
    CHECK(mx.to_host() == std::vector<std::int64_t>{4294967295LL, 5, 4294967289LL});
    CHECK(cl.to_host() == std::vector<std::int64_t>{0, 4, 0});
}

TEST_CASE("math functions of integer vectors compute in double, as <cmath> does") {
    batch bt;
    const operands<std::int32_t> i32(random_values<std::int32_t>(n, -1000000, 1000000, 1510));
    const operands<std::uint64_t> u64(full_range<std::uint64_t>(n, 1511));
    const operands<std::int16_t> i16(random_values<std::int16_t>(n, -700, 700, 1512));
    const operands<std::int8_t, std::int8_t> i8(full_range<std::int8_t>(n, 1513),
                                                random_values<std::int8_t>(n, 1, 127, 1514));
    const operands<std::uint8_t, std::int32_t> pw(random_values<std::uint8_t>(n, 1, 20, 1515),
                                                  random_values<std::int32_t>(n, -10, 10, 1516));
    record_math<double>(bt, "sin", LOOM_MATH(sin), 4, i32);
    record_math<double, double>(bt, "sqrt", LOOM_MATH(sqrt), 0, u64); // sqrt(double(x)), rounded once
    record_math<double, double>(bt, "floor", LOOM_MATH(floor), 0, i32);
    record_math<double>(bt, "exp", LOOM_MATH(exp), 3, i16);
    record_math<double>(bt, "hypot", LOOM_MATH(hypot), 4, i8);
    record_math<double, double>(bt, "fmod", LOOM_MATH(fmod), 0, i8);
    record_math<double>(bt, "pow", LOOM_MATH(pow), 16, pw);
    record_math<double>(bt, "atan2", LOOM_MATH(atan2), 6, i8);
    bt.check_all();
}
