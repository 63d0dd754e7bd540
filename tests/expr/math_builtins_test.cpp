// The built-ins ported from OpenCL and CUDA: classification (isnan isinf isfinite isnormal
// signbit), bit counts (popcount clz ctz) and copysign fdim rint nextafter ldexp, against
// independent host references (<cmath>, bit-by-bit loops) on edge values, fused with other
// statements in one kernel and unfused (one kernel per statement).
#include "support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

using namespace loom_test;

namespace {

constexpr std::size_t n = 2048;

// Runs body(context, batch) in the suite's (fusing) context and in the unfused one, each
// statement checked against its host reference after one read-back flush per run.
template <class Body> void fused_and_unfused(Body body) {
    for (bool fused : {true, false}) {
        CAPTURE(fused);
        batch bt;
        body(fused ? ctx() : unfused_ctx(), bt);
        bt.check_all();
    }
}

// A host vector and its copy in a context. Uploads flush: make every input before recording.
template <class T> struct input {
    loom::context* owner;
    std::vector<T> host;
    std::shared_ptr<loom::vector<T>> dev;
    input(loom::context& c, std::vector<T> h)
        : owner(&c), host(std::move(h)), dev(std::make_shared<loom::vector<T>>(c, host)) {}
};

// Records out = device_f(inputs...) into a vector<S> and queues its comparison with
// S(host_f(host inputs...)), exactly (0 ULP: every function here is exact).
template <class S, class D, class H, class T, class... U>
void expect(batch& bt, const std::string& what, D device_f, H host_f, const input<T>& first, const input<U>&... more) {
    auto out = std::make_shared<loom::vector<S>>(*first.owner, n);
    *out = device_f(*first.dev, *more.dev...);
    const auto hosts = std::make_tuple(first.host, more.host...);
    bt.later([=] {
        std::vector<S> want(n);
        for (std::size_t i = 0; i < n; ++i)
            want[i] = S(std::apply([&](const auto&... h) { return host_f(h[i]...); }, hosts));
        check_elements(what + " " + type_names<T, U...>() + " -> " + type_name<S>(), out->to_host(), want, 0,
                       [&](std::size_t i) { return describe(hosts, i); });
    });
}

// ---- host references --------------------------------------------------------------------

template <class T> using bits_of = std::make_unsigned_t<T>;
template <class T> constexpr int width = int(8 * sizeof(T));

template <class T> int host_popcount(T x) {
    const bits_of<T> u = bits_of<T>(x);
    int c = 0;
    for (int b = 0; b < width<T>; ++b) c += int((u >> b) & 1u);
    return c;
}
template <class T> int host_clz(T x) {
    const bits_of<T> u = bits_of<T>(x);
    int c = 0;
    for (int b = width<T> - 1; b >= 0 && !((u >> b) & 1u); --b) ++c;
    return c;
}
template <class T> int host_ctz(T x) {
    const bits_of<T> u = bits_of<T>(x);
    int c = 0;
    for (int b = 0; b < width<T> && !((u >> b) & 1u); ++b) ++c;
    return c;
}

// ---- inputs -----------------------------------------------------------------------------

// Every class of floating value: NaNs of both signs, infinities, signed zeros, denormals, the
// extremes of the normals, then values spread over every binade (some overflow to infinity,
// some fall to denormals or zero), of both signs.
template <class T> std::vector<T> classified_values(std::uint64_t stream) {
    using lim = std::numeric_limits<T>;
    std::vector<T> v = random_values<T>(n, T(-1), T(1), stream);
    const std::vector<double> e =
        random_values<double>(n, lim::min_exponent - lim::digits - 4.0, lim::max_exponent + 4.0, stream + 1);
    for (std::size_t i = 0; i < n; ++i) v[i] = std::copysign(T(std::exp2(e[i])), v[i]);
    const T specials[] = {lim::quiet_NaN(),
                          -lim::quiet_NaN(),
                          lim::infinity(),
                          -lim::infinity(),
                          T(0),
                          -T(0),
                          lim::denorm_min(),
                          -lim::denorm_min(),
                          lim::min() / T(2),
                          -lim::min() / T(2),
                          lim::min(),
                          -lim::min(),
                          lim::min() - lim::denorm_min(),
                          lim::max(),
                          lim::lowest(),
                          T(1),
                          T(-1),
                          T(0.5),
                          T(-2.5)};
    std::copy(std::begin(specials), std::end(specials), v.begin());
    for (std::size_t i = 40; i < n; i += 16) v[i] = i % 32 == 8 ? lim::quiet_NaN() : -lim::infinity();
    return v;
}

// The full range with 0, 1, all ones, the extremes and every power of two at the start.
template <class T> std::vector<T> bit_patterns(std::uint64_t stream) {
    std::vector<T> v = full_range<T>(n, stream);
    std::size_t at = 0;
    for (T s : {T(0), T(1), T(~T(0)), lowest<T>(), highest<T>(), T(lowest<T>() + 1), T(highest<T>() - 1)}) v[at++] = s;
    for (int b = 0; b < width<T>; ++b) {
        v[at++] = T(bits_of<T>(1) << b);
        v[at++] = T(~(bits_of<T>(1) << b));
    }
    // Narrow values, whose leading zeros are many.
    for (std::size_t i = at; i < n; i += 3) v[i] = T(v[i] & T(0x1f));
    return v;
}

// Where rint, nextafter, fdim and copysign differ from their neighbours: halves, signed zeros,
// NaNs of both signs, infinities, denormals, the extremes.
template <class T> std::vector<T> float_edges(std::uint64_t stream) {
    using lim = std::numeric_limits<T>;
    std::vector<T> v = random_values<T>(n, T(-8), T(8), stream);
    const std::vector<T> big = random_values<T>(n, T(-1e6), T(1e6), stream + 1);
    for (std::size_t i = 0; i < n; i += 4) v[i] = std::floor(v[i]) + T(0.5); // exact halves
    for (std::size_t i = 1; i < n; i += 4) v[i] = big[i];
    const T specials[] = {T(0.5),
                          T(-0.5),
                          T(1.5),
                          T(2.5),
                          T(-2.5),
                          T(0),
                          -T(0),
                          lim::quiet_NaN(),
                          -lim::quiet_NaN(),
                          lim::infinity(),
                          -lim::infinity(),
                          lim::denorm_min(),
                          -lim::denorm_min(),
                          lim::min(),
                          lim::max(),
                          lim::lowest(),
                          T(1) / lim::epsilon() + T(1)};
    std::copy(std::begin(specials), std::end(specials), v.begin() + 2);
    return v;
}

} // namespace

TEST_CASE_TEMPLATE("isnan, isinf, isfinite, isnormal and signbit match <cmath> on every class of value, fused and "
                   "unfused",
                   T, float, double) {
    const std::vector<T> values = classified_values<T>(2000), others = classified_values<T>(2002);
    fused_and_unfused([&](loom::context& c, batch& bt) {
        const input<T> x(c, values), y(c, others);
        // Found by argument-dependent lookup, as the other math functions are.
        expect<std::int32_t>(
            bt, "isnan", [](const auto& a) { return isnan(a); }, [](T a) { return std::isnan(a); }, x);
        expect<std::int32_t>(
            bt, "isinf", [](const auto& a) { return loom::isinf(a); }, [](T a) { return std::isinf(a); }, x);
        expect<std::int32_t>(
            bt, "isfinite", [](const auto& a) { return loom::isfinite(a); }, [](T a) { return std::isfinite(a); }, x);
        expect<std::int32_t>(
            bt, "isnormal", [](const auto& a) { return loom::isnormal(a); }, [](T a) { return std::isnormal(a); }, x);
        expect<std::int32_t>(
            bt, "signbit", [](const auto& a) { return signbit(a); }, [](T a) { return std::signbit(a); }, x);
        // Into other element types, and inside larger expressions.
        expect<std::uint8_t>(
            bt, "isnan(x) || isinf(y)", [](const auto& a, const auto& b) { return isnan(a) || isinf(b); },
            [](T a, T b) { return std::isnan(a) || std::isinf(b); }, x, y);
        expect<T>(
            bt, "where(isfinite(x + y), x + y, 0)",
            [](const auto& a, const auto& b) { return loom::where(isfinite(a + b), a + b, T(0)); },
            [](T a, T b) { return std::isfinite(a + b) ? a + b : T(0); }, x, y);
        expect<std::int32_t>(
            bt, "isnormal(x) * 2 + signbit(y)",
            [](const auto& a, const auto& b) { return loom::isnormal(a) * 2 + loom::signbit(b); },
            [](T a, T b) { return std::isnormal(a) * 2 + std::signbit(b); }, x, y);
        expect<double>(
            bt, "signbit(x) ? -1.0 : 1.0", [](const auto& a) { return loom::where(loom::signbit(a), -1.0, 1.0); },
            [](T a) { return std::signbit(a) ? -1.0 : 1.0; }, x);
    });
}

TEST_CASE("classification of integers is that of the double they convert to, as <cmath> does") {
    fused_and_unfused([](loom::context& c, batch& bt) {
        const auto cases = std::make_tuple(input<std::int8_t>(c, bit_patterns<std::int8_t>(2010)),
                                           input<std::int16_t>(c, bit_patterns<std::int16_t>(2011)),
                                           input<std::int32_t>(c, bit_patterns<std::int32_t>(2012)),
                                           input<std::int64_t>(c, bit_patterns<std::int64_t>(2013)),
                                           input<std::uint8_t>(c, bit_patterns<std::uint8_t>(2014)),
                                           input<std::uint16_t>(c, bit_patterns<std::uint16_t>(2015)),
                                           input<std::uint32_t>(c, bit_patterns<std::uint32_t>(2016)),
                                           input<std::uint64_t>(c, bit_patterns<std::uint64_t>(2017)));
        std::apply(
            [&](const auto&... in) {
                auto one = [&](const auto& x) {
                    using I = std::decay_t<decltype(x.host[0])>;
                    // One statement per type, all five functions packed into one int.
                    expect<std::int32_t>(
                        bt, "classification",
                        [](const auto& a) {
                            return loom::isnan(a) + loom::isinf(a) * 2 + loom::isfinite(a) * 4 + loom::isnormal(a) * 8 +
                                   loom::signbit(a) * 16;
                        },
                        [](I a) {
                            return std::isnan(a) + std::isinf(a) * 2 + std::isfinite(a) * 4 + std::isnormal(a) * 8 +
                                   std::signbit(a) * 16;
                        },
                        x);
                };
                (one(in), ...);
            },
            cases);
    });
}

TEST_CASE("popcount, clz and ctz count in the operand's own width for every integer type, fused and unfused") {
    fused_and_unfused([](loom::context& c, batch& bt) {
        const auto cases = std::make_tuple(input<std::int8_t>(c, bit_patterns<std::int8_t>(2020)),
                                           input<std::int16_t>(c, bit_patterns<std::int16_t>(2021)),
                                           input<std::int32_t>(c, bit_patterns<std::int32_t>(2022)),
                                           input<std::int64_t>(c, bit_patterns<std::int64_t>(2023)),
                                           input<std::uint8_t>(c, bit_patterns<std::uint8_t>(2024)),
                                           input<std::uint16_t>(c, bit_patterns<std::uint16_t>(2025)),
                                           input<std::uint32_t>(c, bit_patterns<std::uint32_t>(2026)),
                                           input<std::uint64_t>(c, bit_patterns<std::uint64_t>(2027)));
        std::apply(
            [&](const auto&... in) {
                auto one = [&](const auto& x) {
                    using I = std::decay_t<decltype(x.host[0])>;
                    expect<std::int32_t>(
                        bt, "popcount", [](const auto& a) { return popcount(a); }, host_popcount<I>, x);
                    expect<std::int32_t>(
                        bt, "clz", [](const auto& a) { return loom::clz(a); }, host_clz<I>, x);
                    expect<std::int32_t>(
                        bt, "ctz", [](const auto& a) { return ctz(a); }, host_ctz<I>, x);
                    // Fused with arithmetic on the counts, stored narrower.
                    expect<std::int16_t>(
                        bt, "width - clz(x) - ctz(x) + popcount(x)",
                        [](const auto& a) { return width<I> - loom::clz(a) - loom::ctz(a) + loom::popcount(a); },
                        [](I a) { return width<I> - host_clz(a) - host_ctz(a) + host_popcount(a); }, x);
                };
                (one(in), ...);
            },
            cases);
    });
}

template <class T> auto host_bits(T x) {
    if constexpr (std::is_integral_v<T>) {
        return bits_of<T>(x);
    } else {
        std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t> u;
        std::memcpy(&u, &x, sizeof u);
        return u;
    }
}

TEST_CASE_TEMPLATE("as_bits gives a float's bits unchanged, NaN payloads, signed zeros and denormals included, fused "
                   "and unfused",
                   T, float, double) {
    using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    const std::vector<T> values = classified_values<T>(2040);
    fused_and_unfused([&](loom::context& c, batch& bt) {
        const input<T> x(c, values);
        expect<U>(
            bt, "as_bits", [](const auto& a) { return as_bits(a); }, host_bits<T>, x);
        // Fused with integer arithmetic on the bits: the exponent field.
        constexpr int mantissa = std::numeric_limits<T>::digits - 1;
        constexpr unsigned exponent_mask = sizeof(T) == 4 ? 0xffu : 0x7ffu;
        expect<std::int32_t>(
            bt, "exponent field",
            [=](const auto& a) { return loom::cast<int>((loom::as_bits(a) >> mantissa) & exponent_mask); },
            [=](T a) { return int((host_bits(a) >> mantissa) & exponent_mask); }, x);
    });
}

TEST_CASE("as_bits of an integer is its own width's unsigned type, the value converted modulo 2^width") {
    fused_and_unfused([](loom::context& c, batch& bt) {
        const input<std::int8_t> a(c, bit_patterns<std::int8_t>(2041));
        const input<std::int16_t> b(c, bit_patterns<std::int16_t>(2042));
        const input<std::int64_t> d(c, bit_patterns<std::int64_t>(2043));
        expect<std::uint8_t>(
            bt, "as_bits", [](const auto& v) { return loom::as_bits(v); }, host_bits<std::int8_t>, a);
        expect<std::uint16_t>(
            bt, "as_bits", [](const auto& v) { return loom::as_bits(v); }, host_bits<std::int16_t>, b);
        expect<std::uint64_t>(
            bt, "as_bits", [](const auto& v) { return loom::as_bits(v); }, host_bits<std::int64_t>, d);
    });
}

TEST_CASE("bit counts of an expression count in its promoted type: popcount(x ^ y) of uint8 operands is 32-bit") {
    fused_and_unfused([](loom::context& c, batch& bt) {
        const input<std::uint8_t> x(c, bit_patterns<std::uint8_t>(2030)), y(c, bit_patterns<std::uint8_t>(2031));
        expect<std::int32_t>(
            bt, "clz(x ^ y)", [](const auto& a, const auto& b) { return clz(a ^ b); },
            [](std::uint8_t a, std::uint8_t b) { return host_clz(a ^ b); }, x, y);
        expect<std::int32_t>(
            bt, "clz(loom::cast<uint8_t>(x ^ y))",
            [](const auto& a, const auto& b) { return clz(loom::cast<std::uint8_t>(a ^ b)); },
            [](std::uint8_t a, std::uint8_t b) { return host_clz(std::uint8_t(a ^ b)); }, x, y);
        expect<std::int32_t>(
            bt, "popcount(~x)", [](const auto& a) { return popcount(~a); },
            [](std::uint8_t a) { return host_popcount(~a); }, x);
    });
}

TEST_CASE_TEMPLATE(
    "copysign, fdim, rint, nextafter and ldexp are exact, NaNs, infinities, zeros and denormals included", T, float,
    double) {
    using lim = std::numeric_limits<T>;
    const std::vector<T> xs = float_edges<T>(2040);
    std::vector<T> ys = float_edges<T>(2042);
    std::rotate(ys.begin(), ys.begin() + 5, ys.end());     // the specials meet each other and numbers
    for (std::size_t i = 64; i < n; i += 8) ys[i] = xs[i]; // nextafter(x, x) is x
    std::vector<std::int32_t> exponents =
        random_values<std::int32_t>(n, -2 * lim::max_exponent, 2 * lim::max_exponent, 2044);
    for (std::size_t i = 0; i < 24; ++i) exponents[i] = std::int32_t(i) - 12;
    // To the denormals and below, where ldexp rounds (to nearest even), and past the largest.
    for (std::size_t i = 24; i < n; i += 5) exponents[i] = lim::min_exponent - lim::digits + int(i % 7) - 3;
    for (std::size_t i = 26; i < n; i += 9) exponents[i] = lim::max_exponent - 2 + int(i % 5);
    std::vector<T> without_nans = xs;
    std::replace_if(without_nans.begin(), without_nans.end(), [](T v) { return std::isnan(v); }, T(-0.0));
    fused_and_unfused([&](loom::context& c, batch& bt) {
        const input<T> x(c, xs), y(c, ys);
        const input<std::int32_t> e(c, exponents);
        const input<T> not_nan(c, without_nans);
        expect<T>(
            bt, "copysign", [](const auto& a, const auto& b) { return copysign(a, b); },
            [](T a, T b) { return std::copysign(a, b); }, x, y);
        expect<T>(
            bt, "fdim", [](const auto& a, const auto& b) { return loom::fdim(a, b); },
            [](T a, T b) { return std::fdim(a, b); }, x, y);
        expect<T>(
            bt, "rint", [](const auto& a) { return rint(a); }, [](T a) { return std::rint(a); }, x);
        expect<T>(
            bt, "nextafter", [](const auto& a, const auto& b) { return loom::nextafter(a, b); },
            [](T a, T b) { return std::nextafter(a, b); }, x, y);
        expect<T>(
            bt, "ldexp", [](const auto& a, const auto& k) { return ldexp(a, k); },
            [](T a, std::int32_t k) { return std::ldexp(a, k); }, x, e);
        // The values' bits: a signed zero or a NaN's sign must survive (the checks above take
        // -0 == +0 and every NaN as equal).
        expect<std::int32_t>(
            bt, "signbit(copysign(x, y))",
            [](const auto& a, const auto& b) { return loom::signbit(loom::copysign(a, b)); },
            [](T a, T b) { return std::signbit(std::copysign(a, b)); }, x, y);
        // rint keeps a zero's sign, but IEEE 754 leaves the sign of a NaN it returns open (NVIDIA's
        // devices return their canonical, positive NaN): that check reads NaN-free operands.
        expect<std::int32_t>(
            bt, "signbit(rint(x))", [](const auto& a) { return loom::signbit(loom::rint(a)); },
            [](T a) { return std::signbit(std::rint(a)); }, not_nan);
        // Host scalars, and a chain the fusion pass keeps in registers.
        expect<T>(
            bt, "nextafter(x, inf) - x", [](const auto& a) { return loom::nextafter(a, lim::infinity()) - a; },
            [](T a) { return std::nextafter(a, lim::infinity()) - a; }, x);
        expect<T>(
            bt, "ldexp(rint(x), 3)", [](const auto& a) { return loom::ldexp(loom::rint(a), 3); },
            [](T a) { return std::ldexp(std::rint(a), 3); }, x);
    });
}

TEST_CASE("the float built-ins on integer operands compute in double, as <cmath> does") {
    fused_and_unfused([](loom::context& c, batch& bt) {
        const input<std::int32_t> i(c, bit_patterns<std::int32_t>(2050));
        const input<std::int16_t> k(c, random_values<std::int16_t>(n, -40, 40, 2051));
        expect<double>(
            bt, "ldexp(int, short)", [](const auto& a, const auto& b) { return loom::ldexp(a, b); },
            [](std::int32_t a, std::int16_t b) { return std::ldexp(a, b); }, i, k);
        expect<double>(
            bt, "copysign(int, short)", [](const auto& a, const auto& b) { return loom::copysign(a, b); },
            [](std::int32_t a, std::int16_t b) { return std::copysign(a, b); }, i, k);
        expect<double>(
            bt, "fdim(int, short)", [](const auto& a, const auto& b) { return loom::fdim(a, b); },
            [](std::int32_t a, std::int16_t b) { return std::fdim(a, b); }, i, k);
    });
}

TEST_CASE("the built-ins' compile-time value types are those of <cmath> and C++20's <bit>") {
    loom::vector<float> f(ctx(), 1);
    loom::vector<std::uint8_t> u(ctx(), 1);
    loom::vector<std::int64_t> l(ctx(), 1);
    using loom::expr::value_type_t;
    static_assert(std::is_same_v<value_type_t<decltype(loom::isnan(f))>, bool>);
    static_assert(std::is_same_v<value_type_t<decltype(loom::signbit(l))>, bool>);
    static_assert(std::is_same_v<value_type_t<decltype(loom::popcount(u))>, int>);
    static_assert(std::is_same_v<value_type_t<decltype(loom::clz(l))>, int>);
    static_assert(std::is_same_v<value_type_t<decltype(loom::ldexp(f, l))>, float>);
    static_assert(std::is_same_v<value_type_t<decltype(loom::ldexp(l, 2))>, double>);
    static_assert(std::is_same_v<value_type_t<decltype(loom::copysign(f, 1.0))>, double>);
    static_assert(std::is_same_v<value_type_t<decltype(loom::rint(f))>, float>);
    static_assert(std::is_same_v<value_type_t<decltype(loom::as_bits(f))>, std::uint32_t>);
    static_assert(std::is_same_v<value_type_t<decltype(loom::as_bits(l))>, std::uint64_t>);
    static_assert(std::is_same_v<value_type_t<decltype(loom::as_bits(f * 2.0))>, std::uint64_t>);
    // A vector built from the expression takes the value type.
    loom::vector<int> counts = loom::popcount(u);
    CHECK(counts.to_host() == std::vector<int>{0});
}

TEST_CASE("classification and bit counts fuse into reductions: count(isnan(x)) and sum(popcount(u))") {
    const std::vector<double> hx = classified_values<double>(2060);
    const std::vector<std::uint64_t> hu = bit_patterns<std::uint64_t>(2061);
    loom::vector<double> x(ctx(), hx);
    loom::vector<std::uint64_t> u(ctx(), hu);
    std::uint64_t nans = 0, finite_negative = 0;
    std::int64_t bits = 0;
    for (double v : hx) {
        nans += std::isnan(v);
        finite_negative += std::isfinite(v) && std::signbit(v);
    }
    for (std::uint64_t v : hu) bits += host_popcount(v);
    CHECK(loom::count(loom::isnan(x)) == nans);
    CHECK(loom::count(isfinite(x) && signbit(x)) == finite_negative);
    CHECK(loom::sum(loom::cast<std::int64_t>(popcount(u))) == bits);
}
