// Shared helpers for the skeleton suite: one context, seeded random host data (the seed
// is printed, and LOOM_TEST_SEED replays it), and the sizes every skeleton is run at.
#pragma once

#include <doctest/doctest.h>
#include <loom/loom.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

namespace skeleton_test {

inline loom::context& ctx() {
    static loom::context c;
    return c;
}

inline const std::vector<std::size_t>& sizes() {
    static const std::vector<std::size_t> s = {0, 1, 2, 3, 255, 257, (1u << 20) + 1};
    return s;
}

inline std::uint64_t seed() {
    static const std::uint64_t s = [] {
        const char* env = std::getenv("LOOM_TEST_SEED");
        const std::uint64_t v = env ? std::strtoull(env, nullptr, 10) : std::random_device{}();
        std::printf("skeleton tests: random seed %llu (set LOOM_TEST_SEED to replay)\n", (unsigned long long)v);
        return v;
    }();
    return s;
}

// n values uniformly in [lo, hi].
template <class T> std::vector<T> random_values(std::size_t n, T lo, T hi, std::uint64_t salt = 0) {
    std::mt19937_64 gen(seed() + salt * 7919 + n);
    std::vector<T> v(n);
    if constexpr (std::is_floating_point_v<T>) {
        std::uniform_real_distribution<T> d(lo, hi);
        for (T& x : v) x = d(gen);
    } else {
        std::uniform_int_distribution<long long> d((long long)lo, (long long)hi);
        for (T& x : v) x = T(d(gen));
    }
    return v;
}

// The key's place in loom::sort's order, as an unsigned integer: what IEEE 754's totalOrder and
// the integers' order are, written independently of the device's code.
template <class T> std::uint64_t order_of(T x) {
    if constexpr (std::is_floating_point_v<T>) {
        using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
        U u;
        std::memcpy(&u, &x, sizeof u);
        const U sign = U(1) << (sizeof(U) * 8 - 1);
        return (u & sign) ? std::uint64_t(U(~u)) : std::uint64_t(u | sign);
    } else if constexpr (std::is_signed_v<T>) {
        return std::uint64_t(std::int64_t(x)) ^ (std::uint64_t(1) << 63);
    } else {
        return std::uint64_t(x);
    }
}

// u = 2^-p, p the precision of T; gamma_k = k u / (1 - k u).
template <class T> double gamma(std::uint64_t k) {
    const double u = std::is_same_v<T, float> ? 0x1p-24 : 0x1p-53;
    return double(k) * u / (1.0 - double(k) * u);
}

} // namespace skeleton_test
