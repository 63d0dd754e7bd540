// Helpers for the math-function tests: inputs in each function's domain and a recorder
// that compares the device result with a host reference computed in a wider type
// (double for float, long double for double), in ULPs of the result type.
#pragma once

#include "support.hpp"

namespace loom_test {

// The host type a reference is computed in for a result of type T.
template <class T> using wider_t = std::conditional_t<std::is_same_v<T, float>, double, long double>;

// Positive values spread over many binades: 2^u with u uniform in [lo, hi).
template <class T> std::vector<T> log_uniform(std::size_t n, double lo, double hi, std::uint64_t stream) {
    std::vector<double> e = random_values<double>(n, lo, hi, stream);
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = T(std::exp2(e[i]));
    return v;
}

// Records r = device_f(inputs...) into a vector of T (the math result type of the inputs)
// and queues a comparison with host_f evaluated on the inputs converted to W, rounded to T.
// W = wider_t<T> for functions with an error bound; W = T for the exact ones, whose
// reference must be rounded once (fma, fmod, ...).
template <class T, class W = wider_t<T>, class D, class H, class... I>
void record_math(batch& bt, const std::string& what, D device_f, H host_f, std::uint64_t max_ulps,
                 const operands<I...>& in) {
    const std::size_t n = std::get<0>(in.host).size();
    auto r = device<T>(n);
    std::apply([&](const auto&... d) { *r = device_f(*d...); }, in.dev);
    bt.later([=] {
        std::vector<T> want(n);
        for (std::size_t i = 0; i < n; ++i)
            want[i] = std::apply([&](const auto&... h) { return T(host_f(W(h[i])...)); }, in.host);
        check_elements(what + " " + type_names<I...>() + " -> " + type_name<T>(), r->to_host(), want, max_ulps,
                       [&](std::size_t i) { return describe(in.host, i); });
    });
}

} // namespace loom_test

// device and host spellings of one function, for record_math.
#define LOOM_MATH(fn) [](const auto&... a) { return loom::fn(a...); }, [](auto... a) { return std::fn(a...); }
