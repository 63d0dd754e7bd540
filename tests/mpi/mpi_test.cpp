// loom::mpi (loom/mpi.hpp) under mpirun with 1, 2 and 4 ranks: every vector split over the ranks,
// element-wise statements, reductions, scans and host reads against the host, equal on every rank
// and equal to one device's results; gather_to_root and scatter_from_root; the errors.
#include <doctest/doctest.h>
#include <loom/loom.hpp>
#include <loom/mpi.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace {

int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int world_size() {
    int n = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

// One context over the ranks for the suite (opening a device costs time).
loom::context& ranked() {
    static loom::context c = loom::mpi::context(MPI_COMM_WORLD);
    return c;
}

// The same context on this rank alone: the one-device reference.
loom::context& alone() {
    static loom::context c;
    return c;
}

std::vector<float> ramp(std::size_t n, float scale) {
    std::vector<float> h(n);
    for (std::size_t i = 0; i < n; ++i) h[i] = scale * float(int(i % 97) - 48) / 7.0f;
    return h;
}

// Whether every rank holds the same `value` (bit for bit).
template <class T> bool same_on_every_rank(const T& value) {
    std::vector<T> all(static_cast<std::size_t>(world_size()));
    MPI_Allgather(&value, int(sizeof(T)), MPI_BYTE, all.data(), int(sizeof(T)), MPI_BYTE, MPI_COMM_WORLD);
    for (const T& v : all)
        if (std::memcmp(&v, &value, sizeof(T)) != 0) return false;
    return true;
}

const std::size_t lengths[] = {0, 1, 2, 3, 5, 1001, 65537};

} // namespace

TEST_CASE("a context over the ranks knows its rank; vectors split over them compute as one device does") {
    CHECK(loom::mpi::rank(ranked()) == world_rank());
    CHECK(loom::mpi::ranks(ranked()) == world_size());
    CHECK(loom::mpi::rank(alone()) == 0);
    CHECK(loom::mpi::ranks(alone()) == 1);
    for (std::size_t n : lengths) {
        CAPTURE(n);
        const std::vector<float> hx = ramp(n, 1.0f), hy = ramp(n, -0.5f);
        const auto run = [&](loom::context& c) {
            loom::vector<float> x(c, hx), y(c, hy), z(c, n);
            z = 2.0f * x + y;
            z = z * x + sin(y);
            loom::vector<float> w = z - loom::cast<float>(loom::index()); // counted from the vector's start
            return w.to_host();
        };
        const std::vector<float> got = run(ranked());
        CHECK(got == run(alone()));
        for (std::size_t i = 0; i < n; ++i) {
            const float z = (2.0f * hx[i] + hy[i]) * hx[i] + std::sin(hy[i]);
            CHECK(std::fabs(got[i] - (z - float(i))) <= 1e-5f * (1.0f + std::fabs(z) + float(i)));
        }
        // Random numbers are a function of the element's index: the same on every split.
        loom::vector<float> r(ranked(), n), r1(alone(), n);
        r = loom::random_uniform<float>(42);
        r1 = loom::random_uniform<float>(42);
        CHECK(r.to_host() == r1.to_host());
    }
}

TEST_CASE("elements read and written one at a time, on every rank at once") {
    const std::size_t n = 1001;
    loom::vector<std::int32_t> x(ranked(), n, 7);
    for (std::size_t i : {std::size_t(0), n / 4, n / 2, n - 1}) {
        x[i] = std::int32_t(i) + 1; // each rank writes its own part; the others ignore it
        CHECK(std::int32_t(x[i]) == std::int32_t(i) + 1);
    }
    std::vector<std::int32_t> want(n, 7);
    for (std::size_t i : {std::size_t(0), n / 4, n / 2, n - 1}) want[i] = std::int32_t(i) + 1;
    CHECK(x.to_host() == want);
}

TEST_CASE("reductions fold every rank's partials in rank order: the same result on every rank") {
    for (std::size_t n : lengths) {
        CAPTURE(n);
        std::vector<std::int32_t> h(n);
        for (std::size_t i = 0; i < n; ++i) h[i] = std::int32_t((i * 7919) % 1000) - 500;
        loom::vector<std::int32_t> x(ranked(), h);
        const std::int64_t want = std::accumulate(h.begin(), h.end(), std::int64_t(0));
        const std::int64_t sum = loom::sum(loom::cast<std::int64_t>(x));
        CHECK(sum == want);
        CHECK(same_on_every_rank(sum));
        if (n > 0) {
            CHECK(loom::min(x) == *std::min_element(h.begin(), h.end()));
            CHECK(loom::max(x) == *std::max_element(h.begin(), h.end()));
            const loom::element<std::int32_t> m = loom::min_element(x);
            CHECK(m.index == std::uint64_t(std::min_element(h.begin(), h.end()) - h.begin()));
        }
        CHECK(loom::count(x > 100) ==
              std::uint64_t(std::count_if(h.begin(), h.end(), [](std::int32_t v) { return v > 100; })));
        // A traced operation, and the floats' sum equal on every rank.
        const std::int64_t abs_sum =
            loom::reduce(loom::cast<std::int64_t>(loom::abs(x)), std::int64_t(0), [](auto a, auto b) { return a + b; });
        std::int64_t want_abs = 0;
        for (std::int32_t v : h) want_abs += std::abs(v);
        CHECK(abs_sum == want_abs);
        loom::vector<float> f(ranked(), ramp(n, 1.0f));
        const float fs = loom::sum(f * f);
        CHECK(same_on_every_rank(fs));
        // Into a loom::scalar: every rank's copy, then used in a statement.
        loom::scalar<std::int64_t> s(ranked());
        s = loom::sum(loom::cast<std::int64_t>(x), loom::on_device);
        CHECK(s.value() == want);
        loom::vector<std::int64_t> y(ranked(), n);
        y = loom::cast<std::int64_t>(x) - s;
        const std::vector<std::int64_t> got = y.to_host();
        for (std::size_t i = 0; i < n; ++i) CHECK(got[i] == std::int64_t(h[i]) - want);
    }
}

TEST_CASE("scans carry every earlier rank's total, in operand order") {
    for (std::size_t n : lengths) {
        CAPTURE(n);
        std::vector<std::int64_t> h(n);
        for (std::size_t i = 0; i < n; ++i) h[i] = (i % 5 == 0) ? std::int64_t(i) : 0;
        loom::vector<std::int64_t> x(ranked(), h), y(ranked(), n), z(ranked(), n), f(ranked(), n);
        loom::inclusive_scan(x * 2, y);
        loom::exclusive_scan(x, z, std::int64_t(1000));
        // Not commutative: the latest non-zero element so far.
        loom::inclusive_scan(x, f, std::int64_t(0), [](auto a, auto b) { return loom::where(b != 0, b, a); });
        std::vector<std::int64_t> wy(n), wz(n), wf(n);
        std::int64_t run = 0, ex = 1000, last = 0;
        for (std::size_t i = 0; i < n; ++i) {
            run += 2 * h[i];
            wy[i] = run;
            wz[i] = ex;
            ex += h[i];
            if (h[i] != 0) last = h[i];
            wf[i] = last;
        }
        CHECK(y.to_host() == wy);
        CHECK(z.to_host() == wz);
        CHECK(f.to_host() == wf);
    }
}

TEST_CASE("gather_to_root and scatter_from_root move a whole vector to and from one rank") {
    const int last = world_size() - 1;
    for (std::size_t n : lengths) {
        CAPTURE(n);
        const std::vector<float> h = ramp(n, 3.0f);
        loom::vector<float> x(ranked(), h);
        x = x + 1.0f;
        std::vector<float> want(n);
        for (std::size_t i = 0; i < n; ++i) want[i] = h[i] + 1.0f;
        for (int root : {0, last}) {
            const std::vector<float> got = loom::mpi::gather_to_root(x, root);
            if (world_rank() == root)
                CHECK(got == want);
            else
                CHECK(got.empty());
        }
        loom::vector<float> y(ranked(), n, -1.0f);
        // Only the root's data counts: the other ranks pass an empty vector.
        loom::mpi::scatter_from_root(y, world_rank() == last ? h : std::vector<float>(), last);
        CHECK(y.to_host() == h);
    }
}

TEST_CASE("loom::mpi's mistakes are loom::errors on every rank, and leave the vectors as they were") {
    loom::vector<float> x(ranked(), 100, 2.0f);
    // The root's data of the wrong length: every rank learns it before anything moves.
    CHECK_THROWS_AS(loom::mpi::scatter_from_root(x, std::vector<float>(99, 1.0f), 0), loom::length_error);
    CHECK(x.to_host() == std::vector<float>(100, 2.0f));
    CHECK_THROWS_AS(loom::mpi::gather_to_root(x, world_size()), loom::error);
    CHECK_THROWS_AS(loom::mpi::gather_to_root(x, -1), loom::error);
    loom::vector<float> local(alone(), 10, 1.0f);
    CHECK_THROWS_AS(loom::mpi::gather_to_root(local), loom::error);
    CHECK_THROWS_AS(ranked().set_split({1.0}), loom::error);
    // What runs on one device only says so, before anything runs.
    loom::vector<float> sorted(ranked(), 100);
    CHECK_THROWS_AS(loom::sort(x, sorted), loom::error);
    CHECK_THROWS_AS(loom::inclusive_scan_by_key(x, x, sorted), loom::error);
    loom::vector<float> keys_out(ranked(), 100, 3.0f);
    CHECK_THROWS_AS(loom::reduce_by_key(x, x, keys_out, sorted), loom::error);
    CHECK(keys_out.to_host() == std::vector<float>(100, 3.0f));
    loom::matrix<float> blocks_in(ranked(), 10, 10, 1.0f), blocks_out(ranked(), 10, 10, 4.0f);
    CHECK_THROWS_AS(loom::map_blocks<2>(blocks_in, blocks_out, [](const loom::block<float, 2, 2>& b) { return b; }),
                    loom::error);
    CHECK(blocks_out.to_host() == std::vector<float>(100, 4.0f));
    CHECK_THROWS_AS(loom::mpi::context(MPI_COMM_WORLD, ranked()), loom::error);
}

TEST_CASE("each rank's share split again over its own parts: two parts a rank") {
    loom::context two = loom::mpi::context(MPI_COMM_WORLD, loom::context({loom::context(), loom::context()}));
    CHECK(two.device_count() == 2);
    for (std::size_t n : lengths) {
        CAPTURE(n);
        const std::vector<float> h = ramp(n, 1.0f);
        loom::vector<float> x(two, h), y(two, n);
        y = x * x + loom::cast<float>(loom::index());
        std::vector<float> want(n);
        for (std::size_t i = 0; i < n; ++i) want[i] = h[i] * h[i] + float(i);
        CHECK(y.to_host() == want);
        double total = 0;
        for (float v : want) total += double(v);
        CHECK(loom::sum(loom::cast<double>(y)) == doctest::Approx(total).epsilon(1e-12));
        // A stencil: halos from this rank's other part and from the other ranks.
        loom::vector<float> st(two, n), st1(alone(), n);
        loom::vector<float> x1(alone(), h);
        st = x + loom::shift(x, -2) - loom::shift(x, 1, loom::boundary::wrap);
        st1 = x1 + loom::shift(x1, -2) - loom::shift(x1, 1, loom::boundary::wrap);
        CHECK(st.to_host() == st1.to_host());
        // Small integers: the scan is exact in any order of additions.
        std::vector<float> small(n), ws(n);
        float run = 0;
        for (std::size_t i = 0; i < n; ++i) ws[i] = run += small[i] = float(int(i % 7) - 3);
        loom::vector<float> v(two, small), s(two, n);
        loom::inclusive_scan(v, s);
        CHECK(s.to_host() == ws);
    }
}

TEST_CASE("stencils over the ranks read their neighbours from halos: equal to one device, every policy") {
    for (std::size_t n : lengths) {
        CAPTURE(n);
        const std::vector<float> h = ramp(n, 1.0f);
        const auto run = [&](loom::context& c) {
            loom::vector<float> x(c, h), y(c, n), z(c, n);
            y = x + 0.5f * (loom::shift(x, -1) + loom::shift(x, 3));
            z = loom::shift(x, -2, loom::boundary::wrap) - loom::shift(x, 2, loom::boundary::constant(7.0f));
            x = x - loom::shift(x, 1); // every rank reads the values from before
            std::vector<float> all = y.to_host(), more = z.to_host(), last = x.to_host();
            all.insert(all.end(), more.begin(), more.end());
            all.insert(all.end(), last.begin(), last.end());
            return all;
        };
        CHECK(run(ranked()) == run(alone()));
    }
    for (auto [nx, ny] : {std::pair<std::size_t, std::size_t>{7, 5}, {1, 9}, {16, 1}, {33, 40}}) {
        CAPTURE(nx);
        CAPTURE(ny);
        const std::size_t n = nx * ny;
        const std::vector<float> h = ramp(n, 1.0f);
        const auto run = [&](loom::context& c) {
            loom::vector<float> u(c, h), next(c, n);
            for (int step = 0; step < 5; ++step) {
                const auto g = loom::grid(u, nx, ny);
                next = u + 0.2f * (loom::at(g, -1, 0) + loom::at(g, 1, 0, loom::boundary::wrap) + loom::at(g, 0, -1) +
                                   loom::at(g, 0, 1, loom::boundary::constant(1.0f)) - 4.0f * u);
                loom::swap(u, next);
            }
            return u.to_host();
        };
        CHECK(run(ranked()) == run(alone()));
    }
}
