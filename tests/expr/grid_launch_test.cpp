// Grid kernels: on CPU devices a kernel with 2-D neighbour reads runs on a 2-D range when
// every grid it reads has one width (launch::grid_geometry), else as a 1-D map. Both
// forms are checked element by element against the host; the NVRTC pass of this suite
// (nvrtc_all_kernels.cpp) compiles the grid forms as CUDA too.
#include "support.hpp"

#include "launch/policy.hpp"

using loom_test::ctx;

namespace {

std::vector<float> random_floats(std::size_t n, std::uint64_t stream) {
    return loom_test::random_values<float>(n, -1.0f, 1.0f, stream);
}

// The clamped value of (x, y) on an nx-wide grid of v.
float clamped(const std::vector<float>& v, long nx, long x, long y) {
    const long ny = long(v.size()) / nx;
    x = x < 0 ? 0 : (x >= nx ? nx - 1 : x);
    y = y < 0 ? 0 : (y >= ny ? ny - 1 : y);
    return v[std::size_t(y * nx + x)];
}

float wrapped(const std::vector<float>& v, long nx, long x, long y) {
    const long ny = long(v.size()) / nx;
    return v[std::size_t(((y % ny + ny) % ny) * nx + ((x % nx + nx) % nx))];
}

} // namespace

TEST_CASE("grid geometry: a 2-D range covering every row, or none when the rows do not tile") {
    loom::backend::geometry g;
    loom::backend::device_info cpu;
    cpu.compute_units = 2;
    const auto range = loom::ir::map_form::grid_stride;
    CHECK(loom::launch::grid_geometry(cpu, range, 2049, 2049u * 2047, g));
    CHECK(g.group_size == 32);
    CHECK(g.group_rows == 8);
    CHECK(g.global_items == 2080); // 2049 rounded up to the group
    CHECK(g.rows == 2048);
    CHECK(loom::launch::grid_geometry(cpu, range, 37, 37 * 23, g));
    CHECK(g.group_size == 32);
    CHECK(g.global_items == 64);
    CHECK(g.rows == 24);
    CHECK(loom::launch::grid_geometry(cpu, range, 20, 20 * 33, g)); // narrower than a group of 32
    CHECK(g.group_size == 16);
    CHECK(g.global_items == 32);
    CHECK(g.rows == 40);
    CHECK_FALSE(loom::launch::grid_geometry(cpu, range, 8, 8 * 100, g));      // too narrow for a vector
    CHECK_FALSE(loom::launch::grid_geometry(cpu, range, 64, 64 * 10 + 1, g)); // not whole rows
}

TEST_CASE("grid geometry: a tuned group shape, and the shapes the tuner measures") {
    loom::backend::geometry g;
    loom::backend::device_info gpu;
    gpu.compute_units = 132;
    gpu.gpu = true;
    gpu.max_work_group = 1024;
    const auto range = loom::ir::map_form::grid_stride;
    CHECK(loom::launch::grid_geometry(gpu, range, 4096, 4096u * 300, g, {loom::launch::grid_shape(128, 2)}));
    CHECK(g.group_size == 128);
    CHECK(g.group_rows == 2);
    CHECK(g.global_items == 4096);
    CHECK(g.rows == 300);
    CHECK(loom::launch::grid_geometry(gpu, range, 4000, 4000u * 301, g, {loom::launch::grid_shape(256, 1)}));
    CHECK(g.global_items == 4096); // 4000 rounded up to the group
    CHECK(g.rows == 301);
    CHECK(loom::launch::grid_geometry(gpu, range, 4096, 4096u * 300, g, {128})); // a block size: the default
    CHECK(g.group_size == 32);
    CHECK(g.group_rows == 8);
    const auto shapes = loom::launch::grid_tuning_candidates(gpu, range);
    REQUIRE(shapes.size() == 6);
    CHECK(shapes.front().value == 0); // the default first
    CHECK(shapes[2].value == loom::launch::grid_shape(128, 2));
    gpu.max_work_group = 128; // a device whose groups are smaller: the shapes that fit
    CHECK(loom::launch::grid_tuning_candidates(gpu, range).size() == 2);
    CHECK(loom::launch::grid_tuning_candidates(gpu, loom::ir::map_form::chunked) ==
          loom::launch::tuning_candidates(gpu, loom::ir::map_form::chunked));
}

TEST_CASE("grid geometry, chunked: a 1-D launch of row bands, never more work-items than rows") {
    loom::backend::geometry g;
    loom::backend::device_info cpu;
    cpu.compute_units = 2;
    const auto bands = loom::ir::map_form::chunked;
    CHECK(loom::launch::grid_geometry(cpu, bands, 2048, 2048u * 2048, g));
    CHECK(g.rows == 0);
    CHECK(g.group_size == 1);
    CHECK(g.global_items == 16); // 8 per compute unit
    CHECK(loom::launch::grid_geometry(cpu, bands, 4096, 4096u * 5, g));
    CHECK(g.global_items == 5);
    CHECK_FALSE(loom::launch::grid_geometry(cpu, bands, 64, 64 * 10 + 1, g));
}

TEST_CASE("grid kernels on a 2-D range and their 1-D fallbacks equal the host, element by element") {
    // (nx, ny): rows wider than a group and not a multiple of it, rows narrower than a
    // group, and a grid too narrow for a 2-D launch.
    for (auto [nx, ny] : {std::pair<long, long>{97, 41}, {20, 33}, {8, 50}}) {
        CAPTURE(nx);
        CAPTURE(ny);
        const std::size_t n = std::size_t(nx * ny);
        const auto hu = random_floats(n, 700 + std::uint64_t(nx));
        loom::vector<float> u(ctx(), hu), v(ctx(), n), w(ctx(), n);
        const auto g = loom::grid(u, std::size_t(nx), std::size_t(ny));
        v = loom::at(g, -1, 0) + loom::at(g, 1, 0) + loom::at(g, 0, -1) + loom::at(g, 0, 1) - 4.0f * u;
        // The second wrapped read goes round the grid more than once in each direction.
        const long far_x = -(2 * nx + 3), far_y = 3 * ny + 5;
        w = loom::at(g, 2, -3, loom::boundary::wrap) * loom::at(g, -1, 1, loom::boundary::constant(0.5f)) +
            loom::at(g, far_x, far_y, loom::boundary::wrap);
        const auto hv = v.to_host(), hw = w.to_host();
        std::size_t wrong = 0;
        for (long y = 0; y < ny; ++y)
            for (long x = 0; x < nx; ++x) {
                const std::size_t i = std::size_t(y * nx + x);
                const float lap = clamped(hu, nx, x - 1, y) + clamped(hu, nx, x + 1, y) + clamped(hu, nx, x, y - 1) +
                                  clamped(hu, nx, x, y + 1) - 4.0f * hu[i];
                const bool inside = x - 1 >= 0 && y + 1 < ny;
                const float product = wrapped(hu, nx, x + 2, y - 3) * (inside ? hu[i - 1 + std::size_t(nx)] : 0.5f) +
                                      wrapped(hu, nx, x + far_x, y + far_y);
                wrong += hv[i] != lap || hw[i] != product;
            }
        CHECK(wrong == 0);
    }
}

TEST_CASE("a kernel reading grids of two widths runs as a 1-D map and equals the host") {
    const long n = 64 * 48;
    const auto ha = random_floats(std::size_t(n), 703), hb = random_floats(std::size_t(n), 704);
    loom::vector<float> a(ctx(), ha), b(ctx(), hb), out(ctx(), std::size_t(n));
    const auto wide = loom::grid(a, 64, 48), tall = loom::grid(b, 48, 64);
    out = loom::at(wide, 1, 1) - loom::at(tall, -2, 3);
    const auto ho = out.to_host();
    std::size_t wrong = 0;
    for (long i = 0; i < n; ++i)
        wrong +=
            ho[std::size_t(i)] != clamped(ha, 64, i % 64 + 1, i / 64 + 1) - clamped(hb, 48, i % 48 - 2, i / 48 + 3);
    CHECK(wrong == 0);
}

TEST_CASE("matrix and 3-D array statements with positions equal the host on whole rows and in the 1-D form") {
    // Rows of 97 and 20 run on the grid launch (row and column from it, no division), rows of 8
    // in the 1-D form; a statement beside a stencil on a grid of another width runs 1-D too. The
    // gather reads row (r & ~7) + 3 of the same column, as the block DCT's column pass does.
    for (auto [rows, cols] : {std::pair<std::size_t, std::size_t>{41, 97}, {33, 20}, {50, 8}}) {
        CAPTURE(rows);
        CAPTURE(cols);
        const std::size_t n = rows * cols;
        const auto hx = random_floats(n, 705), hc = random_floats(rows, 706), hr = random_floats(cols, 707);
        loom::vector<float> cv(ctx(), hc), rv(ctx(), hr);
        loom::matrix<float> x(ctx(), rows, cols, hx), m(ctx(), rows, cols), beside(ctx(), rows, cols);
        const auto i = loom::index<0>();
        const auto j = loom::index<1>();
        const std::uint64_t band = ~std::uint64_t(7), width = cols;
        m = loom::cast<float>(i) * 1000.0f + loom::cast<float>(j) + loom::as_column(cv) * loom::as_row(rv) +
            loom::gather(x.elements(), (((i & band) + 3) % rows) * width + j);
        const auto g = loom::grid(x.elements(), rows, cols); // rows wide: another width
        beside = loom::cast<float>(j) - loom::at(g, 1, 0);
        const auto hm = m.to_host(), hb = beside.to_host();
        std::size_t wrong = 0;
        for (std::size_t r = 0; r < rows; ++r)
            for (std::size_t c = 0; c < cols; ++c) {
                const std::size_t e = r * cols + c;
                const float want =
                    float(r) * 1000.0f + float(c) + hc[r] * hr[c] + hx[((r & band) + 3) % rows * cols + c];
                const long gx = long(e % rows), gy = long(e / rows); // the other grid's coordinates
                wrong += hm[e] != want || hb[e] != float(c) - clamped(hx, long(rows), gx + 1, gy);
            }
        CHECK(wrong == 0);
    }
    const std::size_t d0 = 5, d1 = 6, d2 = 40;
    loom::array3<float> a(ctx(), d0, d1, d2);
    a = loom::cast<float>(loom::index<0>()) * 10000.0f + loom::cast<float>(loom::index<1>()) * 100.0f +
        loom::cast<float>(loom::index<2>());
    const auto ha = a.to_host();
    std::size_t wrong = 0;
    for (std::size_t p = 0; p < d0; ++p)
        for (std::size_t r = 0; r < d1; ++r)
            for (std::size_t c = 0; c < d2; ++c)
                wrong += ha[(p * d1 + r) * d2 + c] != float(p) * 10000.0f + float(r) * 100.0f + float(c);
    CHECK(wrong == 0);
}
