// Describing a transform, and clFFT's rule for the lengths it takes.
#include "fft/transform.hpp"

namespace loom::fourier {

std::string describe(const transform& t) {
    std::string points;
    for (unsigned d = 0; d < t.rank; ++d) points += (d ? " x " : "") + std::to_string(t.extents[d]);
    const char* kind = t.kind == transform_kind::real_to_complex   ? "real-to-complex"
                       : t.kind == transform_kind::complex_to_real ? "complex-to-real"
                       : t.inverse                                 ? "complex-to-complex inverse"
                                                                   : "complex-to-complex forward";
    return std::to_string(t.rank) + "-D " + kind + " transform of " + points + " points in " +
           (t.precision == dtype::f64 ? "double" : "float");
}

std::string clfft_refuses(const transform& t) {
    for (unsigned d = 0; d < t.rank; ++d) {
        std::uint64_t rest = t.extents[d];
        for (const std::uint64_t p : clfft_radices)
            while (rest % p == 0) rest /= p;
        if (rest == 1) continue;
        // The smallest prime factor left is one clFFT lacks.
        std::uint64_t factor = rest;
        for (std::uint64_t f = 17; f * f <= rest; f += 2)
            if (rest % f == 0) {
                factor = f;
                break;
            }
        return std::to_string(t.extents[d]) + " has the prime factor " + std::to_string(factor);
    }
    return {};
}

} // namespace loom::fourier
