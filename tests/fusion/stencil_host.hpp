// Host references for the stencil tests: what a neighbour read returns under each boundary
// policy, written independently of Loom's emitter, plus the suite's OpenCL context and data.
#pragma once

#include <loom/loom.hpp>

#include <random>
#include <vector>

namespace stencil_host {

inline loom::context& ctx() {
    static loom::context c(loom::context_options{"opencl", "", 1});
    return c;
}

inline std::vector<float> random_floats(std::size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = d(gen);
    return v;
}

enum class policy { clamp, wrap, constant };

// Element j of v under policy p, for any j; c is the constant policy's value.
inline float host_at(const std::vector<float>& v, long j, policy p, float c) {
    const long n = long(v.size());
    if (j >= 0 && j < n) return v[std::size_t(j)];
    if (p == policy::clamp) return v[std::size_t(j < 0 ? 0 : n - 1)];
    if (p == policy::wrap) return v[std::size_t(((j % n) + n) % n)];
    return c;
}

// (x, y) of the nx x ny grid over v under policy p, per dimension.
inline float host_grid(const std::vector<float>& v, long nx, long ny, long x, long y, policy p, float c) {
    if (p == policy::constant && (x < 0 || x >= nx || y < 0 || y >= ny)) return c;
    auto fix = [&](long k, long size) {
        if (p == policy::clamp) return k < 0 ? 0 : (k >= size ? size - 1 : k);
        return ((k % size) + size) % size;
    };
    return v[std::size_t(fix(y, ny) * nx + fix(x, nx))];
}

} // namespace stencil_host
