// Several reductions along an axis in one kernel (loom::sum of a std::tuple of expressions, and
// product, min, max): each result equals the one a separate reduction gives, bit for bit (the
// same fold order over the same values), and the host's; mixed element types; one launch; the
// plan reused; empty matrices; a shape mismatch named; N-Body's three components in one pass.
#include "matrix_support.hpp"

#include <cmath>
#include <limits>
#include <tuple>

using namespace loom_test;
using namespace loom_matrix_test;

namespace {

template <class E> auto host_of(const E& e) { return loom::vector<loom::value_type_t<E>>(e).to_host(); }

template <class T> void tuple_sums_equal_separate_sums(loom::context& c, std::uint64_t stream) {
    for (const extents& e : shapes()) {
        CAPTURE(describe(e));
        const std::size_t R = e.rows, C = e.cols;
        const std::vector<T> ha = random_matrix<T>(e, T(-1), T(1), stream),
                             hb = random_matrix<T>(e, T(-1), T(1), stream + 1);
        const std::vector<T> hx = random_values<T>(C, T(-1), T(1), stream + 2);
        const std::vector<std::int32_t> hi = random_matrix<std::int32_t>(e, -50, 50, stream + 3);
        loom::matrix<T> A(c, R, C, ha), B(c, R, C, hb);
        loom::matrix<std::int32_t> I(c, R, C, hi);
        loom::vector<T> x(c, hx);
        for (int axis : {1, 0}) {
            CAPTURE(axis);
            // Three values of three types; a term (A * as_row(x)) shared by two of them.
            const auto ax = A * loom::as_row(x);
            std::vector<T> s0, s1, one0, one1;
            std::vector<double> s2;
            std::vector<std::int32_t> s3, one3;
            if (axis == 1) {
                const auto [r0, r1, r2] = loom::sum(std::make_tuple(ax, ax * B, I), loom::axis<1>);
                s0 = host_of(r0);
                s1 = host_of(r1);
                s3 = host_of(r2);
                one0 = host_of(loom::sum(ax, loom::axis<1>));
                one1 = host_of(loom::sum(ax * B, loom::axis<1>));
                one3 = host_of(loom::sum(I, loom::axis<1>));
            } else {
                const auto [r0, r1, r2] = loom::sum(std::make_tuple(ax, ax * B, I), loom::axis<0>);
                s0 = host_of(r0);
                s1 = host_of(r1);
                s3 = host_of(r2);
                one0 = host_of(loom::sum(ax, loom::axis<0>));
                one1 = host_of(loom::sum(ax * B, loom::axis<0>));
                one3 = host_of(loom::sum(I, loom::axis<0>));
            }
            CHECK(s0 == one0); // the same fold order over the same values
            CHECK(s1 == one1);
            CHECK(s3 == one3);
            // Against the host: integers exactly, floats within the fold's error bound.
            const std::size_t n = axis == 1 ? R : C, folded = axis == 1 ? C : R;
            std::vector<double> want0(n, 0), want1(n, 0), mag0(n, 0), mag1(n, 0);
            std::vector<std::int32_t> want3(n, 0);
            for (std::size_t i = 0; i < R; ++i)
                for (std::size_t j = 0; j < C; ++j) {
                    const std::size_t k = axis == 1 ? i : j;
                    const T t0 = T(ha[i * C + j] * hx[j]), t1 = T(t0 * hb[i * C + j]);
                    want0[k] += double(t0);
                    mag0[k] += std::fabs(double(t0));
                    want1[k] += double(t1);
                    mag1[k] += std::fabs(double(t1));
                    want3[k] += hi[i * C + j];
                }
            CHECK(s3 == want3);
            const double u = std::is_same_v<T, float> ? 0x1p-24 : 0x1p-53, g = double(folded + 64) * u;
            for (std::size_t k = 0; k < n; ++k) {
                CHECK(std::fabs(double(s0[k]) - want0[k]) <= g * mag0[k]);
                CHECK(std::fabs(double(s1[k]) - want1[k]) <= g * mag1[k]);
            }
        }
    }
}

} // namespace

TEST_CASE("a tuple of sums along an axis equals the separate sums bit for bit and the host's, fused and unfused") {
    for (int fuse : {1, 0}) {
        CAPTURE(fuse);
        tuple_sums_equal_separate_sums<float>(context_with(fuse), 900);
        tuple_sums_equal_separate_sums<double>(context_with(fuse), 910);
    }
}

TEST_CASE("products, minima and maxima of a tuple along an axis match the host and keep each value's type") {
    loom::context& c = context_with(1);
    const extents e{37, 53};
    const std::vector<float> ha = random_matrix<float>(e, -1.0f, 1.0f, 920);
    std::vector<std::int64_t> hp = random_matrix<std::int64_t>(e, 0, 2, 921); // -1, 1 or 2
    for (std::int64_t& v : hp) v = v == 0 ? -1 : v;
    loom::matrix<float> A(c, e.rows, e.cols, ha);
    loom::matrix<std::int64_t> P(c, e.rows, e.cols, hp);
    const auto [lo, hi] = loom::min(std::make_tuple(A, A * 2.0), loom::axis<1>);
    const auto [hi0, hi1] = loom::max(std::make_tuple(A, P), loom::axis<0>);
    const auto [prod] = loom::product(std::make_tuple(P), loom::axis<1>);
    static_assert(std::is_same_v<loom::value_type_t<decltype(hi)>, double>);
    static_assert(std::is_same_v<loom::value_type_t<decltype(hi1)>, std::int64_t>);
    const std::vector<float> h_lo = host_of(lo), h_hi0 = host_of(hi0);
    const std::vector<double> h_hi = host_of(hi);
    const std::vector<std::int64_t> h_hi1 = host_of(hi1), h_prod = host_of(prod);
    for (std::size_t i = 0; i < e.rows; ++i) {
        float m = std::numeric_limits<float>::infinity();
        double m2 = std::numeric_limits<double>::infinity();
        std::int64_t p = 1;
        for (std::size_t j = 0; j < e.cols; ++j) {
            m = std::min(m, ha[i * e.cols + j]);
            m2 = std::min(m2, double(ha[i * e.cols + j]) * 2.0);
            p *= hp[i * e.cols + j];
        }
        CHECK(h_lo[i] == m);
        CHECK(h_hi[i] == m2);
        CHECK(h_prod[i] == p);
    }
    for (std::size_t j = 0; j < e.cols; ++j) {
        float m = -std::numeric_limits<float>::infinity();
        std::int64_t m1 = std::numeric_limits<std::int64_t>::lowest();
        for (std::size_t i = 0; i < e.rows; ++i) {
            m = std::max(m, ha[i * e.cols + j]);
            m1 = std::max(m1, hp[i * e.cols + j]);
        }
        CHECK(h_hi0[j] == m);
        CHECK(h_hi1[j] == m1);
    }
}

TEST_CASE("nbody's three components reduce in one kernel, assigned with loom::tie, and reuse their plan") {
    const std::size_t n = 300;
    const std::vector<float> hx = random_values<float>(n, -1, 1, 930), hy = random_values<float>(n, -1, 1, 931),
                             hz = random_values<float>(n, -1, 1, 932), hm = random_values<float>(n, 0.5f, 1.5f, 933);
    loom::context& c = context_with(1);
    loom::vector<float> px(c, hx), py(c, hy), pz(c, hz), m(c, hm), ax(c, n), ay(c, n), az(c, n);
    (void)az.to_host(); // the targets' fills flushed: each step's plan is the same
    const float eps2 = 1e-3f;
    auto step = [&] {
        const auto dx = loom::as_row(px) - loom::as_column(px); // (i, j): px[j] - px[i]
        const auto dy = loom::as_row(py) - loom::as_column(py);
        const auto dz = loom::as_row(pz) - loom::as_column(pz);
        const auto inv_r = loom::rsqrt(dx * dx + dy * dy + dz * dz + eps2);
        const auto w = loom::as_row(m) * inv_r * inv_r * inv_r;
        loom::tie(ax, ay, az) = loom::sum(std::make_tuple(w * dx, w * dy, w * dz), loom::axis<1>);
    };
    step();
    c.finish();
    const loom::context_statistics before = c.statistics();
    step();
    c.finish();
    const loom::context_statistics after = c.statistics();
    CHECK(after.kernels_compiled == before.kernels_compiled);
    // One reduction of three values, whose results the targets take with no copy kernel.
    CHECK(after.kernels_launched - before.kernels_launched == 1);
    const std::vector<float> got[3] = {ax.to_host(), ay.to_host(), az.to_host()};
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double want[3] = {0, 0, 0}, scale[3] = {0, 0, 0};
        for (std::size_t j = 0; j < n; ++j) {
            const double d[3] = {double(hx[j]) - hx[i], double(hy[j]) - hy[i], double(hz[j]) - hz[i]};
            const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
            for (int k = 0; k < 3; ++k) {
                const double term = hm[j] * d[k] / (r2 * std::sqrt(r2));
                want[k] += term;
                scale[k] += std::fabs(term);
            }
        }
        for (int k = 0; k < 3; ++k) worst = std::max(worst, std::fabs(got[k][i] - want[k]) / scale[k]);
    }
    INFO("worst error relative to the sum of magnitudes: ", worst);
    CHECK(worst < 1e-4);
}

TEST_CASE("a tuple along an empty axis gives identities and a shape mismatch among its values is named") {
    loom::context& c = context_with(1);
    loom::matrix<float> empty_cols(c, 5, 0), A(c, 3, 5), B(c, 4, 5);
    const auto [s, p] = loom::sum(std::make_tuple(empty_cols, loom::cast<double>(empty_cols)), loom::axis<1>);
    CHECK(host_of(s) == std::vector<float>(5, 0.0f));
    CHECK(host_of(p) == std::vector<double>(5, 0.0));
    const auto [lo, hi] = loom::min(std::make_tuple(empty_cols, empty_cols), loom::axis<1>);
    CHECK(host_of(hi) == std::vector<float>(5, std::numeric_limits<float>::infinity()));
    (void)lo;
    CHECK_THROWS_WITH_AS(loom::sum(std::make_tuple(A, B), loom::axis<1>), doctest::Contains("3 x 5"),
                         loom::length_error);
    CHECK_THROWS_WITH_AS(loom::sum(std::make_tuple(A, B), loom::axis<1>), doctest::Contains("4 x 5"),
                         loom::length_error);
}
