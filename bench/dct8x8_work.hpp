// The 8x8 block DCT that bench_dct8x8 (OpenCL, the CPU device) and bench_cuda (CUDA) time: its
// coefficients, the image, the host reference in double with the check against it, and the
// transform of one block as loom::map_blocks takes it (examples/dct8x8.cpp's lambda).
#pragma once

#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <loom/loom.hpp>

#include "harness.hpp"

namespace bench::dct8x8 {

using coefficients = std::array<double, 64>; // m[v * 8 + k]

inline const coefficients& dct_matrix() {
    static const coefficients c = [] {
        const double pi = 3.14159265358979323846;
        coefficients m{};
        for (int v = 0; v < 8; ++v)
            for (int k = 0; k < 8; ++k)
                m[v * 8 + k] = (v == 0 ? std::sqrt(0.125) : 0.5) * std::cos((2 * k + 1) * v * pi / 16);
        return m;
    }();
    return c;
}

// Pixels in [0, 255): a prefix of the harness's pool.
inline const float* host_image(std::size_t pixels) { return bench::random_floats(81, 0.0f, 255.0f, pixels); }

// The transform in double, row pass then column pass.
inline const std::vector<double>& reference(std::size_t n) {
    static std::vector<double> f;
    static std::size_t made = 0;
    if (made == n) return f;
    const float* x = host_image(n * n);
    const coefficients& c = dct_matrix();
    std::vector<double> t(n * n);
    f.assign(n * n, 0);
    bench::parallel_for(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                double s = 0;
                for (std::size_t k = 0; k < 8; ++k) s += c[(j % 8) * 8 + k] * x[i * n + j / 8 * 8 + k];
                t[i * n + j] = s;
            }
    });
    bench::parallel_for(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                double s = 0;
                for (std::size_t k = 0; k < 8; ++k) s += c[(i % 8) * 8 + k] * t[(i / 8 * 8 + k) * n + j];
                f[i * n + j] = s;
            }
    });
    made = n;
    return f;
}

// Every float order of the 16 products of each output (with or without contraction) stays
// within about 1e-6 of the pixel range with these inputs; a wrong weight or a misread pixel is
// an error of 1e-3 of it or more.
inline std::string check(const std::vector<float>& got, std::size_t n) {
    const std::vector<double>& want = reference(n);
    const double tolerance = 1e-5 * 255.0;
    std::size_t bad = 0, first = got.size();
    for (std::size_t k = 0; k < got.size(); ++k)
        if (!std::isfinite(got[k]) || std::fabs(got[k] - want[k]) > tolerance) {
            if (first == got.size()) first = k;
            ++bad;
        }
    if (bad == 0) return {};
    char text[200];
    std::snprintf(text, sizeof text,
                  "wrong result: pixel (%zu, %zu) is %.9g, the host reference says %.9g (%zu of %zu differ)", first / n,
                  first % n, double(got[first]), want[first], bad, got.size());
    return text;
}

std::string key(const std::string& variant, std::size_t n) { return "dct8x8/" + variant + "/" + std::to_string(n); }

void set_counters(benchmark::State& state, std::size_t n) {
    state.counters["pixels/s"] =
        benchmark::Counter(double(n) * double(n), benchmark::Counter::kIsIterationInvariantRate);
    bench::set_bytes(state, 8.0 * double(n) * double(n)); // the image read once, F written once
}

// examples/dct8x8.cpp's transform of one block: its rows, then its columns, in registers.
struct dct_block {
    coefficients m;
    loom::block<float, 8, 8> operator()(const loom::block<float, 8, 8>& in) const {
        loom::block<float, 8, 8> rows, out;
        for (int r = 0; r < 8; ++r)
            for (int v = 0; v < 8; ++v) {
                loom::traced<float> s = in(r, 0) * float(m[v * 8]);
                for (int k = 1; k < 8; ++k) s += in(r, k) * float(m[v * 8 + k]);
                rows(r, v) = s;
            }
        for (int u = 0; u < 8; ++u)
            for (int v = 0; v < 8; ++v) {
                loom::traced<float> s = float(m[u * 8]) * rows(0, v);
                for (int r = 1; r < 8; ++r) s += float(m[u * 8 + r]) * rows(r, v);
                out(u, v) = s;
            }
        return out;
    }
};

} // namespace bench::dct8x8
