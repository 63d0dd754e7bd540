// 3-D heat equation in a box (a loom::array3): the bottom face (z = 0) held hot, the other faces
// cold, explicit time steps with the 7-point stencil and ping-pong buffers, all steps inside one
// loom::loop (no host round trip). The final field is checked against the same scheme run
// on the host; then the step is timed, as the bytes it must move per second.
//   heat3d [nx] [ny] [nz] [steps]      (default 128 x 96 x 64, 200 steps)
#include <loom/loom.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    auto arg = [&](int k, std::size_t fallback) { return argc > k ? std::strtoull(argv[k], nullptr, 10) : fallback; };
    const std::size_t nx = arg(1, 128), ny = arg(2, 96), nz = arg(3, 64), n = nx * ny * nz;
    const int steps = int(arg(4, 200));
    const float alpha = 0.15f; // stable below 1/6
    loom::context ctx;

    // Boundary cells keep their values: mask is 1 inside, 0 on the faces.
    std::vector<float> h0(n, 0.0f), hmask(n, 1.0f);
    for (std::size_t k = 0; k < nz; ++k)
        for (std::size_t j = 0; j < ny; ++j)
            for (std::size_t i = 0; i < nx; ++i) {
                const std::size_t e = (k * ny + j) * nx + i;
                if (i == 0 || j == 0 || k == 0 || i + 1 == nx || j + 1 == ny || k + 1 == nz) hmask[e] = 0.0f;
                if (k == 0) h0[e] = 100.0f;
            }
    // The field as nz planes of ny rows of nx cells (element (k, j, i), x fastest).
    loom::array3<float> u(ctx, nz, ny, nx, h0), next(ctx, nz, ny, nx), mask(ctx, nz, ny, nx, hmask);

    auto step = [&] {
        const auto g = loom::grid(u); // at(g, di, dj, dk): di along x, dj along y, dk along z
        next = u + alpha * mask *
                       (loom::at(g, -1, 0, 0) + loom::at(g, 1, 0, 0) + loom::at(g, 0, -1, 0) + loom::at(g, 0, 1, 0) +
                        loom::at(g, 0, 0, -1) + loom::at(g, 0, 0, 1) - 6.0f * u);
        loom::swap(u, next);
    };
    loom::loop(ctx, std::uint64_t(steps), step);
    const std::vector<float> field = u.to_host();

    // The same scheme on the host.
    std::vector<float> a = h0, b(n);
    auto at = [&](long i, long j, long k) {
        i = std::clamp(i, 0L, long(nx) - 1);
        j = std::clamp(j, 0L, long(ny) - 1);
        k = std::clamp(k, 0L, long(nz) - 1);
        return a[(std::size_t(k) * ny + std::size_t(j)) * nx + std::size_t(i)];
    };
    for (int s = 0; s < steps; ++s) {
        for (long k = 0; k < long(nz); ++k)
            for (long j = 0; j < long(ny); ++j)
                for (long i = 0; i < long(nx); ++i) {
                    const std::size_t e = (std::size_t(k) * ny + std::size_t(j)) * nx + std::size_t(i);
                    const float lap = at(i - 1, j, k) + at(i + 1, j, k) + at(i, j - 1, k) + at(i, j + 1, k) +
                                      at(i, j, k - 1) + at(i, j, k + 1) - 6.0f * a[e];
                    b[e] = a[e] + alpha * hmask[e] * lap;
                }
        std::swap(a, b);
    }
    float worst = 0.0f;
    for (std::size_t e = 0; e < n; ++e) worst = std::max(worst, std::fabs(field[e] - a[e]));

    // Timed: the kernel and plan are cached; each step is one kernel reading u and mask and
    // writing next (12 bytes per cell at the least).
    const int timed = 50;
    const auto start = std::chrono::steady_clock::now();
    loom::loop(ctx, std::uint64_t(timed), step);
    ctx.finish();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / timed;

    const bool ok = worst <= 1e-3f;
    std::printf("heat3d %zu x %zu x %zu on %s (%s): %d steps; centre temperature %.4f; largest difference from the "
                "host run %g\n%.3f ms per step, %.2f GB/s\n%s\n",
                nx, ny, nz, ctx.device_name().c_str(), ctx.backend_name().c_str(), steps,
                double(field[(nz / 2 * ny + ny / 2) * nx + nx / 2]), double(worst), seconds * 1e3,
                12.0 * double(n) / seconds * 1e-9, ok ? "ok" : "error too large");
    return ok ? 0 : 1;
}
