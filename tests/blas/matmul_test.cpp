// loom::matmul against a host triple loop: float and double at odd shapes, empty extents, the
// product inside larger (fused) expressions, statements recorded before it, the errors, and the
// messages when CLBlast or cuBLAS cannot be loaded. The contexts run on OpenCL (CLBlast), or on
// CUDA (cuBLAS) in the blas_cuda entry (LOOM_BACKEND=cuda), which is skipped without a device.
#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "blas/clblast_loader.hpp"
#include "blas/cublas_loader.hpp"
#include "blas/gemm.hpp"
#include "error_support.hpp"
#include "runtime/context_impl.hpp"

using namespace loom_test_errors;

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

struct gemm_shape {
    std::size_t m, k, n;
};
std::string describe(const gemm_shape& s) {
    return std::to_string(s.m) + " x " + std::to_string(s.k) + " times " + std::to_string(s.k) + " x " +
           std::to_string(s.n);
}

template <class T> std::vector<T> random_matrix(std::size_t rows, std::size_t cols, std::uint32_t seed) {
    std::mt19937 generator(seed * 7919u + std::uint32_t(rows * 131 + cols));
    std::uniform_real_distribution<double> value(-1.0, 1.0);
    std::vector<T> m(rows * cols);
    for (T& x : m) x = T(value(generator));
    return m;
}

// The product of row-major a (m x k) and b (k x n) in double, and |a| |b| for the error bound.
struct host_product {
    std::vector<double> value, magnitude;
};
template <class T>
host_product multiply_on_host(const std::vector<T>& a, const std::vector<T>& b, const gemm_shape& s) {
    host_product p{std::vector<double>(s.m * s.n, 0.0), std::vector<double>(s.m * s.n, 0.0)};
    for (std::size_t i = 0; i < s.m; ++i)
        for (std::size_t j = 0; j < s.n; ++j)
            for (std::size_t l = 0; l < s.k; ++l) {
                const double x = double(a[i * s.k + l]) * double(b[l * s.n + j]);
                p.value[i * s.n + j] += x;
                p.magnitude[i * s.n + j] += std::fabs(x);
            }
    return p;
}

// |got - scale * want - add| within a GEMM's bound: k + 4 roundings of |a| |b| (any order of
// the k additions, blocked or not), doubled, and a few roundings of the result itself.
template <class T> void check_product(const std::vector<T>& got, const host_product& want, const gemm_shape& s,
                                      double scale = 1.0, const std::vector<T>* add = nullptr) {
    const double u = std::is_same_v<T, float> ? 0x1p-24 : 0x1p-53;
    REQUIRE(got.size() == want.value.size());
    std::size_t bad = 0;
    std::string first;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double expected = scale * want.value[i] + (add ? double((*add)[i]) : 0.0);
        const double bound = 2.0 * double(s.k + 4) * u * std::fabs(scale) * want.magnitude[i] +
                             4.0 * u * (std::fabs(expected) + (add ? std::fabs(double((*add)[i])) : 0.0));
        if (!(std::fabs(double(got[i]) - expected) <= bound) && bad++ < 4)
            first += "\n  [" + std::to_string(i / s.n) + ", " + std::to_string(i % s.n) + "] got " +
                     std::to_string(double(got[i])) + ", want " + std::to_string(expected);
    }
    INFO(bad, " of ", got.size(), " elements differ beyond the bound", first);
    CHECK(bad == 0);
}

const std::vector<gemm_shape>& odd_shapes() {
    static const std::vector<gemm_shape> s = {{1, 1, 1}, {37, 19, 53}, {128, 64, 96}, {1, 67, 1}, {67, 1, 67}};
    return s;
}

template <class T> void products_at_odd_shapes() {
    loom::context& ctx = test_context();
    std::uint32_t seed = 1;
    for (const gemm_shape& s : odd_shapes()) {
        CAPTURE(describe(s));
        const std::vector<T> ha = random_matrix<T>(s.m, s.k, seed), hb = random_matrix<T>(s.k, s.n, seed + 1);
        seed += 2;
        const loom::matrix<T> A(ctx, s.m, s.k, ha), B(ctx, s.k, s.n, hb);
        const host_product want = multiply_on_host(ha, hb, s);

        const loom::matrix<T> C = loom::matmul(A, B); // a new matrix of the product's shape
        CHECK(C.rows() == s.m);
        CHECK(C.cols() == s.n);
        check_product(C.to_host(), want, s);

        loom::matrix<T> D(ctx, s.m, s.n, T(7)); // an existing one, assigned
        D = loom::matmul(A, B);
        check_product(D.to_host(), want, s);
    }
}

} // namespace

TEST_CASE("matmul_matches_a_host_triple_loop_in_float_at_odd_shapes") { products_at_odd_shapes<float>(); }

TEST_CASE("matmul_matches_a_host_triple_loop_in_double_at_odd_shapes") { products_at_odd_shapes<double>(); }

TEST_CASE("matmul_over_k_0_gives_zeros_and_an_empty_product_is_empty") {
    loom::context& ctx = test_context();
    const loom::matrix<float> A0(ctx, 3, 0), B0(ctx, 0, 4);
    loom::matrix<float> C(ctx, 3, 4, 7.0f);
    C = loom::matmul(A0, B0);
    CHECK(C.to_host() == std::vector<float>(12, 0.0f));

    // A product held across a flush keeps its zeros: its memory counts as a vector's.
    const auto held = loom::matmul(A0, B0);
    const loom::matrix<float> other(ctx, 5, 5, 1.0f);
    CHECK(loom::sum(other.elements()) == 25.0f); // a flush, before anything reads `held`
    const loom::matrix<float> from_held = held;
    CHECK(from_held.to_host() == std::vector<float>(12, 0.0f));

    const loom::matrix<double> A(ctx, 0, 5), B(ctx, 5, 3, 1.0);
    const loom::matrix<double> rows0 = loom::matmul(A, B);
    CHECK(rows0.rows() == 0);
    CHECK(rows0.cols() == 3);
    CHECK(rows0.to_host().empty());
    const loom::matrix<double> E(ctx, 4, 5, 1.0), F(ctx, 5, 0);
    const loom::matrix<double> cols0 = loom::matmul(E, F);
    CHECK(cols0.rows() == 4);
    CHECK(cols0.cols() == 0);
    CHECK(cols0.to_host().empty());
}

TEST_CASE("matmul_fuses_into_larger_expressions_like_a_matrix") {
    const gemm_shape s{37, 19, 53};
    const std::vector<float> ha = random_matrix<float>(s.m, s.k, 11), hb = random_matrix<float>(s.k, s.n, 12),
                             hd = random_matrix<float>(s.m, s.n, 13);
    const host_product want = multiply_on_host(ha, hb, s);
    std::vector<float> by_fusion[2];
    for (int fusion : {1, 0}) {
        CAPTURE(fusion);
        loom::context& ctx = test_context(fusion);
        const loom::matrix<float> A(ctx, s.m, s.k, ha), B(ctx, s.k, s.n, hb), D(ctx, s.m, s.n, hd);
        loom::matrix<float> C(ctx, s.m, s.n), E(ctx, s.m, s.n);
        C = 2.0f * loom::matmul(A, B) + D;
        E = C - D;
        const std::vector<float> c = C.to_host();
        check_product(c, want, s, 2.0, &hd);
        check_product(E.to_host(), want, s, 2.0);
        // Two matrix statements after the product: one kernel with fusion, two without.
        const loom::flush_report r = loom::last_flush(ctx);
        CHECK(r.statements == 2);
        CHECK(r.kernels.size() == (fusion ? 1u : 2u));
        by_fusion[fusion] = c;
    }
    CHECK(by_fusion[0] == by_fusion[1]); // the same library call, fused or not: equal bit for bit
}

TEST_CASE("matmul_reads_the_statements_recorded_before_it_and_owns_its_result") {
    loom::context& ctx = test_context();
    const gemm_shape s{37, 19, 53};
    std::vector<double> ha = random_matrix<double>(s.m, s.k, 21), hb = random_matrix<double>(s.k, s.n, 22);
    loom::matrix<double> A(ctx, s.m, s.k, ha), B(ctx, s.k, s.n, hb);
    A = A * 2.0 + 1.0; // pending when matmul is called
    B.row(3) = loom::vector<double>(ctx, s.n, -0.5);
    for (double& x : ha) x = x * 2.0 + 1.0;
    for (std::size_t j = 0; j < s.n; ++j) hb[3 * s.n + j] = -0.5;
    const host_product want = multiply_on_host(ha, hb, s);

    const auto product = loom::matmul(A, B);
    A = 0.0; // after the product: it does not see this
    B = 0.0;
    const loom::matrix<double> C = product;
    check_product(C.to_host(), want, s);
    CHECK(loom::sum(A.elements()) == 0.0);
}

TEST_CASE("matmul_errors_name_the_shapes_and_operands") {
    loom::context& ctx = test_context();
    const loom::matrix<float> A(ctx, 3, 4), B(ctx, 5, 2), B42(ctx, 4, 2);
    std::string m;
    CHECK_THROWS_AS(loom::matmul(A, B), loom::length_error);
    m = error_of([&] { loom::matmul(A, B); });
    CHECK(has(m, "loom::matmul(A, B): shape mismatch"));
    CHECK(has(m, "A is a 3 x 4 matrix"));
    CHECK(has(m, "B a 5 x 2 matrix"));
    CHECK(has(m, "A's columns (4) must equal B's rows (5)"));

    // The product is a 3 x 2 operand: a target of another shape is a length_error too.
    loom::matrix<float> C33(ctx, 3, 3);
    CHECK_THROWS_AS(C33 = loom::matmul(A, B42), loom::length_error);
    m = error_of([&] { C33 = loom::matmul(A, B42); });
    CHECK(has(m, "3 x 3"));
    CHECK(has(m, "3 x 2"));

    const loom::matrix<float> none;
    m = error_of([&] { loom::matmul(none, B42); });
    CHECK(has(m, "A is an empty loom::matrix"));
    m = error_of([&] { loom::matmul(A, none); });
    CHECK(has(m, "B is an empty loom::matrix"));

    loom::context elsewhere(loom::context_options{on_cuda() ? "cuda" : "opencl", "", 1});
    const loom::matrix<float> far(elsewhere, 4, 2);
    m = error_of([&] { loom::matmul(A, far); });
    CHECK(has(m, "two contexts"));
}

TEST_CASE("matmul_inside_a_loop_while_body_is_refused_and_changes_nothing") {
    loom::context& ctx = test_context();
    const loom::matrix<float> A(ctx, 2, 3, 1.0f), B(ctx, 3, 2, 1.0f);
    loom::matrix<float> C(ctx, 2, 2, 4.0f);
    loom::scalar<int> go(ctx, 1);
    const std::string m = error_of([&] {
        loom::loop_while(ctx, go > 0, [&] {
            C = loom::matmul(A, B);
            go = go - 1;
        });
    });
    CHECK(has(m, "loom::matmul cannot run inside a loom::loop_while body"));
    CHECK(C.to_host() == std::vector<float>(4, 4.0f));
    C = loom::matmul(A, B); // the context is usable afterwards
    CHECK(C.to_host() == std::vector<float>(4, 3.0f));
}

TEST_CASE("clblast_loader_names_the_missing_library_its_package_and_that_nothing_changed") {
    const std::string m = error_of([] { loom::blas::load_clblast("libclblast-missing.so.1"); });
    CHECK(has(m, "CLBlast"));
    CHECK(has(m, "libclblast-missing.so.1"));
    CHECK(has(m, "apt-get install libclblast1"));
    CHECK(has(m, "LOOM_CLBLAST_LIBRARY"));
    CHECK(has(m, "Nothing was changed"));
    // A library without CLBlast's functions: the one the test links, the OpenCL loader.
    const std::string wrong = error_of([] { loom::blas::load_clblast("libOpenCL.so.1"); });
    CHECK(has(wrong, "it has no function CLBlastSgemm"));
    CHECK(loom::blas::clblast_status_text(-1024) == "-1024 (CLBlastNotImplemented)");
    CHECK(loom::blas::clblast_status_text(-2044) == "-2044 (CLBlastNoDoublePrecision)");
    CHECK(loom::blas::clblast_status_text(12345) == "12345");
}

TEST_CASE("cublas_loader_names_the_missing_libraries_and_resolves_every_function_where_installed") {
    const std::string m = error_of([] {
        loom::blas::load_cublas({"libcublas-missing.so.13", "libcublas-gone.so.12"});
    });
    CHECK(has(m, "cuBLAS"));
    CHECK(has(m, "libcublas-missing.so.13"));
    CHECK(has(m, "libcublas-gone.so.12"));
    CHECK(has(m, "libcublas-13-0"));
    CHECK(has(m, "LOOM_CUBLAS_LIBRARY"));
    CHECK(has(m, "Nothing was changed"));
    // Loading cuBLAS needs no GPU: where the toolkit's library is on the loader's path, every
    // symbol Loom looks up must be there.
    try {
        const auto api = loom::blas::load_cublas(loom::blas::cublas_libraries());
        MESSAGE("cuBLAS loaded from ", api->library);
        CHECK(static_cast<bool>(api->create));
        CHECK(static_cast<bool>(api->destroy));
        CHECK(static_cast<bool>(api->set_stream));
        CHECK(static_cast<bool>(api->sgemm));
        CHECK(static_cast<bool>(api->dgemm));
        if (api->status_name) CHECK(loom::blas::cublas_status_text(*api, 13) == "CUBLAS_STATUS_EXECUTION_FAILED (13)");
    } catch (const loom::error& e) {
        MESSAGE("SKIPPED the symbol check: no cuBLAS on this machine (", e.what(), ")");
    }
}

TEST_CASE("clblast_gemm_reports_a_failing_status_with_its_name") {
    if (on_cuda()) {
        MESSAGE("SKIPPED: CLBlast runs on OpenCL contexts only");
        return;
    }
    loom::context& ctx = test_context();
    const loom::matrix<float> A(ctx, 2, 2, 1.0f), B(ctx, 2, 2, 1.0f);
    const auto a = A.elements().native_handle(), b = B.elements().native_handle();
    const loom::backend::native_handles device = ctx.impl()->device().native();
    // C is no buffer: CLBlast refuses it before anything runs.
    const loom::blas::gemm_operands g{loom::dtype::f32, 2, 2, 2, a.value(), b.value(), 0};
    const std::string m = error_of([&] { loom::blas::clblast_gemm(loom::blas::clblast(), device, g); });
    CHECK(has(m, "loom::matmul: CLBlast's CLBlastSgemm"));
    CHECK(has(m, "failed with status -"));
    CHECK(has(m, "2 x 2 times 2 x 2"));
    CHECK(A.to_host() == std::vector<float>(4, 1.0f));
}

// Run by the blas_without_clblast entry (LOOM_CLBLAST_LIBRARY names a missing file, --no-skip).
TEST_CASE("matmul_without_clblast_says_what_to_install_and_changes_nothing" * doctest::skip()) {
    const char* library = std::getenv("LOOM_CLBLAST_LIBRARY");
    REQUIRE(library != nullptr);
    loom::context& ctx = test_context();
    const loom::matrix<float> A(ctx, 2, 3, 1.0f), B(ctx, 3, 2, 1.0f);
    loom::matrix<float> C(ctx, 2, 2, 5.0f);
    C = C + 1.0f; // pending when matmul fails: it still runs, once, afterwards
    std::string m;
    CHECK_THROWS_AS(C = loom::matmul(A, B), loom::error);
    m = error_of([&] { C = loom::matmul(A, B); });
    CHECK(has(m, std::string("could not be loaded from ") + library));
    CHECK(has(m, "apt-get install libclblast1"));
    CHECK(has(m, "Nothing was changed"));
    CHECK(C.to_host() == std::vector<float>(4, 6.0f));
    // A product that calls no library still works.
    const loom::matrix<float> A0(ctx, 2, 0), B0(ctx, 0, 2);
    C = loom::matmul(A0, B0);
    CHECK(C.to_host() == std::vector<float>(4, 0.0f));
}
