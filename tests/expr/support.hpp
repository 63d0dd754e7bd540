// Shared helpers for the expression suite: one context for every test, seeded host data,
// ULP distances and element-by-element comparison against a host reference.
// Tests record many statements before the first read-back so that one flush (one kernel
// compile) checks many cases: PoCL compiles each new kernel in about a second.
#pragma once

#include <doctest/doctest.h>
#include <loom/loom.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace loom_test {

// The one context of the suite (opening a PoCL device costs time).
inline loom::context& ctx() {
    static loom::context c;
    return c;
}

// The unfused reference: each statement its own kernel (LOOM_FUSION=0), on the same device.
inline loom::context& unfused_ctx() {
    static loom::context c([] {
        loom::context_options o;
        o.fusion = 0;
        return o;
    }());
    return c;
}

// A second context on the same device, for the tests of vectors from two contexts.
inline loom::context& other_ctx() {
    static loom::context c;
    return c;
}

// LOOM_TEST_SEED overrides the fixed default; the seed is printed once per run.
inline std::uint64_t seed() {
    static const std::uint64_t s = [] {
        const char* env = std::getenv("LOOM_TEST_SEED");
        const std::uint64_t v = env ? std::strtoull(env, nullptr, 10) : 20240611u;
        std::printf("loom expr tests: seed = %llu (set LOOM_TEST_SEED to change it)\n",
                    static_cast<unsigned long long>(v));
        return v;
    }();
    return s;
}

// A generator for one use: the suite seed mixed with a per-call stream number, so that a
// test's data does not depend on which tests ran before it.
inline std::mt19937_64 generator(std::uint64_t stream) {
    std::seed_seq seq{seed(), stream};
    return std::mt19937_64(seq);
}

template <class T> constexpr T lowest() { return std::numeric_limits<T>::lowest(); }
template <class T> constexpr T highest() { return std::numeric_limits<T>::max(); }

// n values uniformly in [lo, hi] (integers) or [lo, hi) (floating point).
template <class T> std::vector<T> random_values(std::size_t n, T lo, T hi, std::uint64_t stream) {
    auto gen = generator(stream);
    std::vector<T> v(n);
    if constexpr (std::is_floating_point_v<T>) {
        std::uniform_real_distribution<T> d(lo, hi);
        for (T& x : v) x = d(gen);
    } else if constexpr (std::is_signed_v<T>) {
        std::uniform_int_distribution<long long> d(lo, hi);
        for (T& x : v) x = T(d(gen));
    } else {
        std::uniform_int_distribution<unsigned long long> d(lo, hi);
        for (T& x : v) x = T(d(gen));
    }
    return v;
}

// Distance in units in the last place between two values of the same floating type:
// 0 when equal (or both NaN), huge when only one is NaN.
template <class F> std::uint64_t ulp_distance(F a, F b) {
    static_assert(std::is_floating_point_v<F>);
    using bits_t = std::conditional_t<sizeof(F) == 4, std::int32_t, std::int64_t>;
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : ~std::uint64_t(0);
    if (a == b) return 0; // +0 == -0
    bits_t ia, ib;
    std::memcpy(&ia, &a, sizeof a);
    std::memcpy(&ib, &b, sizeof b);
    // Map sign-magnitude to a monotonic integer line.
    const bits_t min = std::numeric_limits<bits_t>::min();
    if (ia < 0) ia = bits_t(min - ia);
    if (ib < 0) ib = bits_t(min - ib);
    const long double d = (long double)ia - (long double)ib;
    return std::uint64_t(d < 0 ? -d : d);
}

template <class T> std::string show(T v) {
    std::ostringstream s;
    if constexpr (std::is_floating_point_v<T>) {
        s.precision(std::numeric_limits<T>::max_digits10);
        s << v;
    } else if constexpr (sizeof(T) == 1) {
        s << int(v);
    } else {
        s << v;
    }
    return s.str();
}

// The element type a host expression's value is read back into: bool results go into int32.
template <class R> using stored_t = std::conditional_t<std::is_same_v<R, bool>, std::int32_t, R>;

// Compares element by element. One assertion per call, with the first few differences.
// `input(i)` describes the inputs of element i for the message.
template <class T> void check_elements(const std::string& what, const std::vector<T>& got, const std::vector<T>& want,
                                       std::uint64_t max_ulps = 0,
                                       const std::function<std::string(std::size_t)>& input = nullptr) {
    std::size_t bad = 0;
    std::uint64_t worst = 0;
    std::string first;
    const std::size_t n = std::min(got.size(), want.size());
    for (std::size_t i = 0; i < n; ++i) {
        bool ok;
        if constexpr (std::is_floating_point_v<T>) {
            const std::uint64_t d = ulp_distance(got[i], want[i]);
            worst = std::max(worst, d);
            ok = d <= max_ulps;
        } else {
            ok = got[i] == want[i];
        }
        if (!ok && bad++ < 4)
            first += "\n  [" + std::to_string(i) + "] got " + show(got[i]) + ", want " + show(want[i]) +
                     (input ? " for " + input(i) : std::string());
    }
    INFO(what, ": ", bad, " of ", n, " elements differ",
         (std::is_floating_point_v<T>
              ? " (worst " + std::to_string(worst) + " ulp, allowed " + std::to_string(max_ulps) + ")"
              : std::string()),
         first);
    CHECK(got.size() == want.size());
    CHECK(bad == 0);
}

// Statements recorded now, checked after the first read-back flushes them all together.
class batch {
public:
    template <class F> void later(F&& check) { checks_.emplace_back(std::forward<F>(check)); }
    void check_all() {
        for (auto& c : checks_) c();
        checks_.clear();
    }
    std::size_t size() const { return checks_.size(); }

private:
    std::vector<std::function<void()>> checks_;
};

template <class T> using vec_ptr = std::shared_ptr<loom::vector<T>>;

template <class T> vec_ptr<T> device(const std::vector<T>& host) {
    return std::make_shared<loom::vector<T>>(ctx(), host);
}
template <class T> vec_ptr<T> device(std::size_t n) { return std::make_shared<loom::vector<T>>(ctx(), n); }

// For type lists in templates.
template <class... T> struct types {};
template <class F, class... T> void for_each_type(types<T...>, F&& f) { (f(T{}), ...); }

using signed_integers = types<std::int8_t, std::int16_t, std::int32_t, std::int64_t>;
using unsigned_integers = types<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t>;
using integers = types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                       std::uint32_t, std::uint64_t>;
using floats = types<float, double>;
using all_types = types<std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t, std::uint16_t,
                        std::uint32_t, std::uint64_t, float, double>;

template <class T> const char* type_name() { return loom::name_of(loom::dtype_v<T>); }

// ---- operator and function checks over many types in one flush ------------------------

// Host inputs and their device copies. Build every case (each upload flushes) before
// recording statements, so that the statements of a test share one flush.
template <class... T> struct operands {
    std::tuple<std::vector<T>...> host;
    std::tuple<vec_ptr<T>...> dev;
    explicit operands(const std::vector<T>&... h) : host(h...), dev(device(h)...) {}
};

template <class... T> std::string describe(const std::tuple<std::vector<T>...>& host, std::size_t i) {
    std::string s;
    std::apply([&](const auto&... h) { ((s += (s.empty() ? "" : ", ") + show(h[i])), ...); }, host);
    return "(" + s + ")";
}

template <class... T> std::string type_names() {
    std::string s;
    ((s += (s.empty() ? "" : ", ") + std::string(type_name<T>())), ...);
    return "(" + s + ")";
}

// Records r = f(operands...) on the device, into a vector of f's host result type (bool
// results into int32), and queues the comparison with f computed on the host.
template <class F, class... T>
void record(batch& bt, const std::string& what, F f, const operands<T...>& in, std::uint64_t max_ulps = 0) {
    using R = decltype(f(std::declval<const T&>()...));
    using S = stored_t<R>;
    const std::size_t n = std::get<0>(in.host).size();
    auto r = device<S>(n);
    std::apply([&](const auto&... d) { *r = f(*d...); }, in.dev);
    bt.later([=] {
        std::vector<S> want(n);
        for (std::size_t i = 0; i < n; ++i)
            want[i] = std::apply([&](const auto&... h) { return S(f(h[i]...)); }, in.host);
        check_elements(what + " " + type_names<T...>() + " -> " + type_name<S>(), r->to_host(), want, max_ulps,
                       [&](std::size_t i) { return describe(in.host, i); });
    });
}

// For each type T of the list: gen(T{}) builds an operands case (uploading its inputs),
// then rec(batch, case) records statements; everything is checked after one flush.
template <class Gen, class Rec, class... T> void over_types(types<T...>, Gen gen, Rec rec) {
    batch bt;
    auto cases = std::make_tuple(gen(T{})...);
    std::apply([&](auto&... c) { (rec(bt, c), ...); }, cases);
    bt.check_all();
}

// Value ranges that keep C++ operators defined. Floating point: [-1e6, 1e6).
template <class T> std::vector<T> full_range(std::size_t n, std::uint64_t stream) {
    if constexpr (std::is_floating_point_v<T>)
        return random_values<T>(n, T(-1e6), T(1e6), stream);
    else
        return random_values<T>(n, lowest<T>(), highest<T>(), stream);
}

// Signed 32- and 64-bit values at half range, so that a + b and a - b cannot overflow.
template <class T> std::vector<T> additive_range(std::size_t n, std::uint64_t stream) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) >= 4)
        return random_values<T>(n, T(lowest<T>() / 2), T(highest<T>() / 2), stream);
    else
        return full_range<T>(n, stream);
}

// Every (A, B) with A from `rows` and B from `cols`, each an operands<A, B> of additive
// ranges (no signed overflow in any promoted type), recorded by rec and checked after one flush.
template <class A, class... B> auto operand_row(std::size_t count, types<B...>) {
    return std::make_tuple(operands<A, B>(additive_range<A>(count, 900 + 16 * sizeof(A) + std::is_signed_v<A>),
                                          additive_range<B>(count, 950 + 16 * sizeof(B) + std::is_signed_v<B>))...);
}

template <class... A, class Cols, class Rec> void over_pairs(std::size_t count, types<A...>, Cols cols, Rec rec) {
    batch bt;
    auto cases = std::tuple_cat(operand_row<A>(count, cols)...);
    std::apply([&](auto&... c) { (rec(bt, c), ...); }, cases);
    bt.check_all();
}

} // namespace loom_test
