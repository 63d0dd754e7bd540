// saxpy on the default device: y = a * x + y, checked against the host.
#include <loom/loom.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
    loom::context ctx;
    const std::size_t n = 1 << 20;
    std::vector<float> hx(n), hy(n);
    for (std::size_t i = 0; i < n; ++i) {
        hx[i] = float(i % 1000) * 0.001f;
        hy[i] = 1.0f - float(i % 7) * 0.125f;
    }
    loom::vector<float> x(ctx, hx), y(ctx, hy);
    const float a = 2.5f;
    y = a * x + y;
    const std::vector<float> out = y.to_host();

    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (out[i] != a * hx[i] + hy[i]) ++wrong;
    std::printf("saxpy on %s (%s): y[1234] = %g, %zu of %zu elements differ from the host\n", ctx.device_name().c_str(),
                ctx.backend_name().c_str(), double(out[1234]), wrong, n);
    return wrong == 0 ? 0 : 1;
}
