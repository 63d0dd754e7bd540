// loom::reshape and loom::flatten: a vector's elements as a matrix and back without a copy.
// Writes through one are read through the other in statement order, fused or not; the
// element counts must match. Checked against host arithmetic.
#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <cstdint>
#include <vector>

#include "error_support.hpp"
#include "expr/support.hpp"

using namespace loom_test;

TEST_CASE("reshape: a vector seen as a matrix shares its buffer, in statement order, fused or not") {
    for (int fusion : {1, 0}) {
        CAPTURE(fusion);
        loom::context c(loom_test_errors::on_opencl(fusion));
        const std::size_t rows = 7, cols = 13;
        loom::vector<float> x(c, rows * cols);
        x = loom::cast<float>(loom::index());
        loom::matrix<float> m = loom::reshape(x, rows, cols);
        CHECK(m.rows() == rows);
        CHECK(m.cols() == cols);
        const std::uint64_t allocated = c.statistics().kernels_launched; // nothing copied when reshaping
        m = m * 2.0f + loom::cast<float>(loom::index<0>());              // through the matrix
        x = x + 1.0f;                                                    // then through the vector
        loom::vector<float> row_sums(c, rows);
        row_sums = loom::sum(m, loom::axis<1>);
        const std::vector<float> got = x.to_host(), sums = row_sums.to_host();
        for (std::size_t i = 0; i < rows; ++i) {
            float sum = 0;
            for (std::size_t j = 0; j < cols; ++j) {
                const float want = float(i * cols + j) * 2.0f + float(i) + 1.0f;
                REQUIRE(got[i * cols + j] == want);
                sum += want;
            }
            CHECK(sums[i] == doctest::Approx(sum));
        }
        CHECK(c.statistics().kernels_launched > allocated);
    }
}

TEST_CASE("flatten and reshape of a matrix name the same elements; counts must match") {
    loom::matrix<int> a(ctx(), 3, 4, 5);
    loom::vector<int> flat = loom::flatten(a);
    CHECK(flat.size() == 12);
    flat = flat + loom::cast<int>(loom::index());
    loom::matrix<int> b = loom::reshape(a, 4, 3);
    b = b * 10;
    const std::vector<int> got = a.to_host();
    for (int i = 0; i < 12; ++i) REQUIRE(got[std::size_t(i)] == (5 + i) * 10);
    const std::string message = loom_test_errors::error_of([&] { (void)loom::reshape(flat, 5, 3); });
    CHECK(loom_test_errors::has(message, "12 elements is not a 5 x 3 matrix"));
    CHECK_THROWS_AS((void)loom::reshape(flat, 5, 3), loom::length_error);
}
