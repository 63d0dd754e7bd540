// Slices, reversed views, gather and scatter, resize and device-to-device iterator copies,
// against host references; fused results equal unfused ones; bad bounds are rejected at the
// statement with the extents in the message.
#include "support.hpp"

#include <algorithm>
#include <numeric>

using namespace loom_test;

namespace {

std::vector<float> iota_floats(std::size_t n, float from = 0) {
    std::vector<float> v(n);
    std::iota(v.begin(), v.end(), from);
    return v;
}

// Runs `program` on a fused and an unfused context and checks both give `expect`.
template <class Program> void on_both(const Program& program, const std::vector<float>& expect) {
    for (int fuse : {1, 0}) {
        loom::context c(loom::context_options{"opencl", "", fuse});
        INFO("fusion " << fuse);
        CHECK(program(c) == expect);
    }
}

} // namespace

TEST_CASE("slices read and assign inside expressions") {
    const std::size_t n = 1001; // odd
    const std::vector<float> hx = iota_floats(n);
    on_both(
        [&](loom::context& c) {
            loom::vector<float> x(c, hx), y(c, n, -1.0f);
            y.slice(0, n / 2) = x.slice(n / 2, n / 2) * 2.0f; // the first half from the second
            return y.to_host();
        },
        [&] {
            std::vector<float> e(n, -1.0f);
            for (std::size_t i = 0; i < n / 2; ++i) e[i] = hx[n / 2 + i] * 2;
            return e;
        }());
    on_both(
        [&](loom::context& c) {
            loom::vector<float> x(c, hx), z(c, (n + 1) / 2);
            z = x.slice(0, (n + 1) / 2, 2) + 1.0f; // every other element, a stride
            return z.to_host();
        },
        [&] {
            std::vector<float> e((n + 1) / 2);
            for (std::size_t i = 0; i < e.size(); ++i) e[i] = hx[2 * i] + 1;
            return e;
        }());
    on_both(
        [&](loom::context& c) {
            loom::vector<float> x(c, hx), r(c, n);
            r = loom::reversed(x) - x; // read back to front, fused with an element-wise read
            loom::vector<float> s = x.slice(3, 10) * 3.0f;
            r.slice(0, 10) = s; // a vector built from a view, then written through one
            return r.to_host();
        },
        [&] {
            std::vector<float> e(n);
            for (std::size_t i = 0; i < n; ++i) e[i] = hx[n - 1 - i] - hx[i];
            for (std::size_t i = 0; i < 10; ++i) e[i] = hx[3 + i] * 3.0f;
            return e;
        }());
}

TEST_CASE("a view that overlaps what it writes reads the old values, and chained statements see the writes") {
    const std::size_t n = 300;
    const std::vector<float> hx = iota_floats(n, 1);
    on_both(
        [&](loom::context& c) {
            loom::vector<float> x(c, hx), y(c, n);
            x.slice(1, n - 1) = x.slice(0, n - 1); // shift right by one in place
            y = x * 2.0f;                          // reads the shifted x
            loom::reversed(x) = x;                 // reverse in place
            y += x;
            return y.to_host();
        },
        [&] {
            std::vector<float> x = hx, y(n);
            for (std::size_t i = n - 1; i >= 1; --i) x[i] = x[i - 1];
            for (std::size_t i = 0; i < n; ++i) y[i] = x[i] * 2;
            std::vector<float> rev(x.rbegin(), x.rend());
            for (std::size_t i = 0; i < n; ++i) y[i] += rev[i];
            return y;
        }());
}

TEST_CASE("gather reads at an index expression, 0 outside; scatter writes at one, skipping outside") {
    const std::size_t n = 777;
    const std::vector<float> hx = iota_floats(n, 0.5f);
    std::vector<std::int32_t> hidx(n);
    auto g = generator(41);
    for (auto& i : hidx) i = std::int32_t(g() % (n + 20)) - 10; // some below 0, some past the end
    on_both(
        [&](loom::context& c) {
            loom::vector<float> x(c, hx), y(c, n);
            loom::vector<std::int32_t> idx(c, hidx);
            y = loom::gather(x, idx) * 2.0f + 1.0f;
            return y.to_host();
        },
        [&] {
            std::vector<float> e(n);
            for (std::size_t i = 0; i < n; ++i)
                e[i] = (hidx[i] >= 0 && std::size_t(hidx[i]) < n ? hx[std::size_t(hidx[i])] : 0.0f) * 2 + 1;
            return e;
        }());
    // A permutation scattered (no repeats), with an index expression.
    std::vector<std::int64_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), g);
    on_both(
        [&](loom::context& c) {
            loom::vector<float> x(c, hx), y(c, n, 7.0f);
            loom::vector<std::int64_t> p(c, perm);
            loom::scatter(y, p - 5) = x + 1.0f; // indices -5.. skip
            return y.to_host();
        },
        [&] {
            std::vector<float> e(n, 7.0f);
            for (std::size_t i = 0; i < n; ++i)
                if (perm[i] - 5 >= 0) e[std::size_t(perm[i] - 5)] = hx[i] + 1;
            return e;
        }());
    // A gather and scatter of the target itself go through temporaries.
    on_both(
        [&](loom::context& c) {
            loom::vector<float> x(c, hx);
            loom::vector<std::int64_t> p(c, perm);
            x = loom::gather(x, p);
            loom::scatter(x, p) = x * 2.0f; // undoes the permutation, doubled
            return x.to_host();
        },
        [&] {
            std::vector<float> e(n);
            for (std::size_t i = 0; i < n; ++i) e[i] = hx[i] * 2;
            return e;
        }());
    loom::vector<float> x(ctx(), hx), y(ctx(), n);
    loom::vector<float> fidx(ctx(), n);
    CHECK_THROWS_WITH_AS(y = loom::gather(x, fidx), doctest::Contains("integer"), loom::error);
}

TEST_CASE("views are checked at the statement: out-of-range bounds and mismatched lengths name the extents") {
    loom::vector<float> x(ctx(), 10), y(ctx(), 4);
    CHECK_THROWS_WITH_AS(x.slice(8, 3), doctest::Contains("3 elements from 8 with stride 1"), loom::error);
    CHECK_THROWS_WITH_AS(x.slice(0, 5, 3), doctest::Contains("outside a vector of 10"), loom::error);
    CHECK_NOTHROW(x.slice(0, 4, 3));                // 0, 3, 6, 9
    CHECK_THROWS_AS(x.slice(1, 4, 3), loom::error); // 1, 4, 7, 10: the last is outside
    CHECK_NOTHROW(x.slice(1, 3, 4));                // 1, 5, 9
    CHECK_THROWS_AS(x.slice(10, 1), loom::error);
    CHECK_THROWS_AS(x.slice(std::size_t(-1), 1), loom::error);
    CHECK_THROWS_AS(x.slice(0, 2, std::ptrdiff_t(1) << 62), loom::error); // no overflow
    CHECK_NOTHROW(x.slice(9, 10, -1));
    CHECK_THROWS_AS(x.slice(8, 10, -1), loom::error);
    CHECK_THROWS_WITH_AS(y = x.slice(0, 5), doctest::Contains("a view of 5 elements in a statement over 4"),
                         loom::error);
    CHECK_THROWS_WITH_AS(x.slice(0, 5) = y, doctest::Contains("length mismatch"), loom::error);
    CHECK(x.slice(0, 0).size() == 0);
    x.slice(3, 0) = y; // an empty view: nothing to do
    loom::vector<float> empty;
    CHECK_THROWS_AS(empty.slice(0, 0), loom::error);
}

TEST_CASE("resize keeps the first elements and zero-fills; iterator ranges copy device to device") {
    loom::vector<int> v(ctx(), std::vector<int>{1, 2, 3, 4, 5});
    v.resize(8);
    CHECK(v.to_host() == std::vector<int>{1, 2, 3, 4, 5, 0, 0, 0});
    v.resize(3);
    CHECK(v.to_host() == std::vector<int>{1, 2, 3});
    loom::vector<int> w(ctx(), 6, -1);
    loom::copy(v.begin(), v.end(), w.begin() + 2);
    CHECK(w.to_host() == std::vector<int>{-1, -1, 1, 2, 3, -1});
    loom::copy(w.begin(), w.begin() + 4, w.begin() + 1); // overlapping, as std::copy_backward would
    CHECK(w.to_host() == std::vector<int>{-1, -1, -1, 1, 2, -1});
    CHECK_THROWS_AS(loom::copy(v.begin(), v.end(), w.begin() + 4), loom::error);
}

TEST_CASE("fusion around views: a gather of a vector the kernel writes ends it (gather_read), a view write ends it "
          "for what touches its vector (view_write), everything else fuses") {
    const std::size_t n = 500;
    loom::context c;
    loom::vector<float> x(c, iota_floats(n)), y(c, n), z(c, n), w(c, n);
    loom::vector<std::int32_t> idx(c, n);
    idx = loom::cast<std::int32_t>(n - 1 - loom::index());
    c.finish();

    y = x * 2.0f;              // 0
    z = loom::reversed(x) + x; // 1: reads x through a view; x is not written: fuses
    w = loom::gather(y, idx);  // 2: gathers y, which statement 0 wrote: a new kernel
    c.finish();
    loom::flush_report r = loom::last_flush(c);
    REQUIRE(r.kernels.size() == 2);
    CHECK(r.kernels[0].last_statement == 1);
    CHECK(r.kernels[0].ends == "gather_read");
    std::vector<float> hy(n), hz(n), hw(n);
    for (std::size_t i = 0; i < n; ++i) {
        hy[i] = float(i) * 2;
        hz[i] = float(n - 1 - i) + float(i);
    }
    for (std::size_t i = 0; i < n; ++i) hw[i] = hy[n - 1 - i];
    CHECK(z.to_host() == hz);
    CHECK(w.to_host() == hw);

    y.slice(0, n / 2) = x.slice(0, n / 2) + 1.0f; // 0: writes y through a view (n/2 elements)
    z.slice(0, n / 2) = x.slice(1, n / 2);        // 1: another vector: fuses with 0
    w.slice(0, n / 2) = y.slice(0, n / 2);        // 2: reads y, which 0 wrote through a view: a new kernel
    c.finish();
    r = loom::last_flush(c);
    REQUIRE(r.kernels.size() == 2);
    CHECK(r.kernels[0].last_statement == 1);
    CHECK((r.kernels[0].ends == "view_write" || r.kernels[0].ends == "gather_read"));
    const std::vector<float> gw = w.to_host();
    for (std::size_t i = 0; i < n / 2; ++i) CHECK(gw[i] == float(i) + 1);
}

TEST_CASE("view writes of one vector at spans that share no element fuse into one kernel; overlapping ones do not") {
    const std::size_t n = 1003; // odd: the halves and the stride-3 classes have unequal counts
    const std::vector<float> hx = iota_floats(n, 1);
    struct step {
        std::int64_t start, stride;
        std::size_t count;
        float scale;
    };
    // Each program: the writes in order, and the kernels a fused context runs for them.
    struct program {
        const char* what;
        std::vector<step> writes;
        std::size_t kernels;
    };
    const std::size_t third = n / 3; // 334: classes 0, 1, 2 modulo 3 hold 335, 334, 334 elements
    const std::vector<program> programs = {
        {"two halves", {{0, 1, n / 2, 2.0f}, {std::int64_t(n / 2), 1, n / 2, 3.0f}}, 1},
        {"stride-3 classes, one read backwards",
         {{0, 3, third, 2.0f}, {1, 3, third, 3.0f}, {std::int64_t(3 * third - 1), -3, third, 4.0f}},
         1},
        {"even elements then a block of odd ones (strides 2 and 4)", {{0, 2, 100, 2.0f}, {5, 4, 100, 3.0f}}, 1},
        {"overlapping halves", {{0, 1, 600, 2.0f}, {400, 1, 600, 3.0f}}, 2},
        {"a stride-2 span and a stride-3 span that meet at 6", {{0, 2, 100, 2.0f}, {3, 3, 100, 3.0f}}, 2},
        {"one element twice", {{7, 1, 1, 2.0f}, {7, 5, 1, 3.0f}}, 2},
    };
    for (const program& p : programs) {
        CAPTURE(p.what);
        std::vector<float> expect(n, -1.0f);
        for (const step& s : p.writes)
            for (std::size_t k = 0; k < s.count; ++k) {
                const std::int64_t at = s.start + std::int64_t(k) * s.stride;
                expect[std::size_t(at)] = hx[k] * s.scale; // the later write wins where spans meet
            }
        for (int fuse : {1, 0}) {
            CAPTURE(fuse);
            loom::context c(loom::context_options{"opencl", "", fuse});
            loom::vector<float> x(c, hx), y(c, n, -1.0f);
            c.finish();
            for (const step& s : p.writes) y.slice(s.start, s.count, s.stride) = x.slice(0, s.count) * s.scale;
            c.finish();
            const std::size_t lengths = p.writes.front().count == p.writes.back().count ? 1 : 2;
            CHECK(loom::last_flush(c).kernels.size() == (fuse ? std::max(p.kernels, lengths) : p.writes.size()));
            CHECK(y.to_host() == expect);
        }
    }

    // A read of the vector between two disjoint writes ends the kernel before it, and the
    // second write waits for the read: three kernels.
    loom::context c;
    loom::vector<float> x(c, hx), y(c, n, 0.0f), z(c, n / 2);
    c.finish();
    y.slice(0, n / 2) = x.slice(0, n / 2);
    z = y.slice(1, n / 2); // reads y at other indices after the write
    y.slice(n / 2, n / 2) = x.slice(0, n / 2);
    c.finish();
    CHECK(loom::last_flush(c).kernels.size() == 3);
    const std::vector<float> hz = z.to_host();
    for (std::size_t i = 0; i + 1 < n / 2; ++i) CHECK(hz[i] == hx[i + 1]);
    CHECK(hz[n / 2 - 1] == 0.0f); // y[n / 2] was still 0 when z read it
}

TEST_CASE("reads through views of equal start and stride are one kernel parameter each, and stay right as starts change") {
    // Equal view starts share a parameter, and equal strides do (never a start with a stride), so
    // the two statements' reads of x.slice(1, m, 2) are one load. Which starts are equal is part
    // of the plan: the starts below coincide differently in each round, and every round is
    // checked against the host, fused and unfused.
    const std::size_t m = 50, n = 2 * m + 1;
    const std::vector<float> hx = iota_floats(n, 1.0f);
    for (int fuse : {1, 0}) {
        loom::context c(loom::context_options{"opencl", "", fuse});
        loom::vector<float> x(c, hx), y(c, n, 0.0f);
        c.finish();
        for (auto [a, b] : {std::pair<std::size_t, std::size_t>{1, 1}, {0, 1}, {1, 0}, {1, 1}}) {
            INFO("fusion " << fuse << " starts " << a << ", " << b);
            y.slice(0, m, 2) = x.slice(a, m, 2) * 2.0f;
            y.slice(1, m, 2) = x.slice(b, m, 2) + 1.0f;
            const std::vector<float> got = y.to_host();
            if (fuse && a == 1 && b == 1) { // x, y, the starts 0 and 1, the stride, 2 and 1
                REQUIRE(loom::last_flush(c).kernels.size() == 1);
                CHECK(loom::last_flush(c).kernels[0].parameters == 7);
            }
            std::vector<float> want(n, 0.0f);
            for (std::size_t k = 0; k < m; ++k) {
                want[2 * k] = hx[a + 2 * k] * 2.0f;
                want[2 * k + 1] = hx[b + 2 * k] + 1.0f;
            }
            want[n - 1] = got[n - 1]; // untouched by either view (0 from the start)
            CHECK(got == want);
            CHECK(got[n - 1] == 0.0f);
        }
    }
}
