// One FFT as loom::fft hands it to a library: its kind, precision, rank and extents, with the
// element counts of its input and output and the rule for which sizes clFFT takes. Pure data,
// tested without a device; the key of the per-context plan cache (plan_cache.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <tuple>

#include "loom/detail/fft_call.hpp"
#include "loom/dtype.hpp"

namespace loom::fourier {

using transform_kind = detail::fft_kind;

struct transform {
    transform_kind kind = transform_kind::complex_to_complex;
    bool inverse = false;         // the direction; real_to_complex is forward, complex_to_real inverse
    dtype precision = dtype::f32; // f32 or f64: the component type
    unsigned rank = 1;            // 1, 2 or 3
    // The signal's extents, slowest first (row-major, as loom::matrix and loom::array3 lie),
    // `rank` of them; for the real kinds, the real signal's. The rest are 1.
    std::array<std::uint64_t, 3> extents{1, 1, 1};

    std::uint64_t points() const { return extents[0] * extents[1] * extents[2]; }
    // The half spectrum a real signal of these extents has: the last extent n/2 + 1.
    std::uint64_t half_spectrum() const { return points() / extents[rank - 1] * (extents[rank - 1] / 2 + 1); }
    std::uint64_t input_elements() const {
        return kind == transform_kind::complex_to_real ? half_spectrum() : points();
    }
    std::uint64_t output_elements() const {
        return kind == transform_kind::real_to_complex ? half_spectrum() : points();
    }

    // The plan cache's key. The direction is part of it only for complex_to_complex, whose one
    // plan serves both directions (scale 1 both ways), so it is left out.
    auto fields() const { return std::tie(kind, precision, rank, extents); }
    bool operator<(const transform& o) const { return fields() < o.fields(); }
};

// "1-D complex-to-complex inverse transform of 1024 points in float", "2-D real-to-complex
// transform of 8 x 6 points in double": for logs and error messages.
std::string describe(const transform& t);

// The prime factors clFFT's generated kernels handle; a length with another is refused.
inline constexpr std::array<std::uint64_t, 6> clfft_radices{2, 3, 5, 7, 11, 13};

// An empty string when clFFT takes every extent of `t`, else what is wrong with the first it
// does not take: "17 has the prime factor 17", so a message can say which sizes work.
std::string clfft_refuses(const transform& t);

} // namespace loom::fourier
