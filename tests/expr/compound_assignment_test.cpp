// += -= *= /= %= &= |= ^= <<= >>= on every element type they apply to: x op= y is
// x = T(x op y), C++'s rule, with the operation in the promoted type and the result
// converted back (narrowing to a signed type wraps modulo 2^N, as C++20 defines it).
#include "support.hpp"

using namespace loom_test;

namespace {

constexpr std::size_t n = 4096;

// Records x = copy of a; x op= b (the copy is itself a device statement), checked against
// the same compound assignment on the host.
template <class F, class T> void record_compound(batch& bt, const std::string& what, F op, const operands<T, T>& in) {
    auto x = std::make_shared<loom::vector<T>>(*std::get<0>(in.dev));
    op(*x, *std::get<1>(in.dev));
    bt.later([=] {
        const auto& [a, b] = in.host;
        std::vector<T> want(a);
        for (std::size_t i = 0; i < n; ++i) op(want[i], b[i]);
        check_elements(what + " on " + type_name<T>(), x->to_host(), want, 0,
                       [&](std::size_t i) { return describe(in.host, i); });
    });
}

template <class T> operands<T, T> arithmetic_operands(T) {
    std::vector<T> a = additive_range<T>(n, 800), b = additive_range<T>(n, 801);
    for (T& v : b)
        if (v == T(0)) v = T(3); // divisors
    return operands<T, T>(a, b);
}

// Products that stay in range where the promoted type is signed (uint16 multiplies in int).
template <class T> operands<T, T> multiplicative_operands(T) {
    if constexpr (std::is_same_v<T, std::uint16_t>)
        return operands<T, T>(random_values<T>(n, 0, 46340, 813), random_values<T>(n, 0, 46340, 814));
    else if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) >= 4)
        return operands<T, T>(random_values<T>(n, T(-40000), T(40000), 813),
                              random_values<T>(n, T(-40000), T(40000), 814));
    else
        return operands<T, T>(full_range<T>(n, 813), full_range<T>(n, 814));
}

template <class T> operands<T, T> bitwise_operands(T) {
    std::vector<T> a = full_range<T>(n, 802), b = full_range<T>(n, 803);
    for (T& v : b)
        if (v == T(0)) v = T(5); // divisors for %=
    if constexpr (std::is_signed_v<T> && sizeof(T) >= 4)
        for (T& v : a)
            if (v == lowest<T>()) v = T(0); // lowest % -1 overflows
    return operands<T, T>(a, b);
}

// Non-negative left operands and counts under 8: defined for every promoted type.
template <class T> operands<T, T> shift_operands(T) {
    return operands<T, T>(random_values<T>(n, T(0), T(highest<T>() / 256), 804), random_values<T>(n, T(0), T(7), 805));
}

} // namespace

TEST_CASE("+=, -= and /= match C++ for every element type") {
    over_types(
        all_types{}, [](auto t) { return arithmetic_operands(t); },
        [](batch& bt, const auto& in) {
            record_compound(
                bt, "x += y", [](auto& x, const auto& y) { x += y; }, in);
            record_compound(
                bt, "x -= y", [](auto& x, const auto& y) { x -= y; }, in);
            record_compound(
                bt, "x /= y", [](auto& x, const auto& y) { x /= y; }, in);
        });
}

TEST_CASE("*= matches C++ for every element type") {
    over_types(
        all_types{}, [](auto t) { return multiplicative_operands(t); },
        [](batch& bt, const auto& in) {
            record_compound(
                bt, "x *= y", [](auto& x, const auto& y) { x *= y; }, in);
        });
}

TEST_CASE("%=, &=, |= and ^= match C++ for every integer type") {
    over_types(
        integers{}, [](auto t) { return bitwise_operands(t); },
        [](batch& bt, const auto& in) {
            record_compound(
                bt, "x %= y", [](auto& x, const auto& y) { x %= y; }, in);
            record_compound(
                bt, "x &= y", [](auto& x, const auto& y) { x &= y; }, in);
            record_compound(
                bt, "x |= y", [](auto& x, const auto& y) { x |= y; }, in);
            record_compound(
                bt, "x ^= y", [](auto& x, const auto& y) { x ^= y; }, in);
        });
}

TEST_CASE("<<= and >>= match C++ for every integer type") {
    over_types(
        integers{}, [](auto t) { return shift_operands(t); },
        [](batch& bt, const auto& in) {
            record_compound(
                bt, "x <<= y", [](auto& x, const auto& y) { x <<= y; }, in);
            record_compound(
                bt, "x >>= y", [](auto& x, const auto& y) { x >>= y; }, in);
        });
}

TEST_CASE("compound assignment with a host scalar computes in the common type and converts back") {
    const auto hi = random_values<std::int32_t>(n, -100000, 100000, 808);
    const auto hu = random_values<std::uint8_t>(n, 0, 255, 809);
    const auto hf = random_values<float>(n, -100.0f, 100.0f, 810);
    loom::vector<std::int32_t> i(ctx(), hi);
    loom::vector<std::uint8_t> u(ctx(), hu);
    loom::vector<float> f(ctx(), hf);
    i *= 1.5; // int * double -> double, truncated back to int
    u += 300; // computed in int, wraps modulo 256 on the way back to uint8
    f -= 0.1; // float - double -> double, rounded back to float
    f *= 2;   // float * int -> float
    std::vector<std::int32_t> wi(hi);
    std::vector<std::uint8_t> wu(hu);
    std::vector<float> wf(hf);
    for (std::size_t k = 0; k < n; ++k) {
        wi[k] *= 1.5;
        wu[k] += 300;
        wf[k] -= 0.1;
        wf[k] *= 2;
    }
    check_elements("int32 *= 1.5", i.to_host(), wi);
    check_elements("uint8 += 300", u.to_host(), wu);
    check_elements("float -= 0.1; float *= 2", f.to_host(), wf);
}

TEST_CASE("a compound assignment whose right side is an expression is a member call that records a statement") {
    loom::vector<std::int32_t> x(ctx(), 4), y(ctx(), 4);
    // Proto's own compound-assignment operators must not capture `vector op= expression`:
    // they would build an expression node and discard it, silently doing nothing.
    CHECK(std::is_same_v<decltype(x += y), loom::vector<std::int32_t>&>);
    CHECK(std::is_same_v<decltype(x += 1), loom::vector<std::int32_t>&>);
    CHECK(std::is_same_v<decltype(x -= y * 2 + 1), loom::vector<std::int32_t>&>);
    CHECK(std::is_same_v<decltype(x += loom::abs(y)), loom::vector<std::int32_t>&>);
    CHECK(std::is_same_v<decltype(x <<= y - 1), loom::vector<std::int32_t>&>);
}

TEST_CASE("a compound assignment of a whole expression applies the operator to the expression's value") {
    const auto hx = random_values<std::int32_t>(n, 100, 1000, 811), hy = random_values<std::int32_t>(n, 1, 9, 812);
    loom::vector<std::int32_t> x(ctx(), hx), y(ctx(), hy);
    x -= y * 2 + 1; // x = x - (y * 2 + 1), not (x - y) * 2 + 1
    x <<= y - 1;
    x += loom::abs(y - 5);
    std::vector<std::int32_t> want(hx);
    for (std::size_t k = 0; k < n; ++k) {
        want[k] -= hy[k] * 2 + 1;
        want[k] <<= hy[k] - 1;
        want[k] += std::abs(hy[k] - 5);
    }
    check_elements("x -= y * 2 + 1; x <<= y - 1; x += abs(y - 5)", x.to_host(), want);
}
