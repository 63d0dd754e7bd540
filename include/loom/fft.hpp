// loom::fft and loom::ifft: fast Fourier transforms of complex and real vectors, matrices
// (2-D) and 3-D arrays, float or double, computed by the field's FFT library: clFFT on OpenCL
// devices, cuFFT on CUDA devices, both loaded at run time (a missing one is a loom::error
// saying what to install). docs/fft.md.
//
//   loom::vector<std::complex<float>> X = loom::fft(x);   // forward, unscaled
//   x = loom::ifft(X);                                     // inverse, scaled by 1/N
//   loom::vector<std::complex<float>> H = loom::fft(r);    // real r of n: the n/2 + 1 half spectrum
//   r = loom::ifft_real(H, n);                             // and back, scaled by 1/N
//   y = 2.0f * loom::fft(x) + z;                           // an operand like a vector, fused like one
//
// Like loom::matmul, a transform runs when called, after the statements recorded before it,
// into device memory of its own, and the call returns an expression over it (a vector, matrix
// or 3-D array operand) that fuses with what follows.
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>

#include "loom/array3.hpp"
#include "loom/detail/fft_call.hpp"
#include "loom/matrix.hpp"
#include "loom/vector.hpp"

namespace loom {
namespace detail {

template <class T> struct fft_component { using type = T; };
template <class T> struct fft_component<std::complex<T>> { using type = T; };

template <class T> constexpr void check_fft_element_type() {
    using C = typename fft_component<T>::type;
    static_assert(std::is_same_v<C, float> || std::is_same_v<C, double>,
                  "loom::fft transforms float, double, std::complex<float> or std::complex<double> elements "
                  "(clFFT and cuFFT have no integer transform); convert first: "
                  "loom::vector<float> xf = loom::cast<float>(x)");
}

// Extents, slowest first, of what a call names; the half spectrum's last extent n/2 + 1.
template <std::size_t R> std::uint64_t points_of(const std::array<std::uint64_t, R>& e) {
    std::uint64_t p = 1;
    for (std::uint64_t x : e) p *= x;
    return p;
}

// Runs one transform of `input` (a device object's buffer) into new memory of `out_elements`
// elements of Out, after checking what a user can get wrong: an object without a context, an
// empty signal, a half spectrum whose length does not match the real length asked for.
template <class Out, std::size_t R>
buffer_ptr run_fft_into_new(const char* call, const buffer_ptr& input, fft_kind kind, bool inverse,
                            const std::array<std::uint64_t, R>& extents, std::uint64_t out_elements) {
    if (!input)
        throw error(std::string(call) +
                    ": the input has no context (default-constructed or moved from); construct it with a context "
                    "and a size first");
    for (std::uint64_t e : extents)
        if (e == 0)
            throw error(std::string(call) +
                        ": the input is empty (an extent is 0); a Fourier transform needs at least one point per "
                        "axis");
    fft_call c;
    c.input = &input;
    c.kind = kind;
    c.inverse = inverse;
    c.rank = unsigned(R);
    for (std::size_t d = 0; d < R; ++d) c.extents[d] = extents[d];
    buffer_ptr out = new_buffer(shared_context_of(*input), out_elements, dtype_v<Out>);
    run_fft(*context_of(*input), c, out);
    return out;
}

// The half spectrum's last extent must be n/2 + 1 for the real length n asked for.
inline void check_half_spectrum(const char* call, std::uint64_t have, std::uint64_t n) {
    if (n == 0)
        throw error(std::string(call) + ": the real length n is 0; a Fourier transform needs at least one point");
    if (have != n / 2 + 1)
        throw length_error(std::string(call) + ": a real signal of length " + std::to_string(n) +
                           " has a half spectrum of n/2 + 1 = " + std::to_string(n / 2 + 1) +
                           " complex values along its last axis, but the spectrum given has " + std::to_string(have) +
                           (have == 0
                                ? std::string("; a Fourier transform needs at least one point")
                                : "; pass the real length the spectrum came from (loom::fft of " +
                                      std::to_string(2 * (have - 1)) + " or " + std::to_string(2 * (have - 1) + 1) +
                                      " real values gives " + std::to_string(have) + ")"));
}

// A complex-to-real library transform may overwrite its input (cuFFT's does): it is handed a
// copy, a statement that runs in the transform's flush.
template <class T> vector<std::complex<T>> copy_of_spectrum(const vector<std::complex<T>>& spectrum) {
    return vector<std::complex<T>>(spectrum);
}

template <class T> auto as_vector_operand(buffer_ptr memory, std::uint64_t n) {
    return expr::make_terminal(expr::vector_ref<T>(expr::counted_buffer(std::move(memory)), n));
}
template <class T> auto as_matrix_operand(buffer_ptr memory, std::uint64_t rows, std::uint64_t cols) {
    return expr::make_terminal(expr::matrix_ref<T>(expr::counted_buffer(std::move(memory)), rows, cols));
}
template <class T> auto as_array3_operand(buffer_ptr memory, const std::array<std::uint64_t, 3>& e) {
    return expr::make_terminal(expr::array3_ref<T>{expr::counted_buffer(std::move(memory)), {e[0], e[1], e[2]}});
}

template <class T> constexpr T inverse_scale(std::uint64_t points) { return T(1) / T(points); }

template <class T> inline constexpr bool always_false_v = false;

// loom::ifft of a real object: a spectrum is complex; say which call inverts a real signal's.
template <class T> void refuse_real_inverse() {
    static_assert(always_false_v<T>,
                  "loom::ifft(X) inverts a complex spectrum; the half spectrum of a real signal (what loom::fft of a "
                  "real vector, matrix or array3 gives) is inverted by loom::ifft_real(H, n), n the real length of "
                  "the last axis");
}

} // namespace detail

// ---- 1-D ------------------------------------------------------------------------------------

// The forward transform X[k] = sum_j x[j] e^(-2 pi i j k / n), unscaled. Of a complex vector of
// n: n complex values. Of a real vector of n: the half spectrum, X[0] to X[n/2] (n/2 + 1 complex
// values; the rest are their conjugates). A vector-like operand over new memory.
template <class T> auto fft(const vector<T>& x) {
    detail::check_fft_element_type<T>();
    using C = typename detail::fft_component<T>::type;
    const std::array<std::uint64_t, 1> n{x.size()};
    const bool real = !is_complex_v<T>;
    const std::uint64_t out = real ? n[0] / 2 + 1 : n[0];
    return detail::as_vector_operand<std::complex<C>>(
        detail::run_fft_into_new<std::complex<C>>(
            "loom::fft(x)", x.buffer(), real ? detail::fft_kind::real_to_complex : detail::fft_kind::complex_to_complex,
            false, n, out),
        out);
}

// The inverse transform x[j] = (1/n) sum_k X[k] e^(2 pi i j k / n) of a complex vector of n,
// scaled by 1/n so that loom::ifft(loom::fft(x)) is x (numpy's and ArrayFire's convention). The
// scaling is a product in the returned expression, fused into what reads it.
template <class T> auto ifft(const vector<std::complex<T>>& spectrum) {
    detail::check_fft_element_type<T>();
    const std::array<std::uint64_t, 1> n{spectrum.size()};
    return detail::as_vector_operand<std::complex<T>>(
               detail::run_fft_into_new<std::complex<T>>("loom::ifft(X)", spectrum.buffer(),
                                                         detail::fft_kind::complex_to_complex, true, n, n[0]),
               n[0]) *
           detail::inverse_scale<T>(n[0]);
}

template <class T> auto ifft(const vector<T>&) { return detail::refuse_real_inverse<T>(); }

// The real signal of length n whose half spectrum (n/2 + 1 values, as loom::fft of a real
// vector gives) is `half`, scaled by 1/n: loom::ifft_real(loom::fft(r), r.size()) is r. n says
// whether the signal was even or odd, which the half spectrum alone does not.
template <class T> auto ifft_real(const vector<std::complex<T>>& half, std::size_t n) {
    detail::check_fft_element_type<T>();
    if (!half.buffer()) throw error("loom::ifft_real(X, n): X has no context (default-constructed or moved from)");
    detail::check_half_spectrum("loom::ifft_real(X, n)", half.size(), n);
    const vector<std::complex<T>> scratch = detail::copy_of_spectrum(half);
    const std::array<std::uint64_t, 1> e{n};
    return detail::as_vector_operand<T>(detail::run_fft_into_new<T>("loom::ifft_real(X, n)", scratch.buffer(),
                                                                    detail::fft_kind::complex_to_real, true, e, n),
                                        n) *
           detail::inverse_scale<T>(n);
}

// ---- 2-D: a rows x cols matrix, transformed along both axes -----------------------------------

// Complex: rows x cols. Real: the half spectrum, rows x (cols/2 + 1). A matrix-like operand.
template <class T> auto fft(const matrix<T>& x) {
    detail::check_fft_element_type<T>();
    using C = typename detail::fft_component<T>::type;
    const std::array<std::uint64_t, 2> e{x.rows(), x.cols()};
    const bool real = !is_complex_v<T>;
    const std::uint64_t cols = real ? e[1] / 2 + 1 : e[1];
    return detail::as_matrix_operand<std::complex<C>>(
        detail::run_fft_into_new<std::complex<C>>(
            "loom::fft(A)", x.buffer(), real ? detail::fft_kind::real_to_complex : detail::fft_kind::complex_to_complex,
            false, e, e[0] * cols),
        e[0], cols);
}

// The inverse of a complex rows x cols matrix, scaled by 1/(rows cols).
template <class T> auto ifft(const matrix<std::complex<T>>& spectrum) {
    detail::check_fft_element_type<T>();
    const std::array<std::uint64_t, 2> e{spectrum.rows(), spectrum.cols()};
    return detail::as_matrix_operand<std::complex<T>>(
               detail::run_fft_into_new<std::complex<T>>("loom::ifft(A)", spectrum.buffer(),
                                                         detail::fft_kind::complex_to_complex, true, e, e[0] * e[1]),
               e[0], e[1]) *
           detail::inverse_scale<T>(e[0] * e[1]);
}

template <class T> auto ifft(const matrix<T>&) { return detail::refuse_real_inverse<T>(); }

// The real rows x cols matrix whose half spectrum (rows x (cols/2 + 1)) is `half`, scaled by
// 1/(rows cols).
template <class T> auto ifft_real(const matrix<std::complex<T>>& half, std::size_t cols) {
    detail::check_fft_element_type<T>();
    if (!half.buffer()) throw error("loom::ifft_real(A, cols): A has no context (default-constructed or moved from)");
    detail::check_half_spectrum("loom::ifft_real(A, cols)", half.cols(), cols);
    const vector<std::complex<T>> scratch = detail::copy_of_spectrum(half.elements());
    const std::array<std::uint64_t, 2> e{half.rows(), cols};
    return detail::as_matrix_operand<T>(detail::run_fft_into_new<T>("loom::ifft_real(A, cols)", scratch.buffer(),
                                                                    detail::fft_kind::complex_to_real, true, e,
                                                                    e[0] * e[1]),
                                        e[0], e[1]) *
           detail::inverse_scale<T>(e[0] * e[1]);
}

// ---- 3-D: a d0 x d1 x d2 array, transformed along all three axes ------------------------------

// Complex: d0 x d1 x d2. Real: the half spectrum, d0 x d1 x (d2/2 + 1). A 3-D operand.
template <class T> auto fft(const array3<T>& x) {
    detail::check_fft_element_type<T>();
    using C = typename detail::fft_component<T>::type;
    const std::array<std::uint64_t, 3> e{x.extent(0), x.extent(1), x.extent(2)};
    const bool real = !is_complex_v<T>;
    const std::array<std::uint64_t, 3> out{e[0], e[1], real ? e[2] / 2 + 1 : e[2]};
    return detail::as_array3_operand<std::complex<C>>(
        detail::run_fft_into_new<std::complex<C>>(
            "loom::fft(u)", x.buffer(), real ? detail::fft_kind::real_to_complex : detail::fft_kind::complex_to_complex,
            false, e, detail::points_of(out)),
        out);
}

// The inverse of a complex d0 x d1 x d2 array, scaled by 1/(d0 d1 d2).
template <class T> auto ifft(const array3<std::complex<T>>& spectrum) {
    detail::check_fft_element_type<T>();
    const std::array<std::uint64_t, 3> e{spectrum.extent(0), spectrum.extent(1), spectrum.extent(2)};
    return detail::as_array3_operand<std::complex<T>>(
               detail::run_fft_into_new<std::complex<T>>("loom::ifft(u)", spectrum.buffer(),
                                                         detail::fft_kind::complex_to_complex, true, e,
                                                         detail::points_of(e)),
               e) *
           detail::inverse_scale<T>(detail::points_of(e));
}

template <class T> auto ifft(const array3<T>&) { return detail::refuse_real_inverse<T>(); }

// The real d0 x d1 x d2 array (d2 given) whose half spectrum (d0 x d1 x (d2/2 + 1)) is `half`,
// scaled by 1/(d0 d1 d2).
template <class T> auto ifft_real(const array3<std::complex<T>>& half, std::size_t d2) {
    detail::check_fft_element_type<T>();
    if (!half.buffer()) throw error("loom::ifft_real(u, d2): u has no context (default-constructed or moved from)");
    detail::check_half_spectrum("loom::ifft_real(u, d2)", half.extent(2), d2);
    const vector<std::complex<T>> scratch = detail::copy_of_spectrum(half.elements());
    const std::array<std::uint64_t, 3> e{half.extent(0), half.extent(1), d2};
    return detail::as_array3_operand<T>(detail::run_fft_into_new<T>("loom::ifft_real(u, d2)", scratch.buffer(),
                                                                    detail::fft_kind::complex_to_real, true, e,
                                                                    detail::points_of(e)),
                                        e) *
           detail::inverse_scale<T>(detail::points_of(e));
}

} // namespace loom
