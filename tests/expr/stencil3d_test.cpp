// 3-D grids (loom::grid(u, nx, ny, nz), loom::at(g, di, dj, dk)), neighbour reads of
// expressions, and loom::convolve, element by element against a host reference written
// here. The suite also runs in the GPU kernel form (expr_grid_stride), and NVRTC compiles
// every kernel it makes (nvrtc_all_kernels.cpp).
#include <array>

#include "error_support.hpp"
#include "support.hpp"

using loom_test::ctx;

namespace {

enum class policy { clamp, wrap, constant };

// Element (x, y, z) of the nx x ny x nz grid over v under p, each coordinate at its own edges.
float host_grid3(const std::vector<float>& v, long nx, long ny, long nz, long x, long y, long z, policy p, float c) {
    if (p == policy::constant && (x < 0 || x >= nx || y < 0 || y >= ny || z < 0 || z >= nz)) return c;
    auto fix = [&](long k, long size) {
        if (p == policy::clamp) return k < 0 ? 0 : (k >= size ? size - 1 : k);
        return ((k % size) + size) % size;
    };
    return v[std::size_t((fix(z, nz) * ny + fix(y, ny)) * nx + fix(x, nx))];
}

struct extents {
    long nx, ny, nz;
};

// The 7-point Laplacian of u under one policy, as Loom writes it.
template <class Policy> void laplacian(loom::vector<float>& out, const loom::vector<float>& u, extents e, Policy p) {
    const auto g = loom::grid(u, std::size_t(e.nx), std::size_t(e.ny), std::size_t(e.nz));
    out = loom::at(g, -1, 0, 0, p) + loom::at(g, 1, 0, 0, p) + loom::at(g, 0, -1, 0, p) + loom::at(g, 0, 1, 0, p) +
          loom::at(g, 0, 0, -1, p) + loom::at(g, 0, 0, 1, p) - 6.0f * u;
}

} // namespace

TEST_CASE("3-D seven-point stencils with each boundary policy equal the host") {
    // Shapes: one element; planes and rows shorter than a vector; rows wider than a group and
    // not a multiple of it; a grid of many thin planes.
    for (const extents e : {extents{1, 1, 1}, extents{5, 4, 3}, extents{37, 11, 7}, extents{64, 16, 9},
                            extents{8, 3, 40}}) {
        CAPTURE(e.nx);
        CAPTURE(e.ny);
        CAPTURE(e.nz);
        const std::size_t n = std::size_t(e.nx * e.ny * e.nz);
        const auto hu = loom_test::random_values<float>(n, -1.0f, 1.0f, 900 + n);
        loom::vector<float> u(ctx(), hu), clamp(ctx(), n), wrap(ctx(), n), constant(ctx(), n);
        laplacian(clamp, u, e, loom::boundary::clamp);
        laplacian(wrap, u, e, loom::boundary::wrap);
        laplacian(constant, u, e, loom::boundary::constant(0.25f));
        const auto hc = clamp.to_host(), hw = wrap.to_host(), hk = constant.to_host();
        std::size_t wrong = 0;
        for (long z = 0; z < e.nz; ++z)
            for (long y = 0; y < e.ny; ++y)
                for (long x = 0; x < e.nx; ++x) {
                    const std::size_t i = std::size_t((z * e.ny + y) * e.nx + x);
                    auto lap = [&](policy p) {
                        auto at = [&](long dx, long dy, long dz) {
                            return host_grid3(hu, e.nx, e.ny, e.nz, x + dx, y + dy, z + dz, p, 0.25f);
                        };
                        return at(-1, 0, 0) + at(1, 0, 0) + at(0, -1, 0) + at(0, 1, 0) + at(0, 0, -1) + at(0, 0, 1) -
                               6.0f * hu[i];
                    };
                    wrong += hc[i] != lap(policy::clamp);
                    wrong += hw[i] != lap(policy::wrap);
                    wrong += hk[i] != lap(policy::constant);
                }
        CHECK(wrong == 0);
    }
}

TEST_CASE("3-D reads at offsets past the grid, beside 2-D and 1-D reads, fused and unfused, equal the host") {
    const long nx = 33, ny = 6, nz = 10;
    const std::size_t n = std::size_t(nx * ny * nz);
    const auto hu = loom_test::random_values<float>(n, -1.0f, 1.0f, 911);
    loom::context unfused(loom::context_options{"opencl", "", 0});
    std::vector<std::vector<float>> results;
    for (loom::context* c : {&ctx(), &unfused}) {
        loom::vector<float> u(*c, hu), t(*c, n), out(*c, n);
        const auto g3 = loom::grid(u, std::size_t(nx), std::size_t(ny), std::size_t(nz));
        const auto g2 = loom::grid(u, std::size_t(nx), std::size_t(ny * nz));
        t = u * 0.5f;
        out = loom::at(g3, 3, -2, 5, loom::boundary::wrap) - loom::at(g3, -40, 13, -9) +
              loom::at(g3, 1, 1, -1, loom::boundary::constant(2.0f)) * loom::at(g2, 0, 7) + loom::shift(u, -5) + t;
        results.push_back(out.to_host());
    }
    CHECK(results[0] == results[1]);
    std::size_t wrong = 0;
    for (long z = 0; z < nz; ++z)
        for (long y = 0; y < ny; ++y)
            for (long x = 0; x < nx; ++x) {
                const long i = (z * ny + y) * nx + x;
                auto at3 = [&](long dx, long dy, long dz, policy p, float c) {
                    return host_grid3(hu, nx, ny, nz, x + dx, y + dy, z + dz, p, c);
                };
                const long row = z * ny + y, below = row + 7 >= ny * nz ? ny * nz - 1 : row + 7;
                const float rows_down = hu[std::size_t(below * nx + x)];
                const float shifted = hu[std::size_t(i - 5 < 0 ? 0 : i - 5)];
                const float want = at3(3, -2, 5, policy::wrap, 0) - at3(-40, 13, -9, policy::clamp, 0) +
                                   at3(1, 1, -1, policy::constant, 2.0f) * rows_down + shifted + hu[std::size_t(i)] * 0.5f;
                wrong += results[0][std::size_t(i)] != want;
            }
    CHECK(wrong == 0);
}

TEST_CASE("3-D reads whose offsets move to and from zero between flushes equal the host, fused and unfused") {
    // Whether each offset is zero is part of the plan (a zero offset is compiled in): the same
    // statement with offsets that become zero, then not, must never reuse the other kernel.
    const long nx = 19, ny = 5, nz = 4;
    const std::size_t n = std::size_t(nx * ny * nz);
    const auto hu = loom_test::random_values<float>(n, -1.0f, 1.0f, 913);
    const std::array<std::array<long, 3>, 6> offsets = {
        {{1, 0, 0}, {0, 0, 0}, {0, -1, 2}, {0, 0, 0}, {-2, 3, 0}, {1, 0, 0}}};
    loom::context unfused(loom::context_options{"opencl", "", 0});
    for (loom::context* c : {&ctx(), &unfused}) {
        loom::vector<float> u(*c, hu), out(*c, n);
        const auto g = loom::grid(u, std::size_t(nx), std::size_t(ny), std::size_t(nz));
        for (const auto& d : offsets) {
            CAPTURE(d[0]);
            CAPTURE(d[1]);
            CAPTURE(d[2]);
            out = loom::at(g, d[0], d[1], d[2]) + 2.0f * loom::at(g, d[1], d[2], d[0], loom::boundary::wrap) +
                  4.0f * loom::at(g, d[2], d[0], d[1], loom::boundary::constant(0.5f));
            const auto got = out.to_host();
            std::size_t wrong = 0;
            for (long z = 0; z < nz; ++z)
                for (long y = 0; y < ny; ++y)
                    for (long x = 0; x < nx; ++x) {
                        auto at = [&](long dx, long dy, long dz, policy p) {
                            return host_grid3(hu, nx, ny, nz, x + dx, y + dy, z + dz, p, 0.5f);
                        };
                        const float want = at(d[0], d[1], d[2], policy::clamp) +
                                           2.0f * at(d[1], d[2], d[0], policy::wrap) +
                                           4.0f * at(d[2], d[0], d[1], policy::constant);
                        wrong += got[std::size_t((z * ny + y) * nx + x)] != want;
                    }
            CHECK(wrong == 0);
        }
    }
}

TEST_CASE("3-D reads of grids with one width and different plane heights, in one statement, equal the host") {
    // The grid form shares one plane height among its 3-D reads: here the statement runs in
    // the 1-D form, each read finding its own plane. Again with one height, in the grid form.
    const long nx = 24, n_rows = 24;
    const std::size_t n = std::size_t(nx * n_rows);
    const auto hu = loom_test::random_values<float>(n, -1.0f, 1.0f, 913);
    loom::vector<float> u(ctx(), hu), out(ctx(), n);
    for (const auto& [ny_a, ny_b] : {std::array<long, 2>{4, 6}, std::array<long, 2>{6, 6}}) {
        CAPTURE(ny_a);
        CAPTURE(ny_b);
        const auto a = loom::grid(u, std::size_t(nx), std::size_t(ny_a), std::size_t(n_rows / ny_a));
        const auto b = loom::grid(u, std::size_t(nx), std::size_t(ny_b), std::size_t(n_rows / ny_b));
        out = loom::at(a, 1, -1, 1) + 2.0f * loom::at(b, -2, 1, -1, loom::boundary::wrap);
        const auto got = out.to_host();
        std::size_t wrong = 0;
        for (long i = 0; i < long(n); ++i) {
            const long x = i % nx, row = i / nx;
            const float want =
                host_grid3(hu, nx, ny_a, n_rows / ny_a, x + 1, row % ny_a - 1, row / ny_a + 1, policy::clamp, 0) +
                2.0f * host_grid3(hu, nx, ny_b, n_rows / ny_b, x - 2, row % ny_b + 1, row / ny_b - 1, policy::wrap, 0);
            wrong += got[std::size_t(i)] != want;
        }
        CHECK(wrong == 0);
    }
}

TEST_CASE("a 3-D read of a vector written in the same flush ends the kernel before it") {
    const std::size_t nx = 16, ny = 4, nz = 4, n = nx * ny * nz;
    const auto hu = loom_test::random_values<float>(n, -1.0f, 1.0f, 912);
    loom::vector<float> u(ctx(), hu), v(ctx(), n), w(ctx(), n);
    ctx().finish();
    v = u + 1.0f;
    w = loom::at(loom::grid(v, nx, ny, nz), 0, 0, 1) * 2.0f;
    const auto hw = w.to_host();
    const auto r = loom::last_flush(ctx());
    REQUIRE(r.kernels.size() == 2);
    CHECK(r.kernels[0].ends == "neighbour_read");
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t z = i / (nx * ny), up = z + 1 < nz ? i + nx * ny : i;
        REQUIRE(hw[i] == (hu[up] + 1.0f) * 2.0f);
    }
}

TEST_CASE("neighbour reads of an expression read its value as of the statement") {
    const std::size_t n = 301;
    const auto hx = loom_test::random_values<float>(n, -1.0f, 1.0f, 913);
    loom::vector<float> x(ctx(), hx), y(ctx(), n), z(ctx(), n);
    y = loom::shift(x * 2.0f + 1.0f, 3) - loom::shift(loom::fabs(x), -1, loom::boundary::wrap);
    const auto g = loom::grid(x - 1.0f, 7, 43);
    x = 0.0f;                                            // after the grid was made: not seen by it
    z = loom::at(g, 1, -1, loom::boundary::constant(9.0f));
    const auto hy = y.to_host(), hz = z.to_host();
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t right = std::min(i + 3, n - 1), left = (i + n - 1) % n;
        REQUIRE(hy[i] == (hx[right] * 2.0f + 1.0f) - std::fabs(hx[left]));
        const long cx = long(i % 7) + 1, cy = long(i / 7) - 1;
        const float want = cx < 7 && cy >= 0 ? hx[std::size_t(cy * 7 + cx)] - 1.0f : 9.0f;
        REQUIRE(hz[i] == want);
    }
}

TEST_CASE("loom::convolve is one kernel, with coefficients as arguments") {
    const std::size_t n = 1000;
    const auto hx = loom_test::random_values<float>(n, -1.0f, 1.0f, 914);
    loom::vector<float> x(ctx(), hx), y(ctx(), n), z(ctx(), n);
    ctx().finish();
    const std::array<float, 5> smooth{0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
    y = loom::convolve(smooth, x);
    const auto hy = y.to_host();
    CHECK(loom::last_flush(ctx()).kernels.size() == 1);
    auto clamped = [&](long j) { return hx[std::size_t(j < 0 ? 0 : (j >= long(n) ? long(n) - 1 : j))]; };
    for (std::size_t i = 0; i < n; ++i) {
        float want = 0.0f;
        for (long t = 0; t < 5; ++t) want += smooth[std::size_t(t)] * clamped(long(i) + t - 2);
        // The kernel adds in the order of the taps, as the host does.
        REQUIRE(hy[i] == doctest::Approx(want).epsilon(1e-6));
    }
    // Other coefficients: the same kernel, no compile. (The boundary policy is part of the
    // kernel: a wrapped convolution is another one; so is another centre, which moves the tap
    // at offset zero, compiled in as the element's own read.)
    const auto before = ctx().statistics().kernels_compiled;
    const std::array<float, 5> edge{-1.0f, 0.0f, 1.0f, 0.0f, 0.0f};
    z = loom::convolve(edge, x);
    auto hz = z.to_host();
    CHECK(ctx().statistics().kernels_compiled == before);
    for (std::size_t i = 0; i < n; ++i) REQUIRE(hz[i] == clamped(long(i)) - clamped(long(i) - 2));
    z = loom::convolve(edge, x, 1);
    hz = z.to_host();
    for (std::size_t i = 0; i < n; ++i) REQUIRE(hz[i] == clamped(long(i) + 1) - clamped(long(i) - 1));
    z = loom::convolve(edge, x, 1, loom::boundary::wrap);
    hz = z.to_host();
    for (std::size_t i = 0; i < n; ++i) REQUIRE(hz[i] == hx[(i + 1) % n] - hx[(i + n - 1) % n]);
    CHECK_THROWS_AS(loom::convolve(edge, x, 5), loom::error);
}

TEST_CASE("3-D grids reject extents that do not match the vector") {
    loom::vector<float> u(ctx(), 60);
    CHECK_NOTHROW(loom::grid(u, 5, 4, 3));
    const std::string message = loom_test_errors::error_of([&] { (void)loom::grid(u, 4, 4, 4); });
    CHECK(message == "loom: grid of 4 x 4 x 4 does not match a vector of 60 elements; the extents' product must "
                     "equal the vector's size, and none may be 0");
    CHECK_THROWS_AS(loom::grid(u, 60, 1, 0), loom::length_error);
    CHECK_THROWS_AS(loom::grid(u, 0, 0, 0), loom::length_error);
}
