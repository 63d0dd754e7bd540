// A vector assigned a temporary result that alone holds its memory (a reduction along an axis)
// takes that memory instead of copying it (detail::adopt_memory), and copies as before wherever
// the exchange could be seen: a named result, pending statements, a loop, a native handle, an
// earlier target of a tie. Values against the host in every case.
#include <cmath>

#include "support.hpp"

#include "loom/interop.hpp"

using namespace loom_test;

namespace {

struct problem {
    std::size_t rows = 37, cols = 29;
    std::vector<float> a = random_values<float>(rows * cols, -1.0f, 1.0f, 2100),
                       x = random_values<float>(cols, -1.0f, 1.0f, 2101);
    // Row sums of A * x, and of A * x * x, in the order the axis pass folds them is not the
    // host's: compared with a tolerance.
    std::vector<double> row_sums(int power) const {
        std::vector<double> out(rows, 0.0);
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < cols; ++j) out[i] += double(a[i * cols + j]) * std::pow(double(x[j]), power);
        return out;
    }
};

void check_near(const std::vector<float>& got, const std::vector<double>& want) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-5));
}

std::uint64_t launches(loom::context& c) { return c.statistics().kernels_launched; }

} // namespace

TEST_CASE("y = loom::sum(..., axis) takes the result's memory: no copy kernel, and y's aliases see it") {
    const problem p;
    loom::context c;
    loom::matrix<float> A(c, p.rows, p.cols, p.a);
    loom::vector<float> x(c, p.x), y(c, p.rows, -1.0f);
    loom::matrix<float> Y = loom::reshape(y, 1, p.rows); // the same buffer as y
    c.finish();
    const std::uint64_t before = launches(c);
    y = loom::sum(A * loom::as_row(x), loom::axis<1>);
    c.finish();
    CHECK(launches(c) - before == 1); // the reduction alone
    check_near(y.to_host(), p.row_sums(1));
    check_near(Y.to_host(), p.row_sums(1));
    // Again over the memory y gave up: the next result takes another.
    y = loom::sum(A * loom::as_row(x) * loom::as_row(x), loom::axis<1>);
    check_near(y.to_host(), p.row_sums(2));
    // A vector built from a result takes it too.
    c.finish();
    const std::uint64_t built = launches(c);
    loom::vector<float> z = loom::sum(A * loom::as_row(x), loom::axis<1>);
    c.finish();
    CHECK(launches(c) - built == 1);
    CHECK(z.size() == p.rows);
    check_near(z.to_host(), p.row_sums(1));
}

TEST_CASE("a result that is named, or meets pending statements, a loop or a native handle, is copied") {
    const problem p;
    loom::context c;
    loom::matrix<float> A(c, p.rows, p.cols, p.a);
    loom::vector<float> x(c, p.x), y(c, p.rows, 0.0f), z(c, p.rows, 0.0f), w(c, p.rows, 0.0f);
    c.finish();

    // Named: y = r copies, and r stays valid for z.
    {
        auto r = loom::sum(A * loom::as_row(x), loom::axis<1>);
        y = r;
        z = r * 2.0f;
        check_near(y.to_host(), p.row_sums(1));
        std::vector<double> twice = p.row_sums(1);
        for (double& v : twice) v *= 2;
        check_near(z.to_host(), twice);
    }

    // A statement recorded after the reduction and before the assignment reads y's old values.
    {
        y = 5.0f;
        c.finish();
        auto r = loom::sum(A * loom::as_row(x), loom::axis<1>);
        w = y + 1.0f; // pending when y is assigned
        y = std::move(r);
        CHECK(w.to_host() == std::vector<float>(p.rows, 6.0f));
        check_near(y.to_host(), p.row_sums(1));
    }

    // A vector whose native handle the caller holds keeps its memory.
    {
        const std::uint64_t handle = z.native_handle().value();
        z = loom::sum(A * loom::as_row(x), loom::axis<1>);
        CHECK(z.native_handle().value() == handle);
        check_near(z.to_host(), p.row_sums(1));
    }
    // Inside loom::loop_while the assignment is recorded as always (its kernels are guarded):
    // matrix_axis_test.cpp's an_axis_reduction_inside_loop_while_is_guarded_and_the_loop_ends_exactly.
}

TEST_CASE("loom::tie of temporary results takes their memory; a value reading an earlier target is copied") {
    const problem p;
    loom::context c;
    loom::matrix<float> A(c, p.rows, p.cols, p.a);
    loom::vector<float> x(c, p.x), s(c, p.rows), q(c, p.rows, 3.0f);
    c.finish();
    const std::uint64_t before = launches(c);
    loom::tie(s, q) =
        loom::sum(std::make_tuple(A * loom::as_row(x), A * loom::as_row(x) * loom::as_row(x)), loom::axis<1>);
    c.finish();
    CHECK(launches(c) - before == 1);
    check_near(s.to_host(), p.row_sums(1));
    check_near(q.to_host(), p.row_sums(2));

    // q's value reads s, an earlier target: it is computed first, so s's result is copied.
    q = 0.0f;
    s = 2.0f;
    loom::tie(s, q) = std::make_tuple(loom::sum(A * loom::as_row(x), loom::axis<1>), s + 1.0f);
    check_near(s.to_host(), p.row_sums(1));
    CHECK(q.to_host() == std::vector<float>(p.rows, 3.0f));
}

TEST_CASE("a matrix built or assigned from a 3-D reduction takes its memory; a shape mismatch is still an error") {
    loom::context c;
    const std::size_t d0 = 3, d1 = 4, d2 = 5;
    const std::vector<float> ha = random_values<float>(d0 * d1 * d2, -1.0f, 1.0f, 2120);
    loom::array3<float> A(c, d0, d1, d2, ha);
    c.finish();
    std::vector<double> want(d0 * d1, 0.0);
    for (std::size_t i = 0; i < d0 * d1; ++i)
        for (std::size_t k = 0; k < d2; ++k) want[i] += ha[i * d2 + k];
    const std::uint64_t before = launches(c);
    loom::matrix<float> m = loom::sum(A, loom::axis<2>);
    m = loom::sum(A * 2.0f, loom::axis<2>);
    c.finish();
    CHECK(launches(c) - before == 2); // two reductions, no copies
    for (double& w : want) w *= 2;
    check_near(loom::flatten(m).to_host(), want);
    loom::matrix<float> wrong(c, d1, d0);
    CHECK_THROWS_AS(wrong = loom::sum(A, loom::axis<2>), loom::length_error);
}
