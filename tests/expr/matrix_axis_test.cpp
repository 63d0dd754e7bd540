// Reductions along an axis of a 2-D expression (loom::sum(e, loom::axis<1>) and the others)
// against host folds at odd shapes, in float, double and integers, fused and unfused; the
// input is computed inside the one kernel (matvec, N-Body's pairwise terms); the plan is reused.
#include "matrix_support.hpp"

#include <cmath>
#include <limits>

using namespace loom_test;
using namespace loom_matrix_test;

namespace {

// The values of a 1-D expression (a reduction's result), through a vector.
template <class E> auto host_of(const E& e) { return loom::vector<loom::value_type_t<E>>(e).to_host(); }

// Per row (axis 1) or column (axis 0) of an R x C host matrix given by value(i, j): the sum in
// double and the sum of magnitudes (for the error bound).
template <class F> void host_sums(std::size_t R, std::size_t C, int axis, const F& value, std::vector<double>& sum,
                                  std::vector<double>& magnitude) {
    const std::size_t n = axis == 1 ? R : C;
    sum.assign(n, 0.0);
    magnitude.assign(n, 0.0);
    for (std::size_t i = 0; i < R; ++i)
        for (std::size_t j = 0; j < C; ++j) {
            const double v = double(value(i, j));
            sum[axis == 1 ? i : j] += v;
            magnitude[axis == 1 ? i : j] += std::fabs(v);
        }
}

// |got - sum| <= gamma_k * magnitude, k the longest chain of additions: a row or column's
// length plus the lanes' or the tree's steps (docs/matrices.md).
template <class T> void check_sums(const std::string& what, const std::vector<T>& got, const std::vector<double>& sum,
                                   const std::vector<double>& magnitude, std::size_t folded) {
    const double u = std::is_same_v<T, float> ? 0x1p-24 : 0x1p-53;
    const double k = double(folded + 64);
    std::size_t bad = 0;
    std::string first;
    REQUIRE(got.size() == sum.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double bound = k * u / (1 - k * u) * magnitude[i];
        if (std::fabs(double(got[i]) - sum[i]) > bound && bad++ < 4)
            first += "\n  [" + std::to_string(i) + "] got " + show(got[i]) + ", want " + show(sum[i]);
    }
    INFO(what, ": ", bad, " of ", got.size(), " differ beyond the bound", first);
    CHECK(bad == 0);
}

template <class T> void float_sums(loom::context& c, std::uint64_t stream) {
    for (const extents& e : shapes()) {
        CAPTURE(describe(e));
        CAPTURE(type_name<T>());
        const std::size_t R = e.rows, C = e.cols;
        const std::vector<T> ha = random_matrix<T>(e, T(-1), T(1), stream),
                             hx = random_values<T>(C, T(-1), T(1), stream + 1),
                             hy = random_values<T>(R, T(-1), T(1), stream + 2);
        loom::matrix<T> A(c, R, C, ha);
        loom::vector<T> x(c, hx), y(c, hy);
        const loom::vector<T> rows = loom::sum(A, loom::axis<1>);
        const loom::vector<T> cols = loom::sum(A, loom::axis<0>);
        const loom::vector<T> matvec = loom::sum(A * loom::as_row(x), loom::axis<1>);
        const loom::vector<T> weighted = loom::sum(A * loom::as_column(y) + loom::as_row(x), loom::axis<0>);
        std::vector<double> s, m;
        host_sums(
            R, C, 1, [&](std::size_t i, std::size_t j) { return ha[i * C + j]; }, s, m);
        check_sums("sum(A, axis<1>)", rows.to_host(), s, m, C);
        host_sums(
            R, C, 0, [&](std::size_t i, std::size_t j) { return ha[i * C + j]; }, s, m);
        check_sums("sum(A, axis<0>)", cols.to_host(), s, m, R);
        host_sums(
            R, C, 1, [&](std::size_t i, std::size_t j) { return T(ha[i * C + j] * hx[j]); }, s, m);
        check_sums("sum(A * as_row(x), axis<1>)", matvec.to_host(), s, m, C);
        host_sums(
            R, C, 0, [&](std::size_t i, std::size_t j) { return T(ha[i * C + j] * hy[i] + hx[j]); }, s, m);
        check_sums("sum(A * as_column(y) + as_row(x), axis<0>)", weighted.to_host(), s, m, R);
    }
}

template <class T> void integer_folds(loom::context& c, std::uint64_t stream) {
    for (const extents& e : shapes()) {
        CAPTURE(describe(e));
        CAPTURE(type_name<T>());
        const std::size_t R = e.rows, C = e.cols;
        const std::vector<T> ha = random_matrix<T>(e, T(-100), T(100), stream);
        std::vector<T> hp = random_matrix<T>(e, T(0), T(2), stream + 1); // -1, 1 or 2: products fit 64 bits
        for (T& v : hp) v = v == 0 ? T(-1) : v;
        loom::matrix<T> A(c, R, C, ha), P(c, R, C, hp);
        const loom::vector<T> sum1 = loom::sum(A, loom::axis<1>), sum0 = loom::sum(A, loom::axis<0>);
        const loom::vector<std::int64_t> by_col =
            loom::sum(loom::cast<std::int64_t>(loom::index<1>()) * A, loom::axis<1>);
        const loom::vector<std::int64_t> by_row =
            loom::sum(loom::cast<std::int64_t>(loom::index<0>()) * A, loom::axis<0>);
        const loom::vector<std::int64_t> prod1 = loom::product(loom::cast<std::int64_t>(P), loom::axis<1>);
        const loom::vector<T> min0 = loom::min(A, loom::axis<0>), max1 = loom::max(A, loom::axis<1>);
        const T limit = T(1000);
        const loom::vector<T> saturated = loom::reduce( // a user operation with a capture
            loom::abs(A), T(0), [limit](auto a, auto b) { return loom::min(a + b, limit); }, loom::axis<1>);
        std::vector<T> s1(R, 0), s0(C, 0), mx(R, std::numeric_limits<T>::lowest()),
            mn(C, std::numeric_limits<T>::max()), sat(R, 0);
        std::vector<std::int64_t> bc(R, 0), br(C, 0), p1(R, 1);
        for (std::size_t i = 0; i < R; ++i)
            for (std::size_t j = 0; j < C; ++j) {
                const T a = ha[i * C + j];
                s1[i] = T(s1[i] + a);
                s0[j] = T(s0[j] + a);
                bc[i] += std::int64_t(j) * a;
                br[j] += std::int64_t(i) * a;
                p1[i] *= hp[i * C + j];
                mn[j] = std::min(mn[j], a);
                mx[i] = std::max(mx[i], a);
                sat[i] = std::min<T>(T(sat[i] + (a < 0 ? -a : a)), limit);
            }
        check_elements("sum(A, axis<1>)", sum1.to_host(), s1);
        check_elements("sum(A, axis<0>)", sum0.to_host(), s0);
        check_elements("sum(index<1>() * A, axis<1>)", by_col.to_host(), bc);
        check_elements("sum(index<0>() * A, axis<0>)", by_row.to_host(), br);
        check_elements("product(P, axis<1>)", prod1.to_host(), p1);
        check_elements("min(A, axis<0>)", min0.to_host(), mn);
        check_elements("max(A, axis<1>)", max1.to_host(), mx);
        check_elements("reduce(abs(A), saturating +, axis<1>)", saturated.to_host(), sat);
    }
}

} // namespace

TEST_CASE("sums_along_either_axis_match_the_host_within_the_error_bound_fused_and_unfused") {
    for (int fuse : {1, 0}) {
        CAPTURE(fuse);
        float_sums<float>(context_with(fuse), 100);
        float_sums<double>(context_with(fuse), 200);
    }
}

TEST_CASE("integer_sums_products_minima_maxima_and_user_operations_along_an_axis_are_exact") {
    for (int fuse : {1, 0}) {
        CAPTURE(fuse);
        integer_folds<std::int32_t>(context_with(fuse), 300);
        integer_folds<std::int64_t>(context_with(fuse), 400);
    }
}

// On a CPU device an axis pass folds 16 columns a step as vectors where its body allows
// (codegen/lane_vectors.hpp) and as scalars where it does not (here: a select whose condition
// differs per element). Both forms fold the lanes in one order, so the same values give the same
// bits either way. The light vector body also folds four long rows a step (axis_pass.cpp's
// lanes_rows), each in its own order: 67 rows of 4099 take blocks of four and rows left over.
TEST_CASE("an axis fold gives the same bits whether its kernel holds the lanes as vectors or as scalars") {
    for (int fuse : {1, 0}) {
        CAPTURE(fuse);
        loom::context& c = context_with(fuse);
        for (const extents& e :
             {extents{5, 77}, extents{77, 5}, extents{33, 16}, extents{3, 500}, extents{67, 4099}}) {
            CAPTURE(describe(e));
            const std::vector<float> ha = random_matrix<float>(e, -1.0f, 1.0f, 700),
                                     hx = random_values<float>(e.cols, -1.0f, 1.0f, 701);
            loom::matrix<float> A(c, e.rows, e.cols, ha);
            loom::vector<float> x(c, hx);
            const auto terms = A * loom::as_row(x) + 0.25f;
            const auto same_terms = loom::where(A > 2.0f, 0.0f, terms); // A <= 1: always the terms
            const float limit = 1e30f;
            auto capped = [limit](auto a, auto b) { return loom::min(a + b, limit); };
            for (int axis : {1, 0}) {
                CAPTURE(axis);
                auto fold = [&](const auto& t) {
                    return axis == 1 ? loom::vector<float>(loom::sum(t, loom::axis<1>)).to_host()
                                     : loom::vector<float>(loom::sum(t, loom::axis<0>)).to_host();
                };
                auto user = [&](const auto& t) {
                    return axis == 1 ? loom::vector<float>(loom::reduce(t, 0.0f, capped, loom::axis<1>)).to_host()
                                     : loom::vector<float>(loom::reduce(t, 0.0f, capped, loom::axis<0>)).to_host();
                };
                const std::vector<float> vectors = fold(terms), scalars = fold(same_terms);
                CHECK(vectors == scalars);
                CHECK(user(terms) == user(same_terms));
                std::vector<double> sum, magnitude;
                host_sums(
                    e.rows, e.cols, axis,
                    [&](std::size_t i, std::size_t j) { return ha[i * e.cols + j] * hx[j] + 0.25f; }, sum, magnitude);
                check_sums("sum(A * as_row(x) + 0.25f)", vectors, sum, magnitude, axis == 1 ? e.cols : e.rows);
            }
        }
    }
}

TEST_CASE("min_and_max_along_an_axis_skip_nan_and_give_the_identity_for_a_row_of_none") {
    loom::context& c = context_with(1);
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    // 3 x 20: row 0 has a NaN among numbers, row 1 is all NaN, row 2 plain.
    std::vector<float> h(60);
    for (std::size_t j = 0; j < 20; ++j) {
        h[j] = j == 7 ? nan : float(j) - 5.0f;
        h[20 + j] = nan;
        h[40 + j] = float(j % 7) * 0.5f;
    }
    loom::matrix<float> A(c, 3, 20, h);
    CHECK(host_of(loom::min(A, loom::axis<1>)) == std::vector<float>{-5.0f, inf, 0.0f});
    CHECK(host_of(loom::max(A, loom::axis<1>)) == std::vector<float>{14.0f, -inf, 3.0f});
    const std::vector<float> col_min = host_of(loom::min(A, loom::axis<0>));
    CHECK(col_min[7] == 0.0f); // the NaN in (0, 7) and (1, 7) skipped: (2, 7) is 0
    CHECK(col_min[0] == -5.0f);
}

TEST_CASE("an_axis_reduction_runs_the_pending_statements_first_and_reads_what_they_wrote") {
    const extents e{37, 53};
    const std::vector<float> ha = random_matrix<float>(e, -1.0f, 1.0f, 500),
                             hx = random_values<float>(e.cols, -1, 1, 501);
    std::vector<float> results[2];
    for (int fuse : {1, 0}) {
        loom::context& c = context_with(fuse);
        loom::matrix<float> A(c, e.rows, e.cols, ha), B(c, e.rows, e.cols);
        loom::vector<float> x(c, hx);
        B = A * 2.0f; // pending
        x = x + 1.0f; // pending, read through a broadcast below
        const loom::vector<float> y = loom::sum(B * loom::as_row(x), loom::axis<1>);
        results[fuse] = y.to_host();
    }
    CHECK(results[0] == results[1]); // the same kernel over the same values
    std::vector<double> s, m;
    host_sums(
        e.rows, e.cols, 1, [&](std::size_t i, std::size_t j) { return (ha[i * e.cols + j] * 2.0f) * (hx[j] + 1.0f); },
        s, m);
    check_sums("sum(B * as_row(x), axis<1>) after pending statements", results[1], s, m, e.cols);
}

TEST_CASE("nbody_pairwise_terms_reduce_in_one_kernel_without_an_n_by_n_temporary_and_reuse_their_plan") {
    const std::size_t n = 300;
    const std::vector<float> hx = random_values<float>(n, -1, 1, 600), hy = random_values<float>(n, -1, 1, 601),
                             hm = random_values<float>(n, 0.5f, 1.5f, 602);
    loom::context& c = context_with(1);
    loom::vector<float> px(c, hx), py(c, hy), m(c, hm), ax(c, n);
    const float eps2 = 1e-3f;
    auto step = [&] {
        const auto dx = loom::as_row(px) - loom::as_column(px); // (i, j): px[j] - px[i]
        const auto dy = loom::as_row(py) - loom::as_column(py);
        const auto r2 = dx * dx + dy * dy + eps2;
        const auto inv_r = loom::rsqrt(r2);
        ax = loom::sum(loom::as_row(m) * dx * inv_r * inv_r * inv_r, loom::axis<1>);
    };
    step();
    c.finish();
    const loom::context_statistics before = c.statistics();
    step(); // the same expression again: planned and compiled once
    c.finish();
    const loom::context_statistics after = c.statistics();
    CHECK(after.kernels_compiled == before.kernels_compiled);
    // The reduction alone, whose result ax takes with no copy kernel: no n x n kernel or store.
    CHECK(after.kernels_launched - before.kernels_launched == 1);
    const loom::flush_report r = loom::last_flush(c);
    REQUIRE(r.kernels.size() == 1);
    CHECK(r.statements == 1);
    const std::vector<float> got = ax.to_host();
    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double want = 0, scale = 0;
        for (std::size_t j = 0; j < n; ++j) {
            const double dx = double(hx[j]) - hx[i], dy = double(hy[j]) - hy[i];
            const double r2 = dx * dx + dy * dy + eps2;
            const double term = hm[j] * dx / (r2 * std::sqrt(r2));
            want += term;
            scale += std::fabs(term);
        }
        worst = std::max(worst, std::fabs(got[i] - want) / scale);
    }
    INFO("worst error relative to the sum of magnitudes: ", worst);
    CHECK(worst < 1e-4);
}

TEST_CASE("axis_reductions_of_empty_matrices_give_the_identity_and_errors_name_what_is_missing") {
    loom::context& c = context_with(1);
    loom::matrix<float> empty_rows(c, 0, 5), empty_cols(c, 5, 0);
    CHECK(host_of(loom::sum(empty_rows, loom::axis<1>)).empty());
    CHECK(host_of(loom::sum(empty_rows, loom::axis<0>)) == std::vector<float>(5, 0.0f));
    CHECK(host_of(loom::product(empty_cols, loom::axis<1>)) == std::vector<float>(5, 1.0f));
    CHECK(host_of(loom::min(empty_cols, loom::axis<1>)) ==
          std::vector<float>(5, std::numeric_limits<float>::infinity()));
    loom::vector<float> x(c, 4, 1.0f);
    CHECK_THROWS_WITH_AS(loom::sum(loom::as_row(x), loom::axis<1>), doctest::Contains("no rows"), loom::error);
    CHECK_THROWS_WITH_AS(loom::sum(loom::as_column(x), loom::axis<0>), doctest::Contains("no columns"), loom::error);
    loom::matrix<float> A(c, 3, 5);
    CHECK_THROWS_WITH_AS(loom::sum(A * loom::as_row(x), loom::axis<1>), doctest::Contains("3 x 5"), loom::length_error);
}

TEST_CASE("an_axis_reduction_is_a_1d_expression_assigned_in_place_and_composed_with_others") {
    loom::context& c = context_with(1);
    const extents e{37, 53};
    const std::vector<float> ha = random_matrix<float>(e, -1.0f, 1.0f, 700),
                             hx = random_values<float>(e.rows, -1, 1, 701);
    loom::matrix<float> A(c, e.rows, e.cols, ha);
    loom::vector<float> x(c, hx), y(c, e.rows), z(c, e.rows);
    const loom::detail::buffer* before = y.buffer().get();
    y = loom::sum(A, loom::axis<1>);            // into y's own memory
    z = 2.0f * loom::sum(A, loom::axis<1>) + x; // in a larger expression
    auto kept = loom::max(A, loom::axis<1>);    // an expression that owns its result
    A = 0.0f;                                   // ... computed when max was called
    const loom::vector<float> m = kept;
    CHECK(y.buffer().get() == before);
    const std::vector<float> hy = y.to_host(), hz = z.to_host(), hm = m.to_host();
    for (std::size_t i = 0; i < e.rows; ++i) {
        float mx = -std::numeric_limits<float>::infinity();
        for (std::size_t j = 0; j < e.cols; ++j) mx = std::max(mx, ha[i * e.cols + j]);
        CHECK(hz[i] == 2.0f * hy[i] + hx[i]);
        CHECK(hm[i] == mx);
    }
    CHECK(loom::sum(loom::sum(A, loom::axis<0>)) == 0.0f); // a full reduction of an axis reduction
}

TEST_CASE("an_axis_reduction_inside_loop_while_is_guarded_and_the_loop_ends_exactly") {
    loom::context& c = context_with(1);
    const std::size_t n = 37;
    loom::matrix<float> A(c, n, n);
    A = loom::where(loom::index<0>() == loom::index<1>(), 0.5f, 0.0f); // x -> x / 2
    for (std::uint64_t k : {1u, 4u}) {
        CAPTURE(k);
        loom::vector<float> x(c, n, 1024.0f);
        loom::scalar<float> top = loom::max(x, loom::on_device);
        const std::uint64_t ran = loom::loop_while(
            c, top > 1.0f,
            [&] {
                x = loom::sum(A * loom::as_row(x), loom::axis<1>);
                top = loom::max(x, loom::on_device);
            },
            k);
        CHECK(ran == 10);
        CHECK(x.to_host() == std::vector<float>(n, 1.0f));
    }
}

TEST_CASE("equal host numbers in a reduction's input share one parameter, and unequal ones never do") {
    // One expression type, run with equal and then unequal scalars: the plan is keyed by which
    // values are equal, so the kernel that merged them is not reused for different values.
    const std::size_t R = 7, C = 45;
    const auto ha = random_values<float>(R * C, -1.0f, 1.0f, 3101);
    loom::matrix<float> A(ctx(), R, C, ha);
    const auto hx = random_values<float>(C * 3, -1.0f, 1.0f, 3102);
    loom::vector<float> x(ctx(), hx);
    auto run = [&](float p, float q, float r) {
        const auto rows = host_of(loom::sum(A * p + A * q - r, loom::axis<1>));
        const float total = loom::sum(x * p + x * q - r);
        for (std::size_t i = 0; i < R; ++i) {
            double want = 0;
            for (std::size_t j = 0; j < C; ++j) want += double(ha[i * C + j]) * p + double(ha[i * C + j]) * q - r;
            CHECK(rows[i] == doctest::Approx(want).epsilon(1e-5));
        }
        double want = 0;
        for (float v : hx) want += double(v) * p + double(v) * q - r;
        CHECK(total == doctest::Approx(want).epsilon(1e-5));
    };
    run(2.0f, 2.0f, 2.0f); // one parameter for all three
    run(2.0f, 3.0f, 2.0f);
    run(2.0f, 3.0f, 5.0f);
    run(4.0f, 4.0f, 1.0f);
}

TEST_CASE("a reduction over an empty axis keeps its identity values across a later flush") {
    // The fill of an empty axis's result is a statement into memory only the result names: it
    // must be stored, as a vector's would be, when the result is read after another flush.
    loom::matrix<float> empty(ctx(), 5, 0);
    auto r = loom::sum(empty, loom::axis<1>);
    loom::vector<float> other(ctx(), 9, 1.0f);
    (void)other.to_host(); // a flush before r is read
    loom::vector<float> y = r;
    CHECK(y.to_host() == std::vector<float>(5, 0.0f));
}
