// Monte Carlo estimate of pi on the default device: 2^26 points (x, y) drawn uniform on the unit
// square, counted inside the quarter circle, in one fused reduction. No vector holds the points:
// loom::index(ctx, n) gives the reduction its length, and each draw is computed where it is used
// (counter-based Philox4x32-10, docs/random.md), so the same seed gives the same estimate on
// every device and backend.
#include <loom/loom.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>

int main() {
    loom::context ctx;
    const std::uint64_t n = std::uint64_t(1) << 26, seed = 2026;
    const auto i = loom::index(ctx, n);
    const auto x = loom::random_uniform<float>(i, seed, 0); // stream 0: the x coordinates
    const auto y = loom::random_uniform<float>(i, seed, 1); // stream 1: the y coordinates
    const std::uint64_t inside = loom::count(x * x + y * y <= 1.0f);

    const double pi = 4.0 * double(inside) / double(n);
    // The estimate's standard error is 4 sqrt(p (1 - p) / n), p = pi / 4: about 2e-4 here.
    const double error = std::fabs(pi - M_PI), standard_error = 4.0 * std::sqrt(0.25 * M_PI * (1 - 0.25 * M_PI) / n);
    const bool ok = error <= 5 * standard_error;
    std::printf("pi on %s (%s) from %llu points: %.6f, |error| %.2g, %.1f standard errors (%s)\n",
                ctx.device_name().c_str(), ctx.backend_name().c_str(), static_cast<unsigned long long>(n), pi, error,
                error / standard_error, ok ? "ok" : "too large");
    return ok ? 0 : 1;
}
