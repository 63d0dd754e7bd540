// 3-D arrays (loom::array3): element-wise statements, loom::index<0/1/2>() and the 7-point
// stencil through loom::grid(a), against host references at odd shapes, fused and unfused;
// reshape and flatten share memory; host transfers and element access; every shape error names
// the extents. NVRTC compiles every kernel the suite makes (nvrtc_all_kernels.cpp).
#include "error_support.hpp"
#include "matrix_support.hpp"

#include <algorithm>
#include <array>

using namespace loom_test;
using namespace loom_matrix_test;

namespace {

using shape3 = std::array<std::size_t, 3>;

const std::vector<shape3>& shapes3() {
    static const std::vector<shape3> s = {{1, 1, 1}, {1, 1, 67}, {67, 1, 1}, {3, 5, 7}, {7, 13, 11}};
    return s;
}

std::string describe3(const shape3& d) {
    return std::to_string(d[0]) + " x " + std::to_string(d[1]) + " x " + std::to_string(d[2]);
}

} // namespace

TEST_CASE("array3 statements with positions match the host and fused equals unfused") {
    for (const shape3& d : shapes3()) {
        CAPTURE(describe3(d));
        const std::size_t n = d[0] * d[1] * d[2];
        const std::vector<float> ha = random_values<float>(n, -1.0f, 1.0f, 1100 + n),
                                 hb = random_values<float>(n, -1.0f, 1.0f, 1200 + n);
        std::vector<float> results[2];
        std::vector<std::uint64_t> positions[2];
        for (int fuse : {1, 0}) {
            loom::context& c = context_with(fuse);
            loom::array3<float> A(c, d[0], d[1], d[2], ha), B(c, d[0], d[1], d[2], hb), C(c, d[0], d[1], d[2]);
            loom::array3<std::uint64_t> P(c, d[0], d[1], d[2]);
            loom::vector<float> flat(c, hb); // a vector of as many elements is an operand too
            C = A * 2.0f + B;
            C += loom::cast<float>(loom::index<2>()) * flat - loom::cast<float>(loom::index<0>());
            P = loom::index<0>() * 1000000u + loom::index<1>() * 1000u + loom::index<2>();
            results[fuse] = C.to_host();
            positions[fuse] = P.to_host();
        }
        CHECK(results[0] == results[1]);
        CHECK(positions[0] == positions[1]);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < d[0]; ++i)
            for (std::size_t j = 0; j < d[1]; ++j)
                for (std::size_t k = 0; k < d[2]; ++k) {
                    const std::size_t e = (i * d[1] + j) * d[2] + k;
                    const float want = (ha[e] * 2.0f + hb[e]) + (float(k) * hb[e] - float(i));
                    wrong += results[1][e] != want;
                    wrong += positions[1][e] != i * 1000000u + j * 1000u + k;
                }
        CHECK(wrong == 0);
    }
}

TEST_CASE("the 7-point stencil of an array3 through loom::grid equals the host's") {
    const shape3 d{6, 5, 9}; // z, y, x
    const std::size_t n = d[0] * d[1] * d[2];
    const std::vector<float> hu = random_values<float>(n, -1.0f, 1.0f, 1300);
    for (int fuse : {1, 0}) {
        CAPTURE(fuse);
        loom::context& c = context_with(fuse);
        loom::array3<float> u(c, d[0], d[1], d[2], hu), v(c, d[0], d[1], d[2]);
        const auto g = loom::grid(u);
        v = u + 0.1f * (loom::at(g, -1, 0, 0) + loom::at(g, 1, 0, 0) + loom::at(g, 0, -1, 0) + loom::at(g, 0, 1, 0) +
                        loom::at(g, 0, 0, -1) + loom::at(g, 0, 0, 1) - 6.0f * u);
        const std::vector<float> got = v.to_host();
        auto at = [&](long i, long j, long k) { // clamped
            i = std::clamp(i, 0L, long(d[0]) - 1);
            j = std::clamp(j, 0L, long(d[1]) - 1);
            k = std::clamp(k, 0L, long(d[2]) - 1);
            return hu[(std::size_t(i) * d[1] + std::size_t(j)) * d[2] + std::size_t(k)];
        };
        std::size_t wrong = 0;
        for (long i = 0; i < long(d[0]); ++i)
            for (long j = 0; j < long(d[1]); ++j)
                for (long k = 0; k < long(d[2]); ++k) {
                    const float centre = at(i, j, k);
                    const float want =
                        centre + 0.1f * (at(i, j, k - 1) + at(i, j, k + 1) + at(i, j - 1, k) + at(i, j + 1, k) +
                                         at(i - 1, j, k) + at(i + 1, j, k) - 6.0f * centre);
                    wrong +=
                        std::fabs(got[(std::size_t(i) * d[1] + std::size_t(j)) * d[2] + std::size_t(k)] - want) > 1e-6f;
                }
        CHECK(wrong == 0);
    }
}

TEST_CASE("array3 from an expression, reshape and flatten share memory, transfers and element access") {
    loom::context& c = context_with(1);
    const shape3 d{2, 3, 4};
    std::vector<int> h(24);
    for (std::size_t e = 0; e < h.size(); ++e) h[e] = int(e);
    loom::vector<int> x(c, h);
    loom::array3<int> A = loom::reshape(x, 2, 3, 4); // no copy
    CHECK(A.extent(0) == 2);
    CHECK(A.extent(1) == 3);
    CHECK(A.extent(2) == 4);
    CHECK(A(1, 2, 3) == 23);
    A(0, 1, 2) = -6;                   // through the host
    CHECK(x.to_host()[6] == -6);       // the same memory
    const loom::array3<int> B = A * 2; // extents from the expression
    CHECK(B.extents() == d);
    loom::vector<int> back = loom::flatten(B);
    std::vector<int> want = h;
    want[6] = -6;
    for (int& v : want) v *= 2;
    CHECK(back.to_host() == want);
    std::vector<int> host;
    loom::copy(B, host);
    CHECK(host == want);
    loom::array3<int> E(c, 2, 3, 4);
    loom::copy(want, E);
    CHECK(loom::sum(E.elements()) == loom::sum(B.elements()));
    loom::array3<int> F(c, 2, 3, 4, 7);
    loom::swap(E, F); // memory exchanged
    CHECK(E.to_host() == std::vector<int>(24, 7));
    CHECK(F.to_host() == want);
    loom::array3<int> G(c, 4, 3, 2);
    CHECK_THROWS_WITH_AS(loom::swap(E, G), doctest::Contains("equal extents"), loom::error);
    loom::array3<int> empty(c, 0, 3, 4);
    empty = 1;
    CHECK(empty.to_host().empty());
}

TEST_CASE("array3 shape errors name the extents, and 2-D operands and index<2> in 2-D statements are refused") {
    loom::context& c = context_with(1);
    loom::array3<float> A(c, 2, 3, 4), B(c, 2, 4, 3);
    loom::vector<float> v(c, 25);
    loom::matrix<float> M(c, 6, 4);
    CHECK_THROWS_WITH_AS(A = B * 2.0f, doctest::Contains("2 x 3 x 4"), loom::length_error);
    CHECK_THROWS_WITH_AS(A = B * 2.0f, doctest::Contains("2 x 4 x 3"), loom::length_error);
    CHECK_THROWS_WITH_AS(A = v + 1.0f, doctest::Contains("25 elements"), loom::length_error);
    CHECK_THROWS_WITH_AS(A = loom::flatten(M) + M, doctest::Contains("2-D operand"), loom::error);
    CHECK_THROWS_WITH_AS(M = loom::reshape(loom::flatten(A), 6, 4) + A, doctest::Contains("loom::array3 (2 x 3 x 4)"),
                         loom::error);
    CHECK_THROWS_WITH_AS(M = loom::cast<float>(loom::index<2>()), doctest::Contains("loom::index<2>()"), loom::error);
    CHECK_THROWS_WITH_AS(A(2, 0, 0), doctest::Contains("out of range"), loom::error);
    CHECK_THROWS_WITH_AS(loom::reshape(v, 2, 3, 4), doctest::Contains("25 elements"), loom::length_error);
    CHECK_THROWS_WITH_AS(loom::array3<float>(c, 2, 3, 4, std::vector<float>(5)), doctest::Contains("24 elements"),
                         loom::length_error);
    loom::array3<float> none;
    CHECK_THROWS_WITH_AS(none = 1.0f, doctest::Contains("empty loom::array3"), loom::error);
    // A failed statement changed nothing.
    A = 3.0f;
    CHECK_THROWS_AS(A = B * 2.0f, loom::length_error);
    CHECK(A.to_host() == std::vector<float>(24, 3.0f));
}

TEST_CASE("reductions along each axis of 3-D expressions give matrices equal to the host's") {
    for (const shape3& d : shapes3()) {
        CAPTURE(describe3(d));
        const std::size_t n = d[0] * d[1] * d[2];
        const std::vector<std::int64_t> ha = random_values<std::int64_t>(n, -100, 100, 1500 + n);
        for (int fuse : {1, 0}) {
            CAPTURE(fuse);
            loom::context& c = context_with(fuse);
            loom::array3<std::int64_t> A(c, d[0], d[1], d[2], ha);
            // Positions inside the folded input: every axis's, so both splits of the pass's counter show.
            const auto weighted =
                A * loom::cast<std::int64_t>(loom::index<0>() * 10000u + loom::index<1>() * 100u + loom::index<2>());
            const loom::matrix<std::int64_t> s2 = loom::sum(weighted, loom::axis<2>);
            const auto [s0, m0] = loom::max(std::make_tuple(weighted, A), loom::axis<0>);
            const loom::matrix<std::int64_t> ms0 = s0, mm0 = m0;
            const loom::matrix<std::int64_t> s1 = loom::sum(weighted + loom::flatten(A), loom::axis<1>);
            REQUIRE(s1.rows() == d[0]);
            REQUIRE(s1.cols() == d[2]);
            REQUIRE(s2.rows() == d[0]);
            REQUIRE(s2.cols() == d[1]);
            REQUIRE(ms0.rows() == d[1]);
            REQUIRE(ms0.cols() == d[2]);
            std::vector<std::int64_t> want1(d[0] * d[2], 0);
            std::vector<std::int64_t> want2(d[0] * d[1], 0),
                want0(d[1] * d[2], std::numeric_limits<std::int64_t>::lowest()),
                wantm(d[1] * d[2], std::numeric_limits<std::int64_t>::lowest());
            for (std::size_t i = 0; i < d[0]; ++i)
                for (std::size_t j = 0; j < d[1]; ++j)
                    for (std::size_t k = 0; k < d[2]; ++k) {
                        const std::int64_t a = ha[(i * d[1] + j) * d[2] + k];
                        const std::int64_t w = a * std::int64_t(i * 10000 + j * 100 + k);
                        want2[i * d[1] + j] += w;
                        want1[i * d[2] + k] += w + a;
                        want0[j * d[2] + k] = std::max(want0[j * d[2] + k], w);
                        wantm[j * d[2] + k] = std::max(wantm[j * d[2] + k], a);
                    }
            CHECK(s2.to_host() == want2);
            CHECK(s1.to_host() == want1);
            CHECK(ms0.to_host() == want0);
            CHECK(mm0.to_host() == wantm);
        }
    }
}

TEST_CASE("a 3-D reduction repeats without compiling, composes with matrix statements and handles empty axes") {
    loom::context& c = context_with(1);
    const shape3 d{4, 5, 6};
    const std::vector<float> ha = random_values<float>(120, -1.0f, 1.0f, 1600);
    loom::array3<float> A(c, d[0], d[1], d[2], ha);
    loom::matrix<float> M(c, 4, 5);
    M = loom::sum(A, loom::axis<2>) * 2.0f;
    c.finish();
    const std::uint64_t compiled = c.statistics().kernels_compiled;
    M = loom::sum(A, loom::axis<2>) * 2.0f;
    c.finish();
    CHECK(c.statistics().kernels_compiled == compiled);
    const std::vector<float> got = M.to_host();
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t j = 0; j < 5; ++j) {
            double want = 0;
            for (std::size_t k = 0; k < 6; ++k) want += ha[(i * 5 + j) * 6 + k];
            CHECK(got[i * 5 + j] == doctest::Approx(2.0 * want).epsilon(1e-5));
        }
    loom::array3<float> empty(c, 3, 2, 0);
    const loom::matrix<float> zeros = loom::sum(empty, loom::axis<2>);
    CHECK(zeros.to_host() == std::vector<float>(6, 0.0f));
    const loom::matrix<float> none = loom::min(empty, loom::axis<0>);
    CHECK(none.rows() == 2);
    CHECK(none.to_host().empty());
    CHECK_THROWS_WITH_AS(loom::sum(loom::at(loom::grid(A), 1, 0, 0) + A, loom::axis<1>),
                         doctest::Contains("stencil read"), loom::error);
    loom::array3<float> B(c, 4, 5, 7);
    CHECK_THROWS_WITH_AS(loom::sum(std::make_tuple(A, B), loom::axis<2>), doctest::Contains("4 x 5 x 7"),
                         loom::length_error);
}

TEST_CASE("vectors laid along each axis of a 3-D expression (loom::along) match the host, in statements and "
          "reductions; along<0> and along<1> of 2-D expressions are as_column and as_row") {
    for (const shape3& d : shapes3()) {
        CAPTURE(describe3(d));
        const std::size_t n = d[0] * d[1] * d[2];
        const std::vector<std::int64_t> ha = random_values<std::int64_t>(n, -50, 50, 1700 + n),
                                        h0 = random_values<std::int64_t>(d[0], -9, 9, 1710 + n),
                                        h1 = random_values<std::int64_t>(d[1], -9, 9, 1720 + n),
                                        h2 = random_values<std::int64_t>(d[2], -9, 9, 1730 + n);
        std::vector<std::int64_t> sums[2], batched[2];
        for (int fuse : {1, 0}) {
            CAPTURE(fuse);
            loom::context& c = context_with(fuse);
            loom::array3<std::int64_t> A(c, d[0], d[1], d[2], ha), B(c, d[0], d[1], d[2]);
            loom::vector<std::int64_t> x0(c, h0), x1(c, h1), x2(c, h2);
            B = A * loom::along<0>(x0) + loom::along<1>(x1) - loom::along<2>(x2) * loom::along<2>(x2);
            sums[fuse] = B.to_host();
            // A batched matrix-vector product: each (i, :, :) slab times x2.
            const loom::matrix<std::int64_t> y = loom::sum(A * loom::along<2>(x2), loom::axis<2>);
            batched[fuse] = y.to_host();
        }
        CHECK(sums[0] == sums[1]);
        CHECK(batched[0] == batched[1]);
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < d[0]; ++i)
            for (std::size_t j = 0; j < d[1]; ++j) {
                std::int64_t dot = 0;
                for (std::size_t k = 0; k < d[2]; ++k) {
                    const std::int64_t a = ha[(i * d[1] + j) * d[2] + k];
                    wrong += sums[1][(i * d[1] + j) * d[2] + k] != a * h0[i] + h1[j] - h2[k] * h2[k];
                    dot += a * h2[k];
                }
                wrong += batched[1][i * d[1] + j] != dot;
            }
        CHECK(wrong == 0);
    }

    loom::context& c = context_with(1);
    loom::array3<float> A(c, 2, 3, 4);
    loom::vector<float> three(c, 3, 1.0f), four(c, 4, 2.0f), two(c, 2, 3.0f);
    CHECK(loom_test_errors::error_of([&] { A = loom::along<2>(three); }) ==
          "loom: shape mismatch in a loom::array3 assignment: loom::along<2> of a vector of 3 elements in an "
          "expression over a 2 x 3 x 4 array (axis 2 has 4)");
    CHECK_THROWS_AS(A = loom::along<1>(three) + loom::along<1>(four), loom::length_error);
    loom::matrix<float> M(c, 2, 3);
    CHECK_THROWS_WITH_AS(M = loom::along<2>(four), doctest::Contains("this expression is 2-D"), loom::error);
    M = loom::along<0>(two) * loom::along<1>(three);
    const loom::matrix<float> same = loom::as_column(two) * loom::as_row(three);
    CHECK(M.to_host() == same.to_host());
    CHECK(M.to_host() == std::vector<float>(6, 3.0f));
}
