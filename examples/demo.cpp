// Loom's demo: one expression on the default device, checked against the host.
#include <loom/loom.hpp>

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

int main() {
    loom::context ctx;
    const std::size_t n = 1 << 20;
    std::mt19937 gen(42);
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    std::vector<float> hx(n);
    for (float& v : hx) v = dist(gen);

    loom::vector<float> x(ctx, hx), y(ctx, n, 1.0f);
    const float a = 2.5f;
    y = a * x + loom::sin(y) / (1.0f + x * x);
    const std::vector<float> out = y.to_host();

    // The same arithmetic on the host, in float, in the same order.
    float worst = 0.0f;
    for (std::size_t i = 0; i < n; ++i) {
        const float expect = a * hx[i] + std::sin(1.0f) / (1.0f + hx[i] * hx[i]);
        worst = std::fmax(worst, std::fabs(out[i] - expect) / std::fmax(1.0f, std::fabs(expect)));
    }
    std::printf("device:  %s (%s backend, driver %s)\n", ctx.device_name().c_str(), ctx.backend_name().c_str(),
                ctx.driver_version().c_str());
    std::printf("y = a * x + sin(y) / (1 + x * x) over %zu floats, a = %g\n", n, double(a));
    for (std::size_t i : {std::size_t(0), std::size_t(1), n / 2, n - 1})
        std::printf("  y[%zu] = %.7g   (x = %.7g)\n", i, double(out[i]), double(hx[i]));
    const bool ok = worst <= 4e-7f;
    std::printf("check against the host: largest relative difference %.3g -> %s\n", double(worst),
                ok ? "OK" : "FAILED");
    return ok ? 0 : 1;
}
