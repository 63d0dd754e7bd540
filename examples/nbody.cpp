// One step of an N-Body simulation in ordinary Loom code. The pairwise terms are 2-D
// expressions over an N x N virtual matrix, body i's row: dx(i, j) = px[j] - px[i] is
// loom::as_row(px) - loom::as_column(px). The three acceleration components are one reduction
// along the rows of a tuple of expressions, whose kernel computes the terms in registers, each
// pair's distance once: the N x N matrix never exists. The
// accelerations are checked against a host computation in double; then the step integrates.
//   nbody [bodies]      (default 16384)
#include <loom/loom.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <tuple>
#include <vector>

int main(int argc, char** argv) {
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 16384;
    const float eps2 = 1e-4f, dt = 1e-3f; // softening (also makes the i == j term 0) and time step
    std::mt19937 gen(42);
    std::uniform_real_distribution<float> position(-1.0f, 1.0f), mass(0.5f, 1.5f);
    std::vector<float> hx(n), hy(n), hz(n), hm(n);
    for (std::size_t i = 0; i < n; ++i) {
        hx[i] = position(gen);
        hy[i] = position(gen);
        hz[i] = position(gen);
        hm[i] = mass(gen) / float(n);
    }
    loom::context ctx;
    loom::vector<float> px(ctx, hx), py(ctx, hy), pz(ctx, hz), m(ctx, hm);
    loom::vector<float> vx(ctx, n), vy(ctx, n), vz(ctx, n), ax(ctx, n), ay(ctx, n), az(ctx, n);

    // a_i = sum_j m_j (p_j - p_i) / (|p_j - p_i|^2 + eps2)^(3/2)
    const auto dx = loom::as_row(px) - loom::as_column(px);
    const auto dy = loom::as_row(py) - loom::as_column(py);
    const auto dz = loom::as_row(pz) - loom::as_column(pz);
    const auto inv_r = loom::rsqrt(dx * dx + dy * dy + dz * dz + eps2);
    const auto weight = loom::as_row(m) * (inv_r * inv_r * inv_r);
    // The three components in one reduction along the rows: one kernel computes each pair's
    // distance and weight once and folds the three sums.
    auto accelerations = [&] {
        loom::tie(ax, ay, az) = loom::sum(std::make_tuple(weight * dx, weight * dy, weight * dz), loom::axis<1>);
    };
    accelerations(); // compiles the reduction and the copy of its results
    ctx.finish();
    const auto start = std::chrono::steady_clock::now();
    accelerations();
    ctx.finish();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::vector<float> gx = ax.to_host(), gy = ay.to_host(), gz = az.to_host();

    // One step (semi-implicit Euler): element-wise statements, fused into one kernel.
    vx += dt * ax;
    vy += dt * ay;
    vz += dt * az;
    px += dt * vx;
    py += dt * vy;
    pz += dt * vz;
    ctx.finish();

    double worst = 0;
    for (std::size_t i = 0; i < n; ++i) {
        double a[3] = {0, 0, 0};
        for (std::size_t j = 0; j < n; ++j) {
            const double d[3] = {double(hx[j]) - hx[i], double(hy[j]) - hy[i], double(hz[j]) - hz[i]};
            const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
            const double w = hm[j] / (r2 * std::sqrt(r2));
            for (int k = 0; k < 3; ++k) a[k] += w * d[k];
        }
        const double e[3] = {gx[i] - a[0], gy[i] - a[1], gz[i] - a[2]};
        const double norm = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        if (norm > 0) worst = std::max(worst, std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) / norm);
    }
    const bool ok = worst < 1e-3;
    std::printf("nbody: %zu bodies on %s (%s): accelerations in %.1f ms, %.3g interactions/s "
                "(one reduction of three values over %zu x %zu pairs); max relative error %.3g\n%s\n",
                n, ctx.device_name().c_str(), ctx.backend_name().c_str(), seconds * 1e3,
                double(n) * double(n) / seconds, n, n, worst, ok ? "ok" : "error too large");
    return ok ? 0 : 1;
}
