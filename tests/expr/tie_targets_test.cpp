// loom::tie of views, matrix rows, columns and blocks, and a tie that throws leaving every
// vector as it was (every target and value is checked before the first output is recorded).
#include "support.hpp"

using namespace loom_test;

namespace {

std::vector<float> iota_values(std::size_t n, float first) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = first + float(i);
    return v;
}

} // namespace

TEST_CASE("loom::tie swaps two rows of a matrix and writes a row and a column together") {
    constexpr std::size_t rows = 4, cols = 5;
    const std::vector<float> hm = iota_values(rows * cols, 0.0f);
    loom::matrix<float> m(ctx(), rows, cols, hm);
    loom::tie(m.row(1), m.row(2)) = std::make_tuple(m.row(2), m.row(1));
    std::vector<float> want = hm;
    for (std::size_t j = 0; j < cols; ++j) std::swap(want[1 * cols + j], want[2 * cols + j]);
    CHECK(m.elements().to_host() == want);

    // Row 0 and column 4 share element (0, 4): the column is written second, so it wins there.
    const std::vector<float> hc = {-1, -2, -3, -4};
    loom::vector<float> c(ctx(), hc);
    loom::tie(m.row(0), m.col(4)) = std::make_tuple(m.row(3) * 2.0f, c);
    for (std::size_t j = 0; j < cols; ++j) want[j] = want[3 * cols + j] * 2.0f;
    for (std::size_t i = 0; i < rows; ++i) want[i * cols + 4] = hc[i];
    CHECK(m.elements().to_host() == want);
}

TEST_CASE("loom::tie of a strided slice and a vector reads every value before writing") {
    constexpr std::size_t n = 6;
    const std::vector<float> hx = iota_values(2 * n, 0.0f), hy = iota_values(n, 100.0f);
    loom::vector<float> x(ctx(), hx), y(ctx(), hy);
    // The even elements of x take 2y; y takes the odd elements of x (as they were).
    loom::tie(x.slice(0, n, 2), y) = std::make_tuple(y * 2.0f, x.slice(1, n, 2));
    std::vector<float> want_x = hx, want_y(n);
    for (std::size_t i = 0; i < n; ++i) {
        want_x[2 * i] = hy[i] * 2.0f;
        want_y[i] = hx[2 * i + 1];
    }
    CHECK(x.to_host() == want_x);
    CHECK(y.to_host() == want_y);
    // A reversed view as a target.
    loom::tie(loom::reversed(y), x.slice(1, n, 2)) = std::make_tuple(x.slice(1, n, 2), 0.5f);
    std::vector<float> want_y2(n);
    for (std::size_t i = 0; i < n; ++i) want_y2[n - 1 - i] = want_x[2 * i + 1];
    for (std::size_t i = 0; i < n; ++i) want_x[2 * i + 1] = 0.5f;
    CHECK(y.to_host() == want_y2);
    CHECK(x.to_host() == want_x);
}

TEST_CASE("loom::tie of matrix blocks, one of them read by the other's value") {
    constexpr std::size_t rows = 4, cols = 4;
    const std::vector<double> hm = [] {
        std::vector<double> v(rows * cols);
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = double(i);
        return v;
    }();
    loom::matrix<double> m(ctx(), rows, cols, hm);
    loom::vector<double> v(ctx(), std::vector<double>{1, 2, 3});
    // The top-left block takes the bottom-right one plus 1; the bottom-right takes the top-left
    // (as it was) times 10; v triples.
    loom::tie(m.block(0, 0, 2, 2), m.block(2, 2, 2, 2), v) =
        std::make_tuple(m.block(2, 2, 2, 2) + 1.0, m.block(0, 0, 2, 2) * 10.0, v * 3.0);
    std::vector<double> want = hm;
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 2; ++j) {
            want[i * cols + j] = hm[(i + 2) * cols + j + 2] + 1.0;
            want[(i + 2) * cols + j + 2] = hm[i * cols + j] * 10.0;
        }
    CHECK(m.elements().to_host() == want);
    CHECK(v.to_host() == std::vector<double>{3, 6, 9});
}

TEST_CASE("a loom::tie that throws leaves every target as it was") {
    const std::vector<float> ha = {1, 2, 3, 4}, hb = {5, 6, 7, 8}, hc = {9, 10, 11};
    loom::vector<float> a(ctx(), ha), b(ctx(), hb), c(ctx(), hc);
    // A later target of another length than its value.
    CHECK_THROWS_AS((loom::tie(a, c) = std::make_tuple(b * 1.0f, b * 2.0f)), loom::length_error);
    // A later value of the wrong length, or from another context.
    loom::vector<float> short_one(ctx(), 3, 1.0f), elsewhere(other_ctx(), 4, 1.0f);
    CHECK_THROWS_AS((loom::tie(a, b) = std::make_tuple(b + 1.0f, short_one + 1.0f)), loom::length_error);
    CHECK_THROWS_AS((loom::tie(a, b) = std::make_tuple(b + 1.0f, elsewhere + 1.0f)), loom::error);
    // A view target whose value has another length, after a vector target.
    CHECK_THROWS_AS((loom::tie(a, b.slice(0, 2)) = std::make_tuple(b * 3.0f, c)), loom::error);
    // A block whose value has another shape.
    loom::matrix<float> m(ctx(), 2, 2, ha), wide(ctx(), 2, 3, 0.0f);
    CHECK_THROWS_AS((loom::tie(a, m.block(0, 0, 2, 2)) = std::make_tuple(b * 4.0f, wide * 2.0f)), loom::length_error);
    CHECK(a.to_host() == ha);
    CHECK(b.to_host() == hb);
    CHECK(c.to_host() == hc);
    CHECK(m.elements().to_host() == ha);
    // After the failures, a good tie works and runs only its own statements.
    loom::tie(a, c) = std::make_tuple(b * 2.0f, c + 1.0f);
    CHECK(a.to_host() == std::vector<float>{10, 12, 14, 16});
    CHECK(c.to_host() == std::vector<float>{10, 11, 12});
}
