// loom::strided: a 2-D strided view of a vector, read and assigned in vector statements, matrix
// statements and reductions, checked against host loops; its bounds checked at the call.
#include "support.hpp"

using namespace loom_test;

namespace {

// The host reference of a strided view: element (i, j) of rows x cols.
std::vector<float> host_view(const std::vector<float>& x, std::int64_t start, std::size_t rows, std::size_t cols,
                             std::int64_t rs, std::int64_t cs) {
    std::vector<float> r;
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j)
            r.push_back(x[std::size_t(start + std::int64_t(i) * rs + std::int64_t(j) * cs)]);
    return r;
}

} // namespace

TEST_CASE("a strided view reads a sub-grid in row-major order, in vector and matrix statements") {
    constexpr std::size_t nx = 10, ny = 6;
    const std::vector<float> hx = random_values<float>(nx * ny, -4.0f, 4.0f, 3501);
    loom::vector<float> x(ctx(), hx);
    // Rows 1..3, columns 2, 4, 6, 8 of a 10-wide grid.
    auto sub = loom::strided(x, 12, 3, 4, 10, 2);
    loom::vector<float> y(ctx(), 12);
    y = sub * 2.0f + 1.0f;
    std::vector<float> want = host_view(hx, 12, 3, 4, 10, 2);
    for (float& v : want) v = v * 2.0f + 1.0f;
    CHECK(y.to_host() == want);
    // A vector built from a view takes its size.
    loom::vector<float> copy = loom::strided(x, 59, 2, 3, -10, -1); // negative strides: backwards
    CHECK(copy.to_host() == host_view(hx, 59, 2, 3, -10, -1));
    // Column-major data viewed as a matrix (the transpose of the storage), in a matrix statement
    // with positions.
    loom::matrix<float> m(ctx(), nx, ny);
    m = loom::strided(x, 0, nx, ny, 1, std::int64_t(nx)) + loom::cast<float>(loom::index<0>() * 100);
    std::vector<float> want_m(nx * ny);
    for (std::size_t i = 0; i < nx; ++i)
        for (std::size_t j = 0; j < ny; ++j) want_m[i * ny + j] = hx[j * nx + i] + float(i * 100);
    CHECK(m.elements().to_host() == want_m);
    // A reduction of a view, and a zero stride (a row repeated, readable).
    float want_sum = 0;
    for (float v : host_view(hx, 12, 3, 4, 10, 2)) want_sum += v;
    CHECK(loom::sum(sub) == doctest::Approx(want_sum).epsilon(1e-5));
    loom::vector<float> repeated(ctx(), 8);
    repeated = loom::strided(x, 3, 2, 4, 0, 1);
    CHECK(repeated.to_host() == host_view(hx, 3, 2, 4, 0, 1));
}

TEST_CASE("assigning a strided view writes only its elements; overlap reads the old values") {
    constexpr std::size_t nx = 8, ny = 5;
    const std::vector<float> hx = random_values<float>(nx * ny, -4.0f, 4.0f, 3502);
    loom::vector<float> x(ctx(), hx), v(ctx(), std::vector<float>{1, 2, 3, 4, 5, 6});
    // A 2 x 3 block at (1, 2): a vector value of 6 elements.
    loom::strided(x, 1 * nx + 2, 2, 3, nx, 1) = v * 10.0f;
    std::vector<float> want = hx;
    for (std::size_t i = 0; i < 2; ++i)
        for (std::size_t j = 0; j < 3; ++j) want[(1 + i) * nx + 2 + j] = float(i * 3 + j + 1) * 10.0f;
    CHECK(x.to_host() == want);
    // A value with positions: element (i, j) of the view takes 10 i + j.
    loom::strided(x, 0, 3, 2, 2 * nx, 3) = loom::cast<float>(loom::index<0>() * 10 + loom::index<1>());
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 2; ++j) want[i * 2 * nx + j * 3] = float(i * 10 + j);
    CHECK(x.to_host() == want);
    // The value reads the vector the view writes, at other elements: computed whole first.
    auto left = loom::strided(x, 0, ny, 4, nx, 1), right = loom::strided(x, 3, ny, 4, nx, 1);
    left = right + 0.5f; // columns 0..3 take columns 3..6 as they were (column 3 overlaps)
    std::vector<float> before = want;
    for (std::size_t i = 0; i < ny; ++i)
        for (std::size_t j = 0; j < 4; ++j) want[i * nx + j] = before[i * nx + 3 + j] + 0.5f;
    CHECK(x.to_host() == want);
    // Compound assignment.
    right *= 2.0f;
    before = want;
    for (std::size_t i = 0; i < ny; ++i)
        for (std::size_t j = 0; j < 4; ++j) want[i * nx + 3 + j] = before[i * nx + 3 + j] * 2.0f;
    CHECK(x.to_host() == want);
}

TEST_CASE("a strided view outside its vector, or assigned with a zero stride, is an error") {
    loom::vector<float> x(ctx(), 20, 1.0f), w(ctx(), 5, 1.0f);
    CHECK_THROWS_WITH_AS(loom::strided(x, 0, 3, 4, 10, 1), doctest::Contains("reaches element 23"), loom::error);
    CHECK_THROWS_WITH_AS(loom::strided(x, 2, 2, 2, -5, 1), doctest::Contains("reaches element -3"), loom::error);
    CHECK_THROWS_AS(loom::strided(x, 0, 2, 2, INT64_MAX, 1), loom::error);
    CHECK_THROWS_WITH_AS((loom::strided(x, 0, 2, 3, 0, 1) = 2.0f), doctest::Contains("zero stride"), loom::error);
    // A value of another shape.
    CHECK_THROWS_AS((loom::strided(x, 0, 2, 2, 10, 1) = w * 2.0f), loom::length_error);
    CHECK(x.to_host() == std::vector<float>(20, 1.0f));
}
