// Stencil kernels take their border apart (src/codegen/map_kernel.cpp): a chunked 1-D map reads
// element i + offset in each chunk's interior and clamps, wraps or substitutes per element at
// its ends; a 2-D launch does the same per work-group. Offsets shorter than a chunk or group,
// longer than one, and outside the data altogether put elements on both sides of the split,
// as do the partial last chunk of a vector (16 chunks of 3264 elements here) and the partial
// groups of a grid (32 x 8). Every element is compared with the host, exactly.
#include <doctest/doctest.h>

#include "stencil_host.hpp"

using namespace stencil_host;

namespace {

constexpr float outside = 7.5f;

// f(host policy, its name, Loom's policy) for each policy; Loom's are distinct types.
template <class F> void for_each_policy(F f) {
    f(policy::clamp, "clamp", loom::boundary::clamp);
    f(policy::wrap, "wrap", loom::boundary::wrap);
    f(policy::constant, "constant", loom::boundary::constant(outside));
}

} // namespace

TEST_CASE("1-D reads equal the host in interior and border work-groups, for near, far and outside offsets") {
    const long n = 50 * 1024 + 333; // on a 2-unit CPU device: 16 chunks, the last one partial
    const auto hx = random_floats(std::size_t(n), 900);
    loom::vector<float> x(ctx(), hx), y(ctx(), std::size_t(n));
    for_each_policy([&](policy p, const char* name, auto boundary) {
        for (long k : {-1L, 1L, -1023L, 1024L, -1500L, 3000L, n - 1, n + 5, -3 * n}) {
            CAPTURE(name);
            CAPTURE(k);
            // Two reads, so the test covers several offsets; the second goes the other way.
            y = loom::shift(x, k, boundary) * 2.0f - loom::shift(x, -k / 2, boundary);
            const auto hy = y.to_host();
            std::size_t wrong = 0;
            for (long i = 0; i < n; ++i)
                wrong +=
                    hy[std::size_t(i)] != host_at(hx, i + k, p, outside) * 2.0f - host_at(hx, i - k / 2, p, outside);
            CHECK(wrong == 0);
        }
    });
}

TEST_CASE("2-D reads equal the host in interior and border work-groups, for near, far and outside offsets") {
    // 300 x 70: ten groups of 32 across (the last 12 wide), nine of 8 down (the last 6 high).
    // Offsets shorter than a group, as long, longer, and outside the grid.
    const long nx = 300, ny = 70;
    const auto hu = random_floats(std::size_t(nx * ny), 901);
    loom::vector<float> u(ctx(), hu), v(ctx(), hu.size());
    const auto g = loom::grid(u, std::size_t(nx), std::size_t(ny));
    const std::pair<long, long> offsets[] = {{1, 0},  {-1, 0}, {0, 1},    {0, -1},   {31, 7}, {-32, -8},
                                             {33, 9}, {63, 3}, {-64, -4}, {-300, 2}, {2, 70}};
    for_each_policy([&](policy p, const char* name, auto boundary) {
        for (auto [dx, dy] : offsets) {
            CAPTURE(name);
            CAPTURE(dx);
            CAPTURE(dy);
            // The second read is the first turned a quarter round.
            v = loom::at(g, dx, dy, boundary) - 0.5f * loom::at(g, -dy, dx, boundary);
            const auto hv = v.to_host();
            std::size_t wrong = 0;
            for (long y = 0; y < ny; ++y)
                for (long x = 0; x < nx; ++x)
                    wrong +=
                        hv[std::size_t(y * nx + x)] != host_grid(hu, nx, ny, x + dx, y + dy, p, outside) -
                                                           0.5f * host_grid(hu, nx, ny, x - dy, y + dx, p, outside);
            CHECK(wrong == 0);
        }
    });
}

TEST_CASE("a 2-D launch whose kernel also reads along the vector bounds both reads by the group's elements") {
    const long nx = 130, ny = 37;
    const long n = nx * ny;
    const auto hu = random_floats(std::size_t(n), 902), hw = random_floats(std::size_t(n), 903);
    loom::vector<float> u(ctx(), hu), w(ctx(), hw), out(ctx(), std::size_t(n));
    const auto g = loom::grid(u, std::size_t(nx), std::size_t(ny));
    // A shift of one row reads the element below; a shift of 70 rows reads past the end.
    for_each_policy([&](policy p, const char* name, auto boundary) {
        for (long k : {1L, -1L, nx, -nx, 4 * nx + 3, 70 * nx}) {
            CAPTURE(name);
            CAPTURE(k);
            out = loom::at(g, 1, -1) + loom::shift(w, k, boundary);
            const auto ho = out.to_host();
            std::size_t wrong = 0;
            for (long i = 0; i < n; ++i)
                wrong += ho[std::size_t(i)] != host_grid(hu, nx, ny, i % nx + 1, i / nx - 1, policy::clamp, 0) +
                                                   host_at(hw, i + k, p, outside);
            CHECK(wrong == 0);
        }
    });
}
