// < > <= >= == != && || ! on every element type: results are bool, read back through
// int32 vectors as 0 or 1, and operands convert as C++ converts them.
#include "support.hpp"

using namespace loom_test;

namespace {

constexpr std::size_t n = 4096;

// Every third pair is equal so that ==, <= and >= see both outcomes.
template <class T> operands<T, T> comparison_operands(T) {
    std::vector<T> a = full_range<T>(n, 700), b = full_range<T>(n, 701);
    for (std::size_t i = 0; i < n; i += 3) b[i] = a[i];
    a[1] = lowest<T>(), b[1] = highest<T>();
    if constexpr (std::is_floating_point_v<T>) {
        // NaN compares false with everything, unequal to itself; -0 equals +0.
        a[4] = std::numeric_limits<T>::quiet_NaN(), b[4] = T(1);
        a[5] = std::numeric_limits<T>::quiet_NaN(), b[5] = a[5];
        a[7] = T(-0.0), b[7] = T(0.0);
        a[8] = -std::numeric_limits<T>::infinity(), b[8] = std::numeric_limits<T>::infinity();
    }
    return operands<T, T>(a, b);
}

// A quarter of the values are zero, so that every truth-table row occurs; floating point
// adds -0 (false) and NaN (true).
template <class T> operands<T, T> logical_operands(T) {
    std::vector<T> a = full_range<T>(n, 702), b = full_range<T>(n, 703);
    for (std::size_t i = 0; i < n; ++i) {
        if (i % 4 == 1) a[i] = T(0);
        if (i % 8 >= 4 && i % 8 < 6) b[i] = T(0);
    }
    if constexpr (std::is_floating_point_v<T>) {
        a[2] = T(-0.0), b[2] = T(1);
        a[3] = std::numeric_limits<T>::quiet_NaN(), b[3] = T(1);
        a[6] = T(1), b[6] = std::numeric_limits<T>::quiet_NaN();
    }
    return operands<T, T>(a, b);
}

} // namespace

TEST_CASE("comparisons match C++ for every element type and read back as 0 or 1") {
    over_types(
        all_types{}, [](auto t) { return comparison_operands(t); },
        [](batch& bt, const auto& in) {
            record(
                bt, "a < b", [](const auto& a, const auto& b) { return a < b; }, in);
            record(
                bt, "a > b", [](const auto& a, const auto& b) { return a > b; }, in);
            record(
                bt, "a <= b", [](const auto& a, const auto& b) { return a <= b; }, in);
        });
    over_types(
        all_types{}, [](auto t) { return comparison_operands(t); },
        [](batch& bt, const auto& in) {
            record(
                bt, "a >= b", [](const auto& a, const auto& b) { return a >= b; }, in);
            record(
                bt, "a == b", [](const auto& a, const auto& b) { return a == b; }, in);
            record(
                bt, "a != b", [](const auto& a, const auto& b) { return a != b; }, in);
        });
}

TEST_CASE("&&, || and ! match C++ for every element type (NaN is true, -0 is false)") {
    over_types(
        all_types{}, [](auto t) { return logical_operands(t); },
        [](batch& bt, const auto& in) {
            record(
                bt, "a && b", [](const auto& a, const auto& b) { return a && b; }, in);
            record(
                bt, "a || b", [](const auto& a, const auto& b) { return a || b; }, in);
            record(
                bt, "!a", [](const auto& a, const auto&) { return !a; }, in);
        });
}

TEST_CASE("a comparison assigned to any integer or floating vector stores 0 or 1") {
    const auto ha = random_values<std::int32_t>(n, -5, 5, 704), hb = random_values<std::int32_t>(n, -5, 5, 705);
    loom::vector<std::int32_t> a(ctx(), ha), b(ctx(), hb);
    loom::vector<std::uint8_t> r8(ctx(), n);
    loom::vector<std::int64_t> r64(ctx(), n);
    loom::vector<float> rf(ctx(), n);
    loom::vector<double> rd(ctx(), n);
    r8 = a < b;
    r64 = a == b || a > 3;
    rf = !(a >= b);
    rd = (a != b) && (b != 0);
    std::vector<std::uint8_t> w8(n);
    std::vector<std::int64_t> w64(n);
    std::vector<float> wf(n);
    std::vector<double> wd(n);
    for (std::size_t i = 0; i < n; ++i) {
        w8[i] = ha[i] < hb[i];
        w64[i] = ha[i] == hb[i] || ha[i] > 3;
        wf[i] = !(ha[i] >= hb[i]);
        wd[i] = (ha[i] != hb[i]) && (hb[i] != 0);
    }
    check_elements("uint8 = a < b", r8.to_host(), w8);
    check_elements("int64 = a == b || a > 3", r64.to_host(), w64);
    check_elements("float = !(a >= b)", rf.to_host(), wf);
    check_elements("double = a != b && b != 0", rd.to_host(), wd);
}
