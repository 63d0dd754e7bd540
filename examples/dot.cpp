// Dot product on the default device: loom::sum(x * y) runs as one fused reduction
// (no temporary for x * y), checked against a host sum in double.
#include <loom/loom.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
    loom::context ctx;
    const std::size_t n = 1 << 22;
    std::vector<float> hx(n), hy(n);
    for (std::size_t i = 0; i < n; ++i) {
        hx[i] = float(i % 1000) * 0.001f - 0.5f;
        hy[i] = 1.0f - float(i % 7) * 0.125f;
    }
    loom::vector<float> x(ctx, hx), y(ctx, hy);
    const float dot = loom::sum(x * y);

    double ref = 0, magnitude = 0;
    for (std::size_t i = 0; i < n; ++i) {
        ref += double(hx[i]) * hy[i];
        magnitude += std::fabs(double(hx[i]) * hy[i]);
    }
    // Tree summation in float: the error is a few ulps of sum |x_i y_i| (docs/skeleton-reduce.md).
    const double error = std::fabs(dot - ref);
    const bool ok = error <= 1e-4 * magnitude;
    std::printf("dot on %s (%s): %.6g, host %.9g, |error| %.3g (%s)\n", ctx.device_name().c_str(),
                ctx.backend_name().c_str(), double(dot), ref, error, ok ? "ok" : "too large");
    return ok ? 0 : 1;
}
