// loom::sparse_matrix against host CSR loops, in every layout (CSR, sliced ELL of several slice
// heights, and the automatic choice): a 2-D Poisson matrix from coordinate triples, a random
// matrix with very uneven rows (empty rows, one row of thousands of entries) from CSR arrays,
// duplicates summed, the product fused into the kernels around it (maps, a reduction, a sort's
// first pass) and inside loops, and the errors. Every kernel the suite makes is compiled once
// more with NVRTC where CUDA is built in (tests/expr/nvrtc_all_kernels.cpp).
#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <tuple>
#include <vector>

#include "error_support.hpp"

using namespace loom_test_errors;

namespace {

loom::context& ctx() {
    static loom::context c;
    return c;
}

template <class T> struct host_csr {
    std::uint64_t rows = 0, cols = 0;
    std::vector<std::uint64_t> row_ptr{0};
    std::vector<std::uint32_t> col;
    std::vector<T> val;

    std::vector<T> times(const std::vector<T>& x) const {
        std::vector<T> y(rows, T(0));
        for (std::uint64_t r = 0; r < rows; ++r)
            for (std::uint64_t k = row_ptr[r]; k < row_ptr[r + 1]; ++k) y[r] += val[k] * x[col[k]];
        return y;
    }
};

// The 5-point Laplacian on an m x m grid as triples (4 on the diagonal, -1 to each neighbour).
template <class T> void poisson_triplets(std::uint64_t m, std::vector<std::uint64_t>& i, std::vector<std::uint64_t>& j,
                                         std::vector<T>& v) {
    for (std::uint64_t a = 0; a < m; ++a)
        for (std::uint64_t b = 0; b < m; ++b) {
            const std::uint64_t r = a * m + b;
            auto add = [&](std::uint64_t c, T x) {
                i.push_back(r);
                j.push_back(c);
                v.push_back(x);
            };
            if (a > 0) add(r - m, T(-1));
            if (b > 0) add(r - 1, T(-1));
            add(r, T(4));
            if (b + 1 < m) add(r + 1, T(-1));
            if (a + 1 < m) add(r + m, T(-1));
        }
}

// Rows of 0 to 4 entries, every third row empty, and row 7 with 5000 (repeated columns among them).
template <class T> host_csr<T> uneven(std::uint64_t rows, std::uint64_t cols, std::uint64_t seed) {
    std::mt19937_64 gen(seed);
    host_csr<T> a;
    a.rows = rows;
    a.cols = cols;
    for (std::uint64_t r = 0; r < rows; ++r) {
        const std::uint64_t n = r == 7 ? 5000 : r % 3 == 0 ? 0 : gen() % 5;
        for (std::uint64_t k = 0; k < n; ++k) {
            a.col.push_back(std::uint32_t(gen() % cols));
            a.val.push_back(T(std::int64_t(gen() % 19) - 9));
        }
        a.row_ptr.push_back(a.col.size());
    }
    return a;
}

// The layouts every product is checked in.
std::vector<loom::sparse_layout> layouts() {
    return {loom::sparse_layout::automatic(), loom::sparse_layout::csr(), loom::sparse_layout::sliced_ell(4),
            loom::sparse_layout::sliced_ell(32)};
}

// Whether this run's maps are grid-stride (the GPU form), where the automatic layout slices rows.
// Maps are grid-stride on GPUs and chunked on CPUs, unless LOOM_KERNEL_FORM names the form.
bool grid_stride_maps() {
    if (const char* form = std::getenv("LOOM_KERNEL_FORM")) return std::strcmp(form, "grid_stride") == 0;
    for (const loom::device_description& d : loom::devices())
        if (d.is_default) return d.is_gpu;
    return false;
}

template <class T> std::vector<T> integers(std::uint64_t n, std::uint64_t seed) {
    std::mt19937_64 gen(seed);
    std::vector<T> x(n);
    for (T& e : x) e = T(std::int64_t(gen() % 21) - 10);
    return x;
}

} // namespace

TEST_CASE("a 2-D Poisson matrix from triples multiplies like the host CSR product") {
    for (std::uint64_t m : {1u, 2u, 31u, 100u}) {
        CAPTURE(m);
        std::vector<std::uint64_t> i, j;
        std::vector<double> v;
        poisson_triplets(m, i, j, v);
        host_csr<double> h;
        h.rows = h.cols = m * m;
        for (std::uint64_t r = 0; r < m * m; ++r) {
            for (std::size_t k = 0; k < i.size(); ++k) // the triples are in row order already
                if (i[k] == r) {
                    h.col.push_back(std::uint32_t(j[k]));
                    h.val.push_back(v[k]);
                }
            h.row_ptr.push_back(h.col.size());
        }
        const std::vector<double> xh = integers<double>(m * m, m);
        const loom::vector<double> x(ctx(), xh);
        for (const loom::sparse_layout& layout : layouts()) {
            CAPTURE(layout.rows_per_slice());
            const auto A = loom::sparse_matrix<double>::from_triplets(ctx(), m * m, m * m, i, j, v, layout);
            CHECK(A.rows() == m * m);
            CHECK(A.nonzeros() == v.size());
            // Automatic: sliced ELL where maps are grid-stride, but for a matrix of a few rows,
            // whose one slice would pad its 32 rows to more than twice the entries.
            if (layout.is_automatic() && m > 2) CHECK(A.layout().rows_per_slice() == (grid_stride_maps() ? 32u : 1u));
            const loom::vector<double> y = A * x;
            CHECK(y.to_host() == h.times(xh)); // integers: exact in any order
        }
    }
}

TEST_CASE("a random matrix with very uneven rows multiplies like the host CSR product") {
    for (std::uint64_t rows : {10u, 1000u, 70000u}) {
        CAPTURE(rows);
        const host_csr<std::int32_t> h = uneven<std::int32_t>(rows, 5000, rows);
        const std::vector<std::int32_t> xh = integers<std::int32_t>(h.cols, 3);
        const loom::vector<std::int32_t> x(ctx(), xh);
        const host_csr<float> hf = uneven<float>(rows, 5000, rows + 1);
        const std::vector<float> xf = integers<float>(hf.cols, 4);
        for (const loom::sparse_layout& layout : layouts()) {
            CAPTURE(layout.rows_per_slice());
            const loom::sparse_matrix<std::int32_t> A(ctx(), h.rows, h.cols, h.row_ptr, h.col, h.val, layout);
            const loom::vector<std::int32_t> y = A * x;
            CHECK(y.to_host() == h.times(xh));
            // 64-bit indices: the same product.
            const loom::sparse_matrix<std::int32_t, std::uint64_t> A64(ctx(), h.rows, h.cols, h.row_ptr, h.col, h.val,
                                                                       layout);
            const loom::vector<std::int32_t> y64 = A64 * x;
            CHECK(y64.to_host() == h.times(xh));

            const loom::sparse_matrix<float> Af(ctx(), hf.rows, hf.cols, hf.row_ptr, hf.col, hf.val, layout);
            const loom::vector<float> yf = Af * loom::vector<float>(ctx(), xf);
            CHECK(yf.to_host() == hf.times(xf)); // small integers: exact in float
        }
        // Automatic: a slice with row 7's 5000 entries would pad its 31 others as long: CSR.
        const loom::sparse_matrix<std::int32_t> A(ctx(), h.rows, h.cols, h.row_ptr, h.col, h.val);
        CHECK(A.layout().rows_per_slice() == 1);
    }
}

TEST_CASE("rows of many entries multiply like the host CSR product") {
    host_csr<double> h;
    h.rows = 300;
    h.cols = 700;
    std::mt19937_64 gen(5);
    for (std::uint64_t r = 0; r < h.rows; ++r) {
        const std::uint64_t n = r == 5 ? 0 : 40 + gen() % 60;
        for (std::uint64_t k = 0; k < n; ++k) {
            h.col.push_back(std::uint32_t(gen() % h.cols));
            h.val.push_back(double(std::int64_t(gen() % 19) - 9));
        }
        h.row_ptr.push_back(h.col.size());
    }
    const std::vector<double> xh = integers<double>(h.cols, 8);
    const loom::vector<double> x(ctx(), xh);
    for (const loom::sparse_layout& layout : layouts()) {
        CAPTURE(layout.rows_per_slice());
        const loom::sparse_matrix<double> A(ctx(), h.rows, h.cols, h.row_ptr, h.col, h.val, layout);
        const loom::vector<double> y = A * x;
        CHECK(y.to_host() == h.times(xh));
    }
}

TEST_CASE("every layout sums a row's entries in the order given: float products equal the host's bit for bit") {
    const std::uint64_t seed = 20261128;
    CAPTURE(seed);
    std::mt19937_64 gen(seed);
    std::uniform_real_distribution<float> real(-1.0f, 1.0f);
    host_csr<float> h;
    h.rows = 3000;
    h.cols = 2000;
    for (std::uint64_t r = 0; r < h.rows; ++r) {
        const std::uint64_t n = gen() % 40;
        for (std::uint64_t k = 0; k < n; ++k) {
            h.col.push_back(std::uint32_t(gen() % h.cols));
            h.val.push_back(real(gen));
        }
        h.row_ptr.push_back(h.col.size());
    }
    std::vector<float> xh(h.cols);
    for (float& e : xh) e = real(gen);
    const loom::vector<float> x(ctx(), xh);
    std::vector<float> expected(h.rows, 0.0f);
    for (std::uint64_t r = 0; r < h.rows; ++r)
        for (std::uint64_t k = h.row_ptr[r]; k < h.row_ptr[r + 1]; ++k) {
            const float term = h.val[k] * xh[h.col[k]];
            expected[r] = expected[r] + term;
        }
    for (const loom::sparse_layout& layout : layouts()) {
        CAPTURE(layout.rows_per_slice());
        const loom::sparse_matrix<float> A(ctx(), h.rows, h.cols, h.row_ptr, h.col, h.val, layout);
        const loom::vector<float> y = A * x;
        const std::vector<float> got = y.to_host();
        CHECK(std::memcmp(got.data(), expected.data(), got.size() * sizeof(float)) == 0);
    }
}

TEST_CASE("y = a * (A * x) + b * y is one kernel over the rows, and equals the product computed first") {
    std::vector<std::uint64_t> i, j;
    std::vector<double> v;
    poisson_triplets(40, i, j, v);
    const std::vector<double> xh = integers<double>(1600, 12), yh = integers<double>(1600, 13);
    for (const loom::sparse_layout& layout : layouts()) {
        CAPTURE(layout.rows_per_slice());
        const auto A = loom::sparse_matrix<double>::from_triplets(ctx(), 1600, 1600, i, j, v, layout);
        const loom::vector<double> x(ctx(), xh);
        loom::vector<double> y(ctx(), yh), z(ctx(), yh);
        ctx().finish();
        const std::uint64_t before = ctx().statistics().kernels_launched;
        y = 3.0 * (A * x) - 2.0 * y;
        ctx().finish();
        CHECK(ctx().statistics().kernels_launched == before + 1);
        // Unfused: the product into a vector of its own, then the rest.
        loom::vector<double> ax(ctx(), 1600);
        ax = A * x;
        ctx().finish();
        z = 3.0 * ax - 2.0 * z;
        CHECK(y.to_host() == z.to_host());
    }
}

TEST_CASE("the product fuses into a reduction and a sort's first pass") {
    std::vector<std::uint64_t> i, j;
    std::vector<double> v;
    poisson_triplets(30, i, j, v);
    const std::vector<double> ph = integers<double>(900, 21);
    host_csr<double> h;
    h.rows = h.cols = 900;
    for (std::uint64_t r = 0; r < 900; ++r) {
        for (std::size_t k = 0; k < i.size(); ++k)
            if (i[k] == r) {
                h.col.push_back(std::uint32_t(j[k]));
                h.val.push_back(v[k]);
            }
        h.row_ptr.push_back(h.col.size());
    }
    const std::vector<double> aph = h.times(ph);
    double pap = 0;
    for (std::size_t r = 0; r < 900; ++r) pap += ph[r] * aph[r];
    std::vector<double> sorted = aph;
    std::stable_sort(sorted.begin(), sorted.end());
    for (const loom::sparse_layout& layout : layouts()) {
        CAPTURE(layout.rows_per_slice());
        const auto A = loom::sparse_matrix<double>::from_triplets(ctx(), 900, 900, i, j, v, layout);
        const loom::vector<double> p(ctx(), ph);
        CHECK(loom::sum(p * (A * p)) == pap); // integers: exact in any order
        // The product alone has A's rows (its own length; there is no vector beside it to give one).
        double total = 0;
        for (const double e : aph) total += e;
        CHECK(loom::sum(A * p) == total);
        loom::vector<double> out(ctx(), 900);
        loom::sort(A * p, out);
        CHECK(out.to_host() == sorted);
    }
}

TEST_CASE("the product reads x as the statements before it in the flush left it") {
    const host_csr<std::int32_t> h = uneven<std::int32_t>(500, 500, 17);
    std::vector<std::int32_t> xh = integers<std::int32_t>(500, 18);
    for (const loom::sparse_layout& layout : layouts()) {
        CAPTURE(layout.rows_per_slice());
        const loom::sparse_matrix<std::int32_t> A(ctx(), h.rows, h.cols, h.row_ptr, h.col, h.val, layout);
        loom::vector<std::int32_t> x(ctx(), xh), y(ctx(), 500);
        x = x + 1;
        y = A * x + x;
        x = A * x; // its own target, read at other indices: through a temporary
        std::vector<std::int32_t> x1 = xh;
        for (std::int32_t& e : x1) e += 1;
        std::vector<std::int32_t> expected = h.times(x1);
        const std::vector<std::int32_t> ax1 = expected;
        for (std::size_t r = 0; r < 500; ++r) expected[r] += x1[r];
        CHECK(y.to_host() == expected);
        CHECK(x.to_host() == ax1);
    }
}

TEST_CASE("triples at the same place are summed, in any order") {
    const auto A = loom::sparse_matrix<float>::from_triplets(
        ctx(), 3, 4, {{2, 3, 1.0f}, {0, 1, 2.0f}, {2, 3, 5.0f}, {0, 0, 1.0f}, {0, 1, -1.0f}});
    CHECK(A.nonzeros() == 3);
    const loom::vector<float> x(ctx(), std::vector<float>{1, 10, 100, 1000});
    const loom::vector<float> y = A * x;
    CHECK(y.to_host() == std::vector<float>{11, 0, 6000});
}

TEST_CASE("the product inside a larger expression equals the product computed first") {
    const host_csr<double> h = uneven<double>(2000, 2000, 11);
    const loom::sparse_matrix<double> A(ctx(), h.rows, h.cols, h.row_ptr, h.col, h.val);
    const std::vector<double> xh = integers<double>(2000, 5), yh = integers<double>(2000, 6);
    const loom::vector<double> x(ctx(), xh);
    loom::vector<double> y(ctx(), yh), z(ctx(), yh);
    const double a = 0.5, b = -2.0;
    y = a * (A * x) + b * y;
    const loom::vector<double> ax = A * x;
    z = a * ax + b * z;
    CHECK(y.to_host() == z.to_host());
    const std::vector<double> axh = h.times(xh);
    std::vector<double> expected(2000);
    for (std::size_t r = 0; r < 2000; ++r) expected[r] = a * axh[r] + b * yh[r];
    CHECK(y.to_host() == expected);
    // An expression as the operand: computed into a vector first.
    const loom::vector<double> w = A * (2.0 * x);
    std::vector<double> twice(2000);
    for (std::size_t r = 0; r < 2000; ++r) twice[r] = 2.0 * axh[r];
    CHECK(w.to_host() == twice);
}

TEST_CASE("products in a loom::loop read the vectors each iteration left") {
    std::vector<std::uint64_t> i, j;
    std::vector<double> v;
    poisson_triplets(20, i, j, v);
    const auto A = loom::sparse_matrix<double>::from_triplets(ctx(), 400, 400, i, j, v);
    std::vector<double> xh = integers<double>(400, 9);
    loom::vector<double> x(ctx(), xh);
    loom::loop(ctx(), 3, [&] { x = 0.25 * (A * x) - x; });
    host_csr<double> h;
    h.rows = h.cols = 400;
    for (std::uint64_t r = 0; r < 400; ++r) {
        for (std::size_t k = 0; k < i.size(); ++k)
            if (i[k] == r) {
                h.col.push_back(std::uint32_t(j[k]));
                h.val.push_back(v[k]);
            }
        h.row_ptr.push_back(h.col.size());
    }
    for (int it = 0; it < 3; ++it) {
        const std::vector<double> ax = h.times(xh);
        for (std::size_t r = 0; r < 400; ++r) xh[r] = 0.25 * ax[r] - xh[r];
    }
    CHECK(x.to_host() == xh);
}

TEST_CASE("a matrix of no rows gives an empty vector") {
    const loom::sparse_matrix<float> A(ctx(), 0, 3, std::vector<std::uint32_t>{0}, std::vector<std::uint32_t>{},
                                       std::vector<float>{});
    const loom::vector<float> x(ctx(), std::vector<float>{1, 2, 3});
    const loom::vector<float> y = A * x;
    CHECK(y.size() == 0);
}

TEST_CASE("a matrix with no entries gives zeros") {
    const loom::sparse_matrix<float> A(ctx(), 5, 3, std::vector<std::uint32_t>(6, 0), std::vector<std::uint32_t>{},
                                       std::vector<float>{});
    const loom::vector<float> x(ctx(), std::vector<float>{1, 2, 3});
    const loom::vector<float> y = A * x;
    CHECK(y.to_host() == std::vector<float>(5, 0.0f));
}

TEST_CASE("malformed CSR arrays, triples and operands are loom::errors naming the fault") {
    using ptr = std::vector<std::uint32_t>;
    const std::vector<float> two{1, 2};
    CHECK_THROWS_AS(loom::sparse_matrix<float>(ctx(), 3, 3, ptr{0, 1, 2}, ptr{0, 1}, two), loom::length_error);
    CHECK(has(error_of([&] {
                  loom::sparse_matrix<float>(ctx(), 2, 3, ptr{0, 2, 1}, ptr{0, 1}, two);
              }),
              "row_ptr decreases at row 1"));
    CHECK(has(error_of([&] {
                  loom::sparse_matrix<float>(ctx(), 2, 3, ptr{1, 1, 2}, ptr{0, 1}, two);
              }),
              "row_ptr[0] is 1"));
    CHECK(has(error_of([&] {
                  loom::sparse_matrix<float>(ctx(), 2, 3, ptr{0, 1, 2}, ptr{0, 3}, two);
              }),
              "entry 1 (row 1) is in column 3 of a matrix of 3 columns"));
    CHECK_THROWS_AS(loom::sparse_matrix<float>(ctx(), 2, 3, ptr{0, 1, 3}, ptr{0, 1}, two), loom::length_error);
    CHECK(has(error_of([&] {
                  loom::sparse_matrix<float>::from_triplets(ctx(), 2, 2, std::vector<int>{0, -1},
                                                            std::vector<int>{0, 0}, two);
              }),
              "entry 1 is in row -1"));
    CHECK_THROWS_AS(
        loom::sparse_matrix<float>::from_triplets(ctx(), 2, 2, std::vector<int>{0}, std::vector<int>{0}, two),
        loom::length_error);
    const loom::sparse_matrix<float> A(ctx(), 2, 3, ptr{0, 1, 2}, ptr{0, 2}, two);
    const loom::vector<float> x(ctx(), 4);
    CHECK(has(error_of([&] { loom::vector<float> y = A * x; }), "x needs 3"));
    // y of another length than A's rows: a length_error (the rows' arrays are read at the
    // element, unchecked), y unchanged.
    const loom::vector<float> x3(ctx(), 3, 1.0f);
    loom::vector<float> y5(ctx(), 5, 7.0f);
    CHECK_THROWS_AS(y5 = A * x3, loom::length_error);
    CHECK(y5.to_host() == std::vector<float>(5, 7.0f));
    const loom::sparse_matrix<float> empty;
    CHECK(has(error_of([&] { loom::vector<float> y = empty * x; }), "empty loom::sparse_matrix"));
    CHECK(has(error_of([] { loom::sparse_layout::sliced_ell(3); }), "a power of two of rows, 2 to 1024"));
    CHECK(has(error_of([] { loom::sparse_layout::sliced_ell(2048); }), "a power of two of rows, 2 to 1024"));
}
