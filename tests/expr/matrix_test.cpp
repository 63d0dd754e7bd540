// loom::matrix: element-wise statements, index<0>/index<1>, broadcasting with as_row and
// as_column, row and column views, against host references at odd shapes, fused and unfused;
// matrix statements fuse as vector statements do; shape errors name both shapes.
#include "matrix_support.hpp"

#include <algorithm>

using namespace loom_test;
using namespace loom_matrix_test;
using doctest::Contains;

namespace {

// The message of the loom::error that f throws ("" and a failed check when it throws none).
template <class F> std::string message_of(F&& f) {
    try {
        f();
    } catch (const loom::error& e) {
        return e.what();
    }
    FAIL_CHECK("threw nothing");
    return "";
}

template <class T> T lo() { return std::is_floating_point_v<T> ? T(-4) : T(-50); }
template <class T> T hi() { return std::is_floating_point_v<T> ? T(4) : T(50); }

// Element-wise statements over every shape, recorded before one read-back, in T.
template <class T> void elementwise_statements(loom::context& c, std::uint64_t stream) {
    struct pending {
        extents e{0, 0};
        std::vector<T> a, b, x, y;
        std::shared_ptr<loom::matrix<T>> C, D, P, Q, S;
    };
    std::vector<pending> cases;
    for (const extents& e : shapes()) {
        pending p;
        p.e = e;
        p.a = random_matrix<T>(e, lo<T>(), hi<T>(), stream);
        p.b = random_matrix<T>(e, lo<T>(), hi<T>(), stream + 1);
        p.x = random_values<T>(e.cols, lo<T>(), hi<T>(), stream + 2);
        p.y = random_values<T>(e.rows, lo<T>(), hi<T>(), stream + 3);
        cases.push_back(std::move(p));
    }
    std::vector<std::shared_ptr<loom::matrix<T>>> keep_a, keep_b;
    std::vector<std::shared_ptr<loom::vector<T>>> keep_x, keep_y;
    for (pending& p : cases) { // uploads flush: all before the statements
        keep_a.push_back(std::make_shared<loom::matrix<T>>(c, p.e.rows, p.e.cols, p.a));
        keep_b.push_back(std::make_shared<loom::matrix<T>>(c, p.e.rows, p.e.cols, p.b));
        keep_x.push_back(std::make_shared<loom::vector<T>>(c, p.x));
        keep_y.push_back(std::make_shared<loom::vector<T>>(c, p.y));
    }
    for (std::size_t k = 0; k < cases.size(); ++k) {
        pending& p = cases[k];
        const loom::matrix<T>& A = *keep_a[k];
        const loom::matrix<T>& B = *keep_b[k];
        const loom::vector<T>& x = *keep_x[k];
        const loom::vector<T>& y = *keep_y[k];
        p.C = std::make_shared<loom::matrix<T>>(c, p.e.rows, p.e.cols);
        p.D = std::make_shared<loom::matrix<T>>(c, p.e.rows, p.e.cols);
        p.P = std::make_shared<loom::matrix<T>>(c, p.e.rows, p.e.cols);
        p.Q = std::make_shared<loom::matrix<T>>(c, p.e.rows, p.e.cols);
        *p.C = A * T(2) + B;
        *p.D = A - loom::as_row(x) * loom::as_column(y);
        *p.P = loom::cast<T>(loom::index<0>() * 7u + loom::index<1>());
        *p.Q = loom::where(loom::index<0>() == loom::index<1>(), A, B);                // the diagonal from A
        p.S = std::make_shared<loom::matrix<T>>(loom::as_row(x) - loom::as_column(y)); // shape from the broadcasts
    }
    for (const pending& p : cases) {
        CAPTURE(describe(p.e));
        CAPTURE(type_name<T>());
        const std::size_t R = p.e.rows, C = p.e.cols;
        std::vector<T> c_want(R * C), d_want(R * C), p_want(R * C), q_want(R * C), s_want(R * C);
        for (std::size_t i = 0; i < R; ++i)
            for (std::size_t j = 0; j < C; ++j) {
                const std::size_t k = i * C + j;
                c_want[k] = T(p.a[k] * T(2) + p.b[k]);
                d_want[k] = T(p.a[k] - T(p.x[j] * p.y[i]));
                p_want[k] = T(i * 7 + j);
                q_want[k] = i == j ? p.a[k] : p.b[k];
                s_want[k] = T(p.x[j] - p.y[i]);
            }
        check_elements("A * 2 + B", p.C->to_host(), c_want);
        check_elements("A - as_row(x) * as_column(y)", p.D->to_host(), d_want);
        check_elements("index<0>() * 7 + index<1>()", p.P->to_host(), p_want);
        check_elements("where(index<0>() == index<1>(), A, B)", p.Q->to_host(), q_want);
        CHECK(p.S->rows() == R);
        CHECK(p.S->cols() == C);
        check_elements("matrix S = as_row(x) - as_column(y)", p.S->to_host(), s_want);
    }
}

} // namespace

TEST_CASE("matrix_elementwise_statements_positions_and_broadcasts_match_the_host_fused_and_unfused") {
    for (int fuse : {1, 0}) {
        CAPTURE(fuse);
        loom::context& c = context_with(fuse);
        elementwise_statements<float>(c, 10);
        elementwise_statements<double>(c, 20);
        elementwise_statements<std::int32_t>(c, 30);
    }
}

TEST_CASE("matrix_statements_fuse_with_vector_statements_of_their_element_count") {
    const extents e{37, 53};
    const std::size_t n = e.rows * e.cols;
    const std::vector<float> ha = random_matrix<float>(e, -1.0f, 1.0f, 40),
                             hx = random_values<float>(e.cols, -1, 1, 41);
    for (int fuse : {1, 0}) {
        CAPTURE(fuse);
        loom::context& c = context_with(fuse);
        loom::matrix<float> A(c, e.rows, e.cols, ha), T(c, e.rows, e.cols), D(c, e.rows, e.cols);
        loom::vector<float> x(c, hx), v(c, n, 1.0f), w(c, n);
        c.finish();
        T = A * 2.0f + loom::as_row(x);                  // 0
        D = T * T + loom::cast<float>(loom::index<1>()); // 1: T in a register
        w = v + 1.0f;                                    // 2: a vector of rows * cols elements
        const std::vector<float> got = D.to_host();
        const loom::flush_report r = loom::last_flush(c);
        CHECK(r.statements == 3);
        CHECK(r.kernels.size() == (fuse ? 1u : 3u));
        std::vector<float> want(n);
        for (std::size_t i = 0; i < e.rows; ++i)
            for (std::size_t j = 0; j < e.cols; ++j) {
                const float t = ha[i * e.cols + j] * 2.0f + hx[j];
                want[i * e.cols + j] = t * t + float(j);
            }
        check_elements("fused matrix statements", got, want);
    }
}

TEST_CASE("a_broadcast_of_a_vector_the_kernel_writes_ends_the_kernel_as_a_gather_does") {
    const std::size_t n = 67; // a 1 x n matrix: the statement and the vector have one length
    loom::context& c = context_with(1);
    loom::vector<float> x(c, random_values<float>(n, -1, 1, 50));
    loom::matrix<float> M(c, 1, n);
    const std::vector<float> hx = x.to_host();
    x = x + 1.0f;               // 0
    M = loom::as_row(x) * 2.0f; // 1: reads x at the column, which statement 0 writes
    const std::vector<float> got = M.to_host();
    const loom::flush_report r = loom::last_flush(c);
    REQUIRE(r.kernels.size() == 2);
    CHECK(r.kernels[0].ends == "gather_read");
    std::vector<float> want(n);
    for (std::size_t j = 0; j < n; ++j) want[j] = (hx[j] + 1.0f) * 2.0f;
    check_elements("as_row of a written vector", got, want);
}

TEST_CASE("matrix_rows_and_columns_read_and_assign_as_views") {
    const extents e{37, 53};
    const std::vector<double> ha = random_matrix<double>(e, -1, 1, 60), hx = random_values<double>(e.cols, -1, 1, 61),
                              hy = random_values<double>(e.rows, -1, 1, 62);
    for (int fuse : {1, 0}) {
        CAPTURE(fuse);
        loom::context& c = context_with(fuse);
        loom::matrix<double> A(c, e.rows, e.cols, ha);
        loom::vector<double> x(c, hx), y(c, hy), r(c, e.cols), k(c, e.rows);
        A.row(3) = x * 2.0;       // a contiguous row
        A.col(5) = y + 1.0;       // a strided column, after the row: (3, 5) is the column's
        r = A.row(7) + A.row(36); // rows read like vectors
        k = A.col(0) * A.col(52); // columns too
        std::vector<double> want = ha;
        for (std::size_t j = 0; j < e.cols; ++j) want[3 * e.cols + j] = hx[j] * 2.0;
        for (std::size_t i = 0; i < e.rows; ++i) want[i * e.cols + 5] = hy[i] + 1.0;
        std::vector<double> r_want(e.cols), k_want(e.rows);
        for (std::size_t j = 0; j < e.cols; ++j) r_want[j] = want[7 * e.cols + j] + want[36 * e.cols + j];
        for (std::size_t i = 0; i < e.rows; ++i) k_want[i] = want[i * e.cols] * want[i * e.cols + 52];
        check_elements("A after row and column writes", A.to_host(), want);
        check_elements("A.row(7) + A.row(36)", r.to_host(), r_want);
        check_elements("A.col(0) * A.col(52)", k.to_host(), k_want);
    }
}

TEST_CASE("matrix_construction_copies_compound_assignment_and_elements") {
    loom::context& c = context_with(1);
    const extents e{3, 4};
    std::vector<int> h(12);
    for (int i = 0; i < 12; ++i) h[std::size_t(i)] = i;
    loom::matrix<int> A(c, 3, 4, h), B(c, 3, 4, 10), Z(c, 3, 4);
    CHECK(A.rows() == 3);
    CHECK(A.cols() == 4);
    CHECK(A.size() == 12);
    CHECK(Z.to_host() == std::vector<int>(12, 0));
    loom::matrix<int> C = A; // a device copy
    C += B;                  // C = C + B
    A(1, 2) = -1;            // one element through the host
    CHECK(int(A(1, 2)) == -1);
    CHECK(A.to_host()[6] == -1);
    std::vector<int> want(12);
    for (int i = 0; i < 12; ++i) want[std::size_t(i)] = i + 10;
    CHECK(C.to_host() == want);
    loom::matrix<int> D(c, 3, 4, h.data());
    D = 7;
    CHECK(D.to_host() == std::vector<int>(12, 7));
    loom::matrix<double> F(c, 3, 4);
    F = A; // another element type: converted
    CHECK(F(1, 2) == -1.0);
    std::vector<int> back;
    loom::copy(A, back);
    CHECK(back == A.to_host());
    loom::copy(want, A);
    CHECK(A.to_host() == want);
    loom::vector<int> flat(c, 12);
    flat = A.elements() * 2; // the elements as a vector: 1-D operations
    CHECK(flat.to_host()[11] == 2 * want[11]);
    CHECK(loom::sum(A) == 12 * 10 + 66); // a matrix is an operand of full reductions too
    loom::matrix<int> moved = std::move(C);
    CHECK(moved.rows() == 3);
    CHECK(C.rows() == 0);
    (void)e;
}

TEST_CASE("matrix_shape_errors_name_both_shapes_and_leave_the_target_unchanged") {
    loom::context& c = context_with(1);
    loom::matrix<float> A(c, 3, 4, 1.0f), B(c, 4, 3, 2.0f), C(c, 3, 4, 5.0f);
    loom::vector<float> x5(c, 5, 1.0f), x4(c, 4, 1.0f), v10(c, 10, 1.0f);
    std::string m = message_of([&] { C = A + B; });
    CHECK_MESSAGE(m.find("3 x 4") != std::string::npos, m);
    CHECK_MESSAGE(m.find("4 x 3") != std::string::npos, m);
    CHECK_THROWS_AS(C = A + B, loom::length_error);
    m = message_of([&] { C = B * 2.0f; });
    CHECK_MESSAGE(m.find("the target, a 3 x 4 matrix") != std::string::npos, m);
    m = message_of([&] { C = A * loom::as_row(x5); });
    CHECK_MESSAGE(m.find("as_row of a vector of 5 elements") != std::string::npos, m);
    CHECK_MESSAGE(m.find("3 x 4") != std::string::npos, m);
    m = message_of([&] { C = A * loom::as_column(x4); });
    CHECK_MESSAGE(m.find("as_column of a vector of 4 elements (4 x ?)") != std::string::npos, m);
    m = message_of([&] { C = A + v10; });
    CHECK_MESSAGE(m.find("a vector of 10 elements") != std::string::npos, m);
    CHECK_MESSAGE(m.find("as_row") != std::string::npos, m); // the hint
    CHECK(C.to_host() == std::vector<float>(12, 5.0f));

    m = message_of([&] { C.row(3); });
    CHECK_MESSAGE(m.find("row 3 is out of range for a 3 x 4 matrix") != std::string::npos, m);
    m = message_of([&] { C.col(4); });
    CHECK_MESSAGE(m.find("column 4 is out of range for a 3 x 4 matrix") != std::string::npos, m);
    m = message_of([&] { (void)float(C(0, 4)); });
    CHECK_MESSAGE(m.find("(0, 4)") != std::string::npos, m);
    m = message_of([&] { C.row(0) = x5; });
    CHECK_MESSAGE(m.find("length mismatch") != std::string::npos, m);
    m = message_of([&] { loom::matrix<float> H(c, 3, 4, std::vector<float>(11)); });
    CHECK_MESSAGE(m.find("3 x 4 matrix takes 12 elements") != std::string::npos, m);
    CHECK_THROWS_AS(loom::matrix<float>(c, 3, 4, std::vector<float>(11)), loom::length_error);

    // Positions and broadcasts have no meaning in a 1-D statement.
    loom::vector<float> y(c, 4);
    m = message_of([&] { y = loom::as_row(x4) * 2.0f; });
    CHECK_MESSAGE(m.find("2-D expression") != std::string::npos, m);
    m = message_of([&] { y = loom::cast<float>(loom::index<1>()); });
    CHECK_MESSAGE(m.find("2-D expression") != std::string::npos, m);
    m = message_of([&] { loom::matrix<float> M = loom::as_row(x4) * 2.0f; });
    CHECK_MESSAGE(m.find("no rows") != std::string::npos, m);
    CHECK(y.to_host() == std::vector<float>(4, 0.0f));
    loom::matrix<float> empty;
    CHECK_THROWS_AS(empty = 1.0f, loom::error);
    loom::vector<float> none;
    CHECK_THROWS_AS(C = A * loom::as_row(none), loom::error);
    CHECK_THROWS_AS(loom::matrix<float>(empty * 2.0f), loom::error);
    CHECK_THROWS_AS(loom::sum(empty, loom::axis<1>), loom::error);
}

TEST_CASE("the 5-point stencil of a matrix through loom::grid equals the host's, fused and unfused") {
    for (const extents& e : shapes()) {
        CAPTURE(describe(e));
        const std::size_t R = e.rows, C = e.cols;
        const std::vector<float> ha = random_matrix<float>(e, -1.0f, 1.0f, 1400);
        std::vector<float> got[2];
        for (int fuse : {1, 0}) {
            loom::context& c = context_with(fuse);
            loom::matrix<float> A(c, R, C, ha), B(c, R, C);
            const auto g = loom::grid(A);
            // di along a row (the column index), dj down a column (the row index); clamped.
            B = loom::at(g, 1, 0) + 2.0f * loom::at(g, -1, 0) + 3.0f * loom::at(g, 0, 1) + 4.0f * loom::at(g, 0, -1) +
                loom::cast<float>(loom::index<0>());
            got[fuse] = B.to_host();
        }
        CHECK(got[0] == got[1]);
        auto at = [&](long i, long j) {
            i = std::clamp(i, 0L, long(R) - 1);
            j = std::clamp(j, 0L, long(C) - 1);
            return ha[std::size_t(i) * C + std::size_t(j)];
        };
        std::size_t wrong = 0;
        for (long i = 0; i < long(R); ++i)
            for (long j = 0; j < long(C); ++j) {
                const float want =
                    at(i, j + 1) + 2.0f * at(i, j - 1) + 3.0f * at(i + 1, j) + 4.0f * at(i - 1, j) + float(i);
                wrong += std::fabs(got[1][std::size_t(i) * C + std::size_t(j)] - want) > 1e-5f;
            }
        CHECK(wrong == 0);
    }
}
