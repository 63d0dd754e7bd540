// The host reference of loom::fft: the O(N^2) discrete Fourier transform over 1 to 3 axes,
// summed in double, and the error bound a transform's result is held to.
#pragma once

#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>

namespace loom_test_fft {

using cd = std::complex<double>;

// X[k] = sum_j x[j] e^(sign 2 pi i sum_d j_d k_d / n_d), row-major, extents slowest first,
// unscaled. The angle's fraction is reduced modulo n_d in integers, so it is exact.
inline std::vector<cd> host_dft(const std::vector<cd>& x, const std::vector<std::size_t>& extents, int sign) {
    const double pi = 3.14159265358979323846;
    std::size_t points = 1;
    for (std::size_t e : extents) points *= e;
    auto split = [&](std::size_t i) {
        std::array<std::size_t, 3> idx{0, 0, 0};
        for (std::size_t d = extents.size(); d-- > 0;) {
            idx[d] = i % extents[d];
            i /= extents[d];
        }
        return idx;
    };
    std::vector<cd> out(points);
    for (std::size_t k = 0; k < points; ++k) {
        const auto kk = split(k);
        cd sum = 0;
        for (std::size_t j = 0; j < points; ++j) {
            const auto jj = split(j);
            double turns = 0;
            for (std::size_t d = 0; d < extents.size(); ++d)
                turns += double((jj[d] * kk[d]) % extents[d]) / double(extents[d]);
            sum += x[j] * std::polar(1.0, sign * 2 * pi * turns);
        }
        out[k] = sum;
    }
    return out;
}

// The first n/2 + 1 values along the last axis of a full spectrum.
inline std::vector<cd> half_of(const std::vector<cd>& full, const std::vector<std::size_t>& extents) {
    const std::size_t last = extents.back(), half = last / 2 + 1;
    std::vector<cd> out;
    for (std::size_t row = 0; row < full.size() / last; ++row)
        for (std::size_t k = 0; k < half; ++k) out.push_back(full[row * last + k]);
    return out;
}

// |got - want| <= bound for every element, the bound a small multiple of the unit roundoff
// times log2(N) + 2 times sum |x| (what a transform's rounding can reach), plus a few roundings
// of |want| itself. A wrong twiddle or a missing point is off by O(|x|), far above it.
template <class G> void check_close(const std::vector<G>& got, const std::vector<cd>& want, double input_magnitude,
                                    double unit, std::size_t points, const std::string& what) {
    REQUIRE(got.size() == want.size());
    const double bound = 8.0 * unit * (std::log2(double(points)) + 2.0) * input_magnitude;
    std::size_t bad = 0;
    std::string first;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const cd g = cd(got[i]);
        const double err = std::abs(g - want[i]);
        if (!(err <= bound + 4.0 * unit * std::abs(want[i])) && bad++ < 4)
            first += "\n  [" + std::to_string(i) + "] got (" + std::to_string(g.real()) + ", " +
                     std::to_string(g.imag()) + "), want (" + std::to_string(want[i].real()) + ", " +
                     std::to_string(want[i].imag()) + ")";
    }
    INFO(what, ": ", bad, " of ", got.size(), " elements differ beyond ", bound, first);
    CHECK(bad == 0);
}

} // namespace loom_test_fft
