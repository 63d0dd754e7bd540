// loom::transpose and matrix blocks: 2-D operands read in place, against host references at odd
// shapes, fused and unfused; in-place transposes; reductions along an axis of a transpose; bad
// blocks and shapes rejected with the extents in the message.
#include "matrix_support.hpp"

using namespace loom_test;
using namespace loom_matrix_test;
using doctest::Contains;

TEST_CASE("transpose reads A(j, i), fused and unfused, at odd shapes") {
    std::uint64_t stream = 500;
    for (const extents& e : shapes()) {
        CAPTURE(describe(e));
        const std::vector<float> ha = random_matrix<float>(e, -4.0f, 4.0f, ++stream);
        const std::vector<float> hv = random_values<float>(e.rows, -4.0f, 4.0f, ++stream);
        std::vector<float> want(e.rows * e.cols);
        for (std::size_t i = 0; i < e.cols; ++i)
            for (std::size_t j = 0; j < e.rows; ++j) want[i * e.rows + j] = ha[j * e.cols + i] * 2.0f + hv[j];
        std::vector<float> got[2];
        for (int fuse : {1, 0}) {
            loom::context& c = context_with(fuse);
            loom::matrix<float> a(c, e.rows, e.cols, ha), t(c, e.cols, e.rows);
            loom::vector<float> v(c, hv);
            t = loom::transpose(a) * 2.0f + loom::as_row(v); // cols x rows; v along each row
            got[fuse] = t.to_host();
            check_elements("transpose(a) * 2 + as_row(v)", got[fuse], want, 0);
        }
        CHECK(got[0] == got[1]);
    }
}

TEST_CASE("a square matrix transposed in place, and column sums through a transpose") {
    const std::size_t n = 37;
    const extents e{n, n};
    const std::vector<float> ha = random_matrix<float>(e, -4.0f, 4.0f, 520);
    for (int fuse : {1, 0}) {
        CAPTURE(fuse);
        loom::context& c = context_with(fuse);
        loom::matrix<float> a(c, n, n, ha);
        a = loom::transpose(a); // reads a elsewhere than each element: computed whole first
        std::vector<float> want(n * n);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) want[i * n + j] = ha[j * n + i];
        check_elements("a = transpose(a)", a.to_host(), want, 0);

        loom::vector<float> sums = loom::sum(loom::transpose(a), loom::axis<1>); // rows of a^T: columns of a
        const std::vector<float> got = sums.to_host();
        for (std::size_t j = 0; j < n; ++j) {
            double col = 0;
            for (std::size_t i = 0; i < n; ++i) col += want[i * n + j];
            CHECK(got[j] == doctest::Approx(col).epsilon(1e-5));
        }
    }
}

TEST_CASE("blocks read A(r0 + i, c0 + j); another origin compiles nothing") {
    const extents e{37, 53};
    const std::vector<std::int32_t> ha = random_matrix<std::int32_t>(e, -50, 50, 530);
    for (int fuse : {1, 0}) {
        CAPTURE(fuse);
        loom::context& c = context_with(fuse);
        loom::matrix<std::int32_t> a(c, e.rows, e.cols, ha), b(c, 8, 5);
        b.to_host(); // runs b's fill, so that both block statements below are flushes of one statement
        auto host_block = [&](std::size_t r0, std::size_t c0) {
            std::vector<std::int32_t> want(8 * 5);
            for (std::size_t i = 0; i < 8; ++i)
                for (std::size_t j = 0; j < 5; ++j) want[i * 5 + j] = ha[(r0 + i) * e.cols + c0 + j] * 3 - 1;
            return want;
        };
        b = a.block(2, 7, 8, 5) * 3 - 1;
        check_elements("a.block(2, 7, 8, 5) * 3 - 1", b.to_host(), host_block(2, 7), 0);
        const std::uint64_t compiled = c.statistics().kernels_compiled;
        b = a.block(29, 48, 8, 5) * 3 - 1; // the last rows and columns
        check_elements("a.block(29, 48, 8, 5) * 3 - 1", b.to_host(), host_block(29, 48), 0);
        CHECK(c.statistics().kernels_compiled == compiled);
        // A block of no rows is an empty operand, not an error.
        loom::matrix<std::int32_t> none(c, 0, 5);
        none = a.block(37, 0, 0, 5) + 1;
        CHECK(none.to_host().empty());
    }
}

TEST_CASE("blocks and transposes are checked: bounds and shapes name the extents") {
    loom::context& c = context_with(1);
    loom::matrix<float> a(c, 4, 6), b(c, 4, 6);
    CHECK_THROWS_WITH_AS(a.block(1, 2, 4, 2), Contains("a 4 x 2 block from (1, 2) reaches outside a 4 x 6 matrix"),
                         loom::error);
    CHECK_THROWS_WITH_AS(a.block(0, 5, 1, 2), Contains("reaches outside a 4 x 6 matrix"), loom::error);
    CHECK_THROWS_WITH_AS(b = loom::transpose(a), Contains("6 x 4"), loom::length_error); // a^T is 6 x 4
    loom::vector<float> flat(c, 24);
    CHECK_THROWS_WITH_AS(flat = loom::transpose(a) + 1.0f, Contains("loom::transpose"), loom::error);
}

TEST_CASE("a block is a target: it writes its elements only, with the block's own positions, fused and unfused") {
    const extents e{37, 53};
    const std::vector<float> ha = random_matrix<float>(e, -1.0f, 1.0f, 540),
                             hb = random_matrix<float>(extents{8, 5}, -1.0f, 1.0f, 541);
    std::vector<float> results[2];
    for (int fuse : {1, 0}) {
        CAPTURE(fuse);
        loom::context& c = context_with(fuse);
        loom::matrix<float> a(c, e.rows, e.cols, ha), b(c, 8, 5, hb);
        a.to_host(); // the fills flushed: the two block statements below share one plan
        a.block(2, 7, 8, 5) = b * 2.0f + loom::cast<float>(loom::index<0>() * 10 + loom::index<1>());
        c.finish();
        const std::uint64_t compiled = c.statistics().kernels_compiled;
        a.block(29, 48, 8, 5) = b * 2.0f + loom::cast<float>(loom::index<0>() * 10 + loom::index<1>());
        c.finish();
        CHECK(c.statistics().kernels_compiled == compiled); // another origin compiles nothing
        a.block(0, 0, 3, 4) = 7.0f;                         // a host scalar
        a.block(10, 20, 8, 5) += a.block(2, 7, 8, 5);       // reads the matrix it writes
        results[fuse] = a.to_host();
    }
    CHECK(results[0] == results[1]);
    std::vector<float> want = ha;
    auto put = [&](std::size_t r0, std::size_t c0) {
        for (std::size_t i = 0; i < 8; ++i)
            for (std::size_t j = 0; j < 5; ++j)
                want[(r0 + i) * e.cols + c0 + j] = hb[i * 5 + j] * 2.0f + float(i * 10 + j);
    };
    put(2, 7);
    put(29, 48);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 4; ++j) want[i * e.cols + j] = 7.0f;
    for (std::size_t i = 0; i < 8; ++i)
        for (std::size_t j = 0; j < 5; ++j) want[(10 + i) * e.cols + 20 + j] += want[(2 + i) * e.cols + 7 + j];
    check_elements("a after four block statements", results[1], want, 0);
}

TEST_CASE("a block target checks its value's shape and leaves the matrix as it was on an error") {
    loom::context& c = context_with(1);
    loom::matrix<float> a(c, 4, 6, 1.0f), b(c, 3, 3, 2.0f);
    CHECK_THROWS_WITH_AS(a.block(0, 0, 2, 2) = b, Contains("2 x 2"), loom::length_error);
    CHECK_THROWS_WITH_AS(a.block(0, 0, 2, 2) = b, Contains("3 x 3"), loom::length_error);
    CHECK_THROWS_WITH_AS(a.block(3, 0, 2, 2) = 1.0f, Contains("reaches outside a 4 x 6 matrix"), loom::error);
    CHECK(a.to_host() == std::vector<float>(24, 1.0f));
    const loom::matrix<float> copy = a.block(1, 1, 2, 3); // the value of a block, as a matrix
    CHECK(copy.rows() == 2);
    CHECK(copy.cols() == 3);
    CHECK(copy.to_host() == std::vector<float>(6, 1.0f));
    a.block(0, 0, 0, 6) = 5.0f; // an empty block writes nothing
    CHECK(a.to_host() == std::vector<float>(24, 1.0f));
}

TEST_CASE("blocks of one matrix written where they share no element fuse into one kernel; overlapping ones do not") {
    const extents e{21, 34};
    const std::vector<float> ha = random_matrix<float>(e, -1.0f, 1.0f, 550);
    struct block {
        std::size_t r0, c0;
        float value;
    };
    // Four 10 x 17 quadrants (leaving row 20), blocks side by side in one band of rows, and two
    // pairs that meet: at one element, and along a row.
    const std::vector<std::vector<block>> programs = {{{0, 0, 1}, {0, 17, 2}, {10, 0, 3}, {10, 17, 4}},
                                                      {{5, 0, 1}, {5, 17, 2}},
                                                      {{0, 0, 1}, {9, 16, 2}},
                                                      {{3, 0, 1}, {11, 10, 2}}};
    const std::vector<std::size_t> kernels = {1, 1, 2, 2};
    for (std::size_t p = 0; p < programs.size(); ++p) {
        CAPTURE(p);
        std::vector<float> want = ha;
        for (const block& b : programs[p])
            for (std::size_t i = 0; i < 10; ++i)
                for (std::size_t j = 0; j < 17; ++j)
                    want[(b.r0 + i) * e.cols + b.c0 + j] = b.value + float(i * 100 + j);
        for (int fuse : {1, 0}) {
            CAPTURE(fuse);
            loom::context& c = context_with(fuse);
            loom::matrix<float> a(c, e.rows, e.cols, ha);
            c.finish();
            for (const block& b : programs[p])
                a.block(b.r0, b.c0, 10, 17) = b.value + loom::cast<float>(loom::index<0>() * 100 + loom::index<1>());
            c.finish();
            CHECK(loom::last_flush(c).kernels.size() == (fuse ? kernels[p] : programs[p].size()));
            check_elements("the blocks written", a.to_host(), want, 0);
        }
    }
}
