// Stencils: 1-D shift and 2-D grid reads with every boundary policy against a host
// reference, in-place stencils, and where the fusion pass puts kernel boundaries.
#include <doctest/doctest.h>

#include "stencil_host.hpp"

using namespace stencil_host;

TEST_CASE("stencil_shift_reads_neighbours_with_each_boundary_policy") {
    for (std::size_t n : {1u, 2u, 3u, 257u, 4096u}) {
        const auto hx = random_floats(n, 11 + unsigned(n));
        loom::vector<float> x(ctx(), hx), clamp(ctx(), n), wrap(ctx(), n), constant(ctx(), n);
        for (long k : {-3L, -1L, 1L, 2L}) {
            clamp = loom::shift(x, k) - x;
            wrap = loom::shift(x, k, loom::boundary::wrap) - x;
            constant = loom::shift(x, k, loom::boundary::constant(7.5f)) - x;
            const auto hc = clamp.to_host(), hw = wrap.to_host(), hk = constant.to_host();
            for (std::size_t i = 0; i < n; ++i) {
                const long j = long(i) + k;
                INFO("n " << n << " k " << k << " i " << i);
                REQUIRE(hc[i] == host_at(hx, j, policy::clamp, 0) - hx[i]);
                REQUIRE(hw[i] == host_at(hx, j, policy::wrap, 0) - hx[i]);
                REQUIRE(hk[i] == host_at(hx, j, policy::constant, 7.5f) - hx[i]);
            }
        }
    }
}

TEST_CASE("stencil_grid_coordinates_are_exact_on_a_large_grid_with_far_offsets") {
    // Rows come from a division of the element index (a double division on CPU devices,
    // src/codegen/map_kernel.cpp): every element of a 2049 x 2047 grid checks it.
    const long nx = 2049, ny = 2047;
    const auto hu = random_floats(std::size_t(nx * ny), 9);
    loom::vector<float> u(ctx(), hu), v(ctx(), hu.size());
    const auto g = loom::grid(u, std::size_t(nx), std::size_t(ny));
    v = loom::at(g, 3, -2, loom::boundary::wrap) - loom::at(g, -5, 7);
    const auto hv = v.to_host();
    std::size_t wrong = 0;
    for (long y = 0; y < ny; ++y)
        for (long x = 0; x < nx; ++x) {
            const float expect = host_grid(hu, nx, ny, x + 3, y - 2, policy::wrap, 0.0f) -
                                 host_grid(hu, nx, ny, x - 5, y + 7, policy::clamp, 0.0f);
            wrong += hv[std::size_t(y * nx + x)] != expect;
        }
    CHECK(wrong == 0);
}

TEST_CASE("stencil_grid_five_point_laplacian_with_each_boundary_policy") {
    const long nx = 37, ny = 23;
    const auto hu = random_floats(std::size_t(nx * ny), 5);
    loom::vector<float> u(ctx(), hu), v(ctx(), hu.size());
    const auto g = loom::grid(u, std::size_t(nx), std::size_t(ny));
    for (policy p : {policy::clamp, policy::wrap, policy::constant}) {
        if (p == policy::clamp)
            v = loom::at(g, -1, 0) + loom::at(g, 1, 0) + loom::at(g, 0, -1) + loom::at(g, 0, 1) - 4.0f * u;
        else if (p == policy::wrap)
            v = loom::at(g, -1, 0, loom::boundary::wrap) + loom::at(g, 1, 0, loom::boundary::wrap) +
                loom::at(g, 0, -1, loom::boundary::wrap) + loom::at(g, 0, 1, loom::boundary::wrap) - 4.0f * u;
        else
            v = loom::at(g, -1, 0, loom::boundary::constant(1.0f)) + loom::at(g, 1, 0, loom::boundary::constant(1.0f)) +
                loom::at(g, 0, -1, loom::boundary::constant(1.0f)) + loom::at(g, 0, 1, loom::boundary::constant(1.0f)) -
                4.0f * u;
        const auto hv = v.to_host();
        for (long y = 0; y < ny; ++y)
            for (long x = 0; x < nx; ++x) {
                auto at = [&](long dx, long dy) { return host_grid(hu, nx, ny, x + dx, y + dy, p, 1.0f); };
                const float expect = at(-1, 0) + at(1, 0) + at(0, -1) + at(0, 1) - 4.0f * hu[std::size_t(y * nx + x)];
                INFO("policy " << int(p) << " x " << x << " y " << y);
                REQUIRE(hv[std::size_t(y * nx + x)] == expect);
            }
    }
    CHECK_THROWS_WITH(loom::grid(u, 10, 10), "loom: grid of 10 x 10 does not match a vector of 851 elements; the "
                                             "extents' product must equal the vector's size, and none may be 0");
}

TEST_CASE("stencil_reading_its_own_target_uses_the_old_values") {
    const std::size_t n = 1000;
    const auto hx = random_floats(n, 3);
    loom::vector<float> x(ctx(), hx);
    x = 0.5f * (loom::shift(x, -1) + loom::shift(x, 1));
    const auto out = x.to_host();
    for (std::size_t i = 0; i < n; ++i)
        REQUIRE(out[i] ==
                0.5f * (host_at(hx, long(i) - 1, policy::clamp, 0) + host_at(hx, long(i) + 1, policy::clamp, 0)));
}

TEST_CASE("stencil_fuses_with_element_wise_work_unless_it_reads_what_the_kernel_writes") {
    const std::size_t n = 512;
    const auto hx = random_floats(n, 9);
    loom::vector<float> x(ctx(), hx), y(ctx(), n), z(ctx(), n);
    ctx().finish();

    // Reads of an input nobody writes in the flush: one kernel.
    y = x * 2.0f;
    z = loom::shift(x, 1) + y;
    (void)z.to_host();
    auto r = loom::last_flush(ctx());
    CHECK(r.kernels.size() == 1);

    // A neighbour read of y, written just before: the kernel ends there.
    y = x * 3.0f;
    z = loom::shift(y, 1) + x;
    const auto hz = z.to_host();
    r = loom::last_flush(ctx());
    REQUIRE(r.kernels.size() == 2);
    CHECK(r.kernels[0].ends == "neighbour_read");
    for (std::size_t i = 0; i < n; ++i) REQUIRE(hz[i] == 3.0f * hx[std::min(i + 1, n - 1)] + hx[i]);

    // A write to x after a neighbour read of x: the kernel ends before the write.
    z = loom::shift(x, -1);
    x = z * 2.0f;
    const auto hx2 = x.to_host();
    r = loom::last_flush(ctx());
    REQUIRE(r.kernels.size() == 2);
    CHECK(r.kernels[0].ends == "neighbour_write");
    for (std::size_t i = 0; i < n; ++i) REQUIRE(hx2[i] == 2.0f * hx[i == 0 ? 0 : i - 1]);
}

TEST_CASE("stencil offsets are kernel arguments: a sweep makes one more plan only for the zero offset") {
    // A zero offset is compiled in (the read is the element's own, with no clamp): the one
    // offset value that makes another plan and kernel. Values are checked for every offset,
    // twice, so a kernel made for zero never serves another offset, nor the reverse.
    loom::context own(loom::context_options{"opencl", "", -1}); // its plans are this test's alone
    const auto hx = random_floats(300, 1);
    loom::vector<float> x(own, hx), y(own, 300);
    own.finish(); // the vectors' fills, apart
    y = loom::shift(x, 1);
    y.to_host();
    const auto before = own.statistics();
    for (int sweep = 0; sweep < 2; ++sweep)
        for (long k = -5; k <= 5; ++k) {
            y = loom::shift(x, k);
            const auto hy = y.to_host();
            for (std::size_t i = 0; i < hx.size(); ++i) {
                INFO("sweep " << sweep << " k " << k << " i " << i);
                REQUIRE(hy[i] == host_at(hx, long(i) + k, policy::clamp, 0));
            }
        }
    const auto after = own.statistics();
    CHECK(after.plans_made == before.plans_made + 1);
    CHECK(after.kernels_compiled + after.disk_hits <= before.kernels_compiled + before.disk_hits + 1);
}

TEST_CASE("loop_runs_a_ping_pong_stencil_with_one_plan_and_no_waits") {
    const std::size_t n = 4096;
    const auto h0 = random_floats(n, 21);
    loom::vector<float> u(ctx(), h0), next(ctx(), n);
    ctx().finish();
    const auto before = ctx().statistics();
    loom::loop(ctx(), 50, [&] {
        next = u + 0.25f * (loom::shift(u, -1) - 2.0f * u + loom::shift(u, 1));
        loom::swap(u, next);
    });
    const auto out = u.to_host();
    const auto after = ctx().statistics();
    CHECK(after.kernels_launched - before.kernels_launched == 50);
    CHECK(after.plans_made - before.plans_made <= 2); // the first iterations plan; the rest reuse
    std::vector<float> a = h0, b(n);
    for (int it = 0; it < 50; ++it) {
        for (std::size_t i = 0; i < n; ++i) {
            const float l = a[i == 0 ? 0 : i - 1], r = a[i + 1 == n ? n - 1 : i + 1];
            b[i] = a[i] + 0.25f * (l - 2.0f * a[i] + r);
        }
        std::swap(a, b);
    }
    CHECK(out == a);
}

TEST_CASE("loop_until_stops_on_its_condition_checking_every_k_iterations") {
    loom::vector<float> x(ctx(), 16, 0.0f);
    int checks = 0;
    const auto ran = loom::loop_until(
        ctx(), [&] { x = x + 1.0f; },
        [&] {
            ++checks;
            return float(x[3]) >= 10.0f;
        },
        4);
    CHECK(ran == 12); // the first check after x reached 10 comes after iteration 12
    CHECK(checks == 3);
    CHECK(float(x[0]) == 12.0f);
    const auto exact = loom::loop_until(
        ctx(), [&] { x = x + 1.0f; }, [&] { return float(x[0]) >= 15.0f; }, 1);
    CHECK(exact == 3);
}

TEST_CASE("pipeline_runs_its_stages_fused_and_reusable") {
    const std::size_t n = 1024;
    const auto hx = random_floats(n, 4);
    loom::vector<float> x(ctx(), hx), y(ctx(), n, 1.0f), a(ctx(), n), z(ctx(), n);
    loom::pipeline p(ctx());
    p.stage([&] { a = x * x; }).stage([&] { z = a + y; }).stage([&] { y = z - x; });
    ctx().finish();
    const auto before = ctx().statistics();
    for (int run = 0; run < 5; ++run) p.run();
    const auto hy = y.to_host();
    CHECK(ctx().statistics().kernels_launched - before.kernels_launched == 5);
    std::vector<float> ref(n, 1.0f);
    for (int run = 0; run < 5; ++run)
        for (std::size_t i = 0; i < n; ++i) ref[i] = (hx[i] * hx[i] + ref[i]) - hx[i];
    CHECK(hy == ref);
}

TEST_CASE("a 2048-tap convolution written as 2048 statements is a handful of kernels, equal to the host") {
    // Each statement brings two scalars (a coefficient and an offset): past the device's
    // parameter limit they travel in the packed-scalar buffer, so only the 256-statement flush
    // limit cuts the stream: 8 kernels, not one per 60 statements.
    const long n = 8192, taps = 2048;
    const auto hx = random_floats(std::size_t(n), 950);
    const auto hc = random_floats(std::size_t(taps), 951);
    loom::vector<float> x(ctx(), hx), y(ctx(), std::size_t(n), 0.0f);
    ctx().finish();
    const auto before = ctx().statistics();
    for (long j = 0; j < taps; ++j) y += hc[std::size_t(j)] * loom::shift(x, j - taps / 2, loom::boundary::clamp);
    const auto got = y.to_host();
    const auto launched = ctx().statistics().kernels_launched - before.kernels_launched;
    CAPTURE(launched);
    CHECK(launched <= 8);
    std::size_t wrong = 0;
    for (long i = 0; i < n; ++i) {
        float acc = 0.0f;
        for (long j = 0; j < taps; ++j) acc += hc[std::size_t(j)] * host_at(hx, i + j - taps / 2, policy::clamp, 0.0f);
        wrong += got[std::size_t(i)] != acc;
    }
    CHECK(wrong == 0);
}
