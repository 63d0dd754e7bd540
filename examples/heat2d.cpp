// 2-D heat equation on a square plate: the left edge held hot, the other edges cold,
// explicit time steps (five-point stencil, ping-pong buffers) until the largest change
// per step falls below a tolerance. The residual stays on the device (a loom::scalar);
// the host looks at the loop's condition every 25 steps, yet the loop stops at exactly
// the first step whose residual is below the tolerance. The final field is checked
// against the same scheme run on the host, stopping by the same rule.
#include <loom/loom.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

int main() {
    const std::size_t nx = 96, ny = 96, n = nx * ny;
    const float alpha = 0.24f, tolerance = 1e-3f;
    loom::context ctx;

    // Boundary cells keep their values: mask is 1 inside, 0 on the edges.
    std::vector<float> h0(n, 0.0f), hmask(n, 1.0f);
    for (std::size_t j = 0; j < ny; ++j)
        for (std::size_t i = 0; i < nx; ++i)
            if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) {
                hmask[j * nx + i] = 0.0f;
                if (i == 0) h0[j * nx + i] = 100.0f;
            }
    loom::vector<float> u(ctx, h0), next(ctx, n), mask(ctx, hmask);
    loom::scalar<float> residual(ctx, tolerance); // the largest change of the last step

    const auto syncs_before = ctx.statistics().host_syncs;
    const auto steps = loom::loop_while(
        ctx, residual >= tolerance,
        [&] {
            const auto g = loom::grid(u, nx, ny);
            const auto laplacian =
                loom::at(g, -1, 0) + loom::at(g, 1, 0) + loom::at(g, 0, -1) + loom::at(g, 0, 1) - 4.0f * u;
            next = u + alpha * mask * laplacian;
            residual = loom::max(loom::fabs(next - u), loom::on_device);
            loom::swap(u, next);
        },
        /*check_every=*/25, /*max_iterations=*/100000);
    const auto syncs = ctx.statistics().host_syncs - syncs_before;
    const std::vector<float> field = u.to_host();

    // The same scheme on the host, stopping by the same rule.
    std::vector<float> a = h0, b(n);
    std::uint64_t host_steps = 0;
    for (float change = tolerance; change >= tolerance && host_steps < 100000; ++host_steps) {
        change = 0.0f;
        for (std::size_t j = 0; j < ny; ++j)
            for (std::size_t i = 0; i < nx; ++i) {
                const std::size_t k = j * nx + i;
                const auto at = [&](long di, long dj) {
                    const long x = std::clamp(long(i) + di, 0L, long(nx) - 1),
                               y = std::clamp(long(j) + dj, 0L, long(ny) - 1);
                    return a[std::size_t(y) * nx + std::size_t(x)];
                };
                const float lap = at(-1, 0) + at(1, 0) + at(0, -1) + at(0, 1) - 4.0f * a[k];
                b[k] = a[k] + alpha * hmask[k] * lap;
                change = std::max(change, std::fabs(b[k] - a[k]));
            }
        std::swap(a, b);
    }
    float worst = 0.0f;
    for (std::size_t k = 0; k < n; ++k) worst = std::max(worst, std::fabs(field[k] - a[k]));
    std::printf("heat2d %zux%zu on %s: converged after %llu steps (host: %llu), residual < %g; %llu host syncs\n", nx,
                ny, ctx.device_name().c_str(), static_cast<unsigned long long>(steps),
                static_cast<unsigned long long>(host_steps), double(tolerance), static_cast<unsigned long long>(syncs));
    std::printf("centre temperature %.4f; largest difference from the host run: %g\n",
                double(field[(ny / 2) * nx + nx / 2]), double(worst));
    return worst <= 1e-3f && steps == host_steps ? 0 : 1;
}
