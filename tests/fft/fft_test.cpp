// loom::fft and loom::ifft against a host DFT: complex and real transforms over 1, 2 and 3 axes
// in float and double, forward then inverse giving the input back, the result inside larger
// (fused) expressions, statements recorded before a transform, plans made once per size, the
// errors, and the messages when clFFT or cuFFT cannot be loaded. The contexts run on OpenCL
// (clFFT), or on CUDA (cuFFT) in the fft_cuda entry (LOOM_BACKEND=cuda), which is skipped
// without a device.
#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <complex>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "error_support.hpp"
#include "fft/clfft_loader.hpp"
#include "fft/cufft_loader.hpp"
#include "fft/plan_cache.hpp"
#include "host_dft.hpp"

using namespace loom_test_errors;
using namespace loom_test_fft;

namespace {

bool on_cuda() {
    const char* b = std::getenv("LOOM_BACKEND");
    return b && std::string(b) == "cuda";
}

// fusion 1: the default; 0: one kernel per statement, the reference.
loom::context& test_context(int fusion = 1) {
    static loom::context fused(loom::context_options{on_cuda() ? "cuda" : "opencl", "", 1});
    static loom::context unfused(loom::context_options{on_cuda() ? "cuda" : "opencl", "", 0});
    return fusion ? fused : unfused;
}

template <class T> constexpr double unit_roundoff() { return std::is_same_v<T, float> ? 0x1p-24 : 0x1p-53; }
template <class T> const char* type_name() { return std::is_same_v<T, float> ? "float" : "double"; }

template <class T> std::vector<std::complex<T>> random_complex(std::size_t n, std::uint32_t seed) {
    std::mt19937 generator(seed * 7919u + std::uint32_t(n));
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::vector<std::complex<T>> v(n);
    for (auto& z : v) z = std::complex<T>(T(value(generator)), T(value(generator)));
    return v;
}
template <class T> std::vector<T> random_real(std::size_t n, std::uint32_t seed) {
    std::mt19937 generator(seed * 104729u + std::uint32_t(n));
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::vector<T> v(n);
    for (auto& x : v) x = T(value(generator));
    return v;
}
template <class V> std::vector<cd> widen(const V& v) {
    std::vector<cd> out;
    for (const auto& x : v) out.push_back(cd(x));
    return out;
}
template <class V> double magnitude(const V& v) {
    double s = 0;
    for (const auto& x : v) s += std::abs(cd(x));
    return s;
}
std::vector<cd> scaled(std::vector<cd> v, double s) {
    for (cd& z : v) z *= s;
    return v;
}

// The 1-D sizes: the trivial ones, one of every odd radix clFFT has but 11 and 13, and a power of two.
const std::vector<std::size_t>& lengths_1d() {
    static const std::vector<std::size_t> n = {1, 2, 3 * 5 * 7, 1024};
    return n;
}

template <class T> void complex_transforms_in_1d() {
    loom::context& ctx = test_context();
    std::uint32_t seed = 1;
    for (std::size_t n : lengths_1d()) {
        CAPTURE(n);
        const auto hx = random_complex<T>(n, seed++);
        const loom::vector<std::complex<T>> x(ctx, hx);
        const std::vector<cd> want = host_dft(widen(hx), {n}, -1);

        const loom::vector<std::complex<T>> X = loom::fft(x);
        CHECK(X.size() == n);
        const auto hX = X.to_host();
        check_close(hX, want, magnitude(hx), unit_roundoff<T>(), n, "fft");

        // The inverse of the host spectrum, scaled by 1/n, is the input.
        const loom::vector<std::complex<T>> spectrum(ctx, hX);
        const loom::vector<std::complex<T>> back = loom::ifft(spectrum);
        check_close(back.to_host(), scaled(host_dft(widen(hX), {n}, +1), 1.0 / double(n)), magnitude(hX) / double(n),
                    unit_roundoff<T>(), n, "ifft");
        check_close(back.to_host(), widen(hx), magnitude(hx), unit_roundoff<T>(), n, "ifft(fft(x)) == x");
        CHECK(x.to_host() == hx); // the input is only read
    }
}

template <class T> void real_transforms_in_1d() {
    loom::context& ctx = test_context();
    std::uint32_t seed = 50;
    for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(15), std::size_t(3 * 5 * 7), std::size_t(1024)}) {
        CAPTURE(n);
        const auto hr = random_real<T>(n, seed++);
        const loom::vector<T> r(ctx, hr);
        const loom::vector<std::complex<T>> H = loom::fft(r);
        CHECK(H.size() == n / 2 + 1);
        const auto hH = H.to_host();
        check_close(hH, half_of(host_dft(widen(hr), {n}, -1), {n}), magnitude(hr), unit_roundoff<T>(), n,
                    "fft of a real vector");

        const loom::vector<T> back = loom::ifft_real(H, n);
        CHECK(back.size() == n);
        check_close(back.to_host(), widen(hr), magnitude(hr), unit_roundoff<T>(), n, "ifft_real(fft(r), n) == r");
        CHECK(H.to_host() == hH); // the spectrum is only read
        CHECK(r.to_host() == hr);
    }
}

template <class T> void transforms_in_2d() {
    loom::context& ctx = test_context();
    const std::size_t rows = 12, cols = 10;
    const auto hx = random_complex<T>(rows * cols, 7);
    const loom::matrix<std::complex<T>> A(ctx, rows, cols, hx);
    const loom::matrix<std::complex<T>> F = loom::fft(A);
    CHECK(F.rows() == rows);
    CHECK(F.cols() == cols);
    const std::vector<cd> want = host_dft(widen(hx), {rows, cols}, -1);
    check_close(F.to_host(), want, magnitude(hx), unit_roundoff<T>(), rows * cols, "2-D fft");
    const loom::matrix<std::complex<T>> back = loom::ifft(F);
    check_close(back.to_host(), widen(hx), magnitude(hx), unit_roundoff<T>(), rows * cols, "2-D ifft(fft(A)) == A");

    const auto hr = random_real<T>(rows * cols, 8);
    const loom::matrix<T> R(ctx, rows, cols, hr);
    const loom::matrix<std::complex<T>> H = loom::fft(R);
    CHECK(H.rows() == rows);
    CHECK(H.cols() == cols / 2 + 1);
    check_close(H.to_host(), half_of(host_dft(widen(hr), {rows, cols}, -1), {rows, cols}), magnitude(hr),
                unit_roundoff<T>(), rows * cols, "2-D fft of a real matrix");
    const loom::matrix<T> rback = loom::ifft_real(H, cols);
    check_close(rback.to_host(), widen(hr), magnitude(hr), unit_roundoff<T>(), rows * cols,
                "2-D ifft_real(fft(R), cols) == R");
}

template <class T> void transforms_in_3d() {
    loom::context& ctx = test_context();
    const std::size_t d0 = 4, d1 = 6, d2 = 5, points = d0 * d1 * d2;
    const auto hx = random_complex<T>(points, 9);
    const loom::array3<std::complex<T>> u(ctx, d0, d1, d2, hx);
    const loom::array3<std::complex<T>> F = loom::fft(u);
    CHECK(F.extents() == typename loom::array3<std::complex<T>>::shape_type{d0, d1, d2});
    check_close(F.to_host(), host_dft(widen(hx), {d0, d1, d2}, -1), magnitude(hx), unit_roundoff<T>(), points,
                "3-D fft");
    const loom::array3<std::complex<T>> back = loom::ifft(F);
    check_close(back.to_host(), widen(hx), magnitude(hx), unit_roundoff<T>(), points, "3-D ifft(fft(u)) == u");

    const auto hr = random_real<T>(points, 10);
    const loom::array3<T> r(ctx, d0, d1, d2, hr);
    const loom::array3<std::complex<T>> H = loom::fft(r);
    CHECK(H.extents() == typename loom::array3<std::complex<T>>::shape_type{d0, d1, d2 / 2 + 1});
    check_close(H.to_host(), half_of(host_dft(widen(hr), {d0, d1, d2}, -1), {d0, d1, d2}), magnitude(hr),
                unit_roundoff<T>(), points, "3-D fft of a real array");
    const loom::array3<T> rback = loom::ifft_real(H, d2);
    check_close(rback.to_host(), widen(hr), magnitude(hr), unit_roundoff<T>(), points,
                "3-D ifft_real(fft(r), d2) == r");
}

} // namespace

TEST_CASE("fft_and_ifft_match_a_host_dft_in_1d_in_float") { complex_transforms_in_1d<float>(); }
TEST_CASE("fft_and_ifft_match_a_host_dft_in_1d_in_double") { complex_transforms_in_1d<double>(); }
TEST_CASE("fft_of_a_real_vector_gives_the_half_spectrum_and_ifft_real_the_signal_in_float") {
    real_transforms_in_1d<float>();
}
TEST_CASE("fft_of_a_real_vector_gives_the_half_spectrum_and_ifft_real_the_signal_in_double") {
    real_transforms_in_1d<double>();
}
TEST_CASE("fft_of_a_matrix_transforms_both_axes_in_float") { transforms_in_2d<float>(); }
TEST_CASE("fft_of_a_matrix_transforms_both_axes_in_double") { transforms_in_2d<double>(); }
TEST_CASE("fft_of_an_array3_transforms_all_three_axes_in_float") { transforms_in_3d<float>(); }
TEST_CASE("fft_of_an_array3_transforms_all_three_axes_in_double") { transforms_in_3d<double>(); }

TEST_CASE("fft_fuses_into_larger_expressions_like_a_vector") {
    using cf = std::complex<float>;
    const std::size_t n = 3 * 5 * 7;
    const auto hx = random_complex<float>(n, 31), hz = random_complex<float>(n, 32);
    const std::vector<cd> spectrum = host_dft(widen(hx), {n}, -1);
    std::vector<cd> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = 2.0 * spectrum[i] + cd(hz[i]);
    std::vector<cf> by_fusion[2];
    for (int fusion : {1, 0}) {
        CAPTURE(fusion);
        loom::context& ctx = test_context(fusion);
        const loom::vector<cf> x(ctx, hx), z(ctx, hz);
        loom::vector<cf> y(ctx, n), w(ctx, n);
        y = 2.0f * loom::fft(x) + z;
        w = y - z;
        const std::vector<cf> hy = y.to_host();
        check_close(hy, want, 2.0 * magnitude(hx) + magnitude(hz), unit_roundoff<float>(), n, "2 fft(x) + z");
        check_close(w.to_host(), scaled(spectrum, 2.0), 2.0 * magnitude(hx) + magnitude(hz), unit_roundoff<float>(), n,
                    "y - z");
        // Two vector statements after the transform: one kernel with fusion, two without.
        const loom::flush_report r = loom::last_flush(ctx);
        CHECK(r.statements == 2);
        CHECK(r.kernels.size() == (fusion ? 1u : 2u));
        by_fusion[fusion] = hy;

        // ifft's 1/n is a product in its expression, fused the same way.
        loom::vector<cf> v(ctx, n);
        v = loom::ifft(loom::vector<cf>(loom::fft(x))) + z;
        std::vector<cd> xz(n);
        for (std::size_t i = 0; i < n; ++i) xz[i] = cd(hx[i]) + cd(hz[i]);
        check_close(v.to_host(), xz, magnitude(hx) + magnitude(hz), unit_roundoff<float>(), n, "ifft(fft(x)) + z");
    }
    CHECK(by_fusion[0] == by_fusion[1]); // the same library call, fused or not: equal bit for bit
}

TEST_CASE("fft_reads_the_statements_recorded_before_it_and_owns_its_result") {
    loom::context& ctx = test_context();
    const std::size_t n = 64;
    auto hx = random_complex<double>(n, 41);
    loom::vector<std::complex<double>> x(ctx, hx);
    x = x * 2.0 + std::complex<double>(0, 1); // pending when fft is called
    for (auto& z : hx) z = z * 2.0 + std::complex<double>(0, 1);
    const auto spectrum = loom::fft(x);
    x = std::complex<double>(0); // after the transform: it does not see this
    const loom::vector<std::complex<double>> X = spectrum;
    check_close(X.to_host(), host_dft(widen(hx), {n}, -1), magnitude(hx), unit_roundoff<double>(), n, "fft");
}

TEST_CASE("fft_plans_a_transform_once_per_context_and_size") {
    loom::context ctx(loom::context_options{on_cuda() ? "cuda" : "opencl", "", 1});
    loom::detail::context_impl& impl = *ctx.impl();
    CHECK(loom::fourier::plans_held(impl) == 0);
    const loom::vector<std::complex<float>> x(ctx, 96, std::complex<float>(1, 0));
    loom::vector<std::complex<float>> X = loom::fft(x);
    CHECK(loom::fourier::plans_held(impl) == 1);
    X = loom::fft(x);
    X = loom::ifft(X); // one complex plan serves both directions
    CHECK(loom::fourier::plans_held(impl) == 1);
    const loom::vector<float> r(ctx, 96, 1.0f);
    const loom::vector<std::complex<float>> H = loom::fft(r); // another kind: another plan
    CHECK(loom::fourier::plans_held(impl) == 2);
    const loom::vector<std::complex<double>> xd(ctx, 96, std::complex<double>(1, 0));
    const loom::vector<std::complex<double>> Xd = loom::fft(xd); // another precision
    CHECK(loom::fourier::plans_held(impl) == 3);
    // A constant signal's spectrum is n at 0 and 0 elsewhere.
    CHECK(std::abs(cd(X.to_host()[0]) - cd(1, 0)) < 1e-5); // ifft(fft(1)) is 1
    CHECK(std::abs(cd(H.to_host()[0]) - cd(96, 0)) < 1e-3);
    CHECK(std::abs(Xd.to_host()[0] - cd(96, 0)) < 1e-12);
}

TEST_CASE("fft_errors_name_what_is_wrong_and_change_nothing") {
    loom::context& ctx = test_context();
    using cf = std::complex<float>;
    std::string m;

    const loom::vector<cf> empty(ctx, 0);
    m = error_of([&] { loom::fft(empty); });
    CHECK(has(m, "loom::fft(x): the input is empty"));
    const loom::vector<cf> none;
    m = error_of([&] { loom::fft(none); });
    CHECK(has(m, "loom::fft(x): the input has no context"));
    const loom::matrix<float> no_rows(ctx, 0, 4);
    m = error_of([&] { loom::fft(no_rows); });
    CHECK(has(m, "loom::fft(A): the input is empty"));

    // A half spectrum of the wrong length for n.
    const loom::vector<cf> half(ctx, 5);
    CHECK_THROWS_AS(loom::ifft_real(half, 16), loom::length_error);
    m = error_of([&] { loom::ifft_real(half, 16); });
    CHECK(has(m, "a real signal of length 16 has a half spectrum of n/2 + 1 = 9"));
    CHECK(has(m, "the spectrum given has 5"));
    CHECK(has(m, "loom::fft of 8 or 9 real values gives 5"));
    m = error_of([&] { loom::ifft_real(half, 0); });
    CHECK(has(m, "the real length n is 0"));

    // The result is a vector of n: a target of another length is a length_error at the assignment.
    const loom::vector<cf> x(ctx, 8, cf(1, 0));
    loom::vector<cf> y7(ctx, 7, cf(3, 0));
    CHECK_THROWS_AS(y7 = loom::fft(x), loom::length_error);
    CHECK(y7.to_host() == std::vector<cf>(7, cf(3, 0)));

    if (!on_cuda()) {
        // A length with a prime factor clFFT lacks: nothing runs, the pending statement stays.
        loom::vector<cf> z(ctx, 17 * 4, cf(1, 0));
        z = z + cf(1, 0);
        m = error_of([&] { loom::fft(z); });
        CHECK(has(m, "68 has the prime factor 17"));
        CHECK(has(m, "2, 3, 5, 7, 11 and 13"));
        CHECK(has(m, "Nothing was changed"));
        CHECK(z.to_host() == std::vector<cf>(68, cf(2, 0)));
        const loom::matrix<cf> A(ctx, 6, 19);
        m = error_of([&] { loom::fft(A); });
        CHECK(has(m, "2-D complex-to-complex forward transform of 6 x 19 points in float"));
        CHECK(has(m, "19 has the prime factor 19"));
    }
}

TEST_CASE("fft_inside_a_loop_while_body_is_refused_and_changes_nothing") {
    loom::context& ctx = test_context();
    using cf = std::complex<float>;
    const loom::vector<cf> x(ctx, 4, cf(1, 0));
    loom::vector<cf> y(ctx, 4, cf(5, 0));
    loom::scalar<int> go(ctx, 1);
    const std::string m = error_of([&] {
        loom::loop_while(ctx, go > 0, [&] {
            y = loom::fft(x);
            go = go - 1;
        });
    });
    CHECK(has(m, "loom::fft cannot run inside a loom::loop_while body"));
    CHECK(y.to_host() == std::vector<cf>(4, cf(5, 0)));
    y = loom::fft(x); // the context is usable afterwards
    const auto hy = y.to_host();
    CHECK(std::abs(cd(hy[0]) - cd(4, 0)) < 1e-6);
    CHECK(std::abs(cd(hy[1])) < 1e-6);
}

TEST_CASE("clfft_loader_names_the_missing_library_its_package_and_that_nothing_changed") {
    const std::string m = error_of([] { loom::fourier::load_clfft("libclFFT-missing.so.2"); });
    CHECK(has(m, "clFFT"));
    CHECK(has(m, "libclFFT-missing.so.2"));
    CHECK(has(m, "apt-get install libclfft2"));
    CHECK(has(m, "LOOM_CLFFT_LIBRARY"));
    CHECK(has(m, "Nothing was changed"));
    // A library without clFFT's functions: the one the test links, the OpenCL loader.
    const std::string wrong = error_of([] { loom::fourier::load_clfft("libOpenCL.so.1"); });
    CHECK(has(wrong, "it has no function clfftGetVersion"));
    CHECK(loom::fourier::clfft_status_text(4097) == "4097 (CLFFT_NOTIMPLEMENTED)");
    CHECK(loom::fourier::clfft_status_text(4103) == "4103 (CLFFT_DEVICE_NO_DOUBLE)");
    CHECK(loom::fourier::clfft_status_text(-5) == "-5 (CL_OUT_OF_RESOURCES)");
    CHECK(loom::fourier::clfft_status_text(12345) == "12345");
}

TEST_CASE("cufft_loader_names_the_missing_libraries_and_resolves_every_function_where_installed") {
    const std::string m = error_of([] {
        loom::fourier::load_cufft({"libcufft-missing.so.12", "libcufft-gone.so.11"});
    });
    CHECK(has(m, "cuFFT"));
    CHECK(has(m, "libcufft-missing.so.12"));
    CHECK(has(m, "libcufft-gone.so.11"));
    CHECK(has(m, "libcufft-13-0"));
    CHECK(has(m, "LOOM_CUFFT_LIBRARY"));
    CHECK(has(m, "Nothing was changed"));
    CHECK(loom::fourier::cufft_status_text(8) == "CUFFT_INVALID_SIZE (8)");
    CHECK(loom::fourier::cufft_status_text(99) == "cufftResult 99");
    // Loading cuFFT needs no GPU: where the toolkit's library is on the loader's path, every
    // symbol Loom looks up must be there.
    try {
        const auto api = loom::fourier::load_cufft(loom::fourier::cufft_libraries());
        MESSAGE("cuFFT loaded from ", api->library);
        CHECK(static_cast<bool>(api->plan_many));
        CHECK(static_cast<bool>(api->destroy));
        CHECK(static_cast<bool>(api->set_stream));
        CHECK(static_cast<bool>(api->exec_c2c));
        CHECK(static_cast<bool>(api->exec_z2z));
        CHECK(static_cast<bool>(api->exec_r2c));
        CHECK(static_cast<bool>(api->exec_d2z));
        CHECK(static_cast<bool>(api->exec_c2r));
        CHECK(static_cast<bool>(api->exec_z2d));
    } catch (const loom::error& e) {
        MESSAGE("SKIPPED the symbol check: no cuFFT on the loader's path here (", e.what(), ")");
    }
}

// Run by the fft_without_clfft entry (LOOM_CLFFT_LIBRARY names a missing file, --no-skip).
TEST_CASE("fft_without_clfft_says_what_to_install_and_changes_nothing" * doctest::skip()) {
    const char* library = std::getenv("LOOM_CLFFT_LIBRARY");
    REQUIRE(library != nullptr);
    using cf = std::complex<float>;
    loom::context& ctx = test_context();
    const loom::vector<cf> x(ctx, 8, cf(1, 0));
    loom::vector<cf> y(ctx, 8, cf(5, 0));
    y = y + cf(1, 0); // pending when fft fails: it still runs, once, afterwards
    std::string m;
    CHECK_THROWS_AS(y = loom::fft(x), loom::error);
    m = error_of([&] { y = loom::fft(x); });
    CHECK(has(m, std::string("could not be loaded from ") + library));
    CHECK(has(m, "apt-get install libclfft2"));
    CHECK(has(m, "Nothing was changed"));
    CHECK(y.to_host() == std::vector<cf>(8, cf(6, 0)));
    CHECK(x.to_host() == std::vector<cf>(8, cf(1, 0)));
}

// The Loom spellings of docs/coming-from.md's "Transforms" row (the other rows run in
// tests/expr/coming_from_spellings_test.cpp; this one needs clFFT, which the fft suite has).
TEST_CASE("coming-from.md: transforms") {
    using cf = std::complex<float>;
    loom::context& ctx = test_context();
    const std::vector<cf> hx = {cf(1, 0), cf(2, -1), cf(0, 3), cf(-1, 0)};
    loom::vector<cf> x(ctx, hx), X(ctx, 4);
    X = loom::fft(x);
    x = loom::ifft(X);
    check_close(x.to_host(), widen(hx), magnitude(hx), unit_roundoff<float>(), 4, "x = ifft(fft(x))");
    const loom::vector<float> r(ctx, std::vector<float>{1, 2, 3, 4, 5});
    const loom::vector<cf> H = loom::fft(r);
    CHECK(H.size() == 3);
    const loom::vector<float> r2 = loom::ifft_real(H, 5);
    check_close(r2.to_host(), widen(r.to_host()), 15.0, unit_roundoff<float>(), 5, "ifft_real(fft(r), 5)");
    const loom::matrix<cf> A(ctx, 2, 3, cf(1, 0));
    const loom::matrix<cf> FA = loom::fft(A);
    CHECK(std::abs(cd(FA.to_host()[0]) - cd(6, 0)) < 1e-5);
    const loom::array3<cf> u(ctx, 2, 2, 2, cf(1, 0));
    const loom::array3<cf> Fu = loom::fft(u);
    CHECK(std::abs(cd(Fu.to_host()[0]) - cd(8, 0)) < 1e-5);
}
