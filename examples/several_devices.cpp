// One program on several devices (docs/multi-device.md): the devices LOOM_DEVICE lists
// (LOOM_DEVICE=0,1 or 0/2), or else this machine's first OpenCL device split into two equal
// sub-devices. Vectors are split into one part per device; the statements are those of a program
// for one device, and each device runs its share.
#include <loom/loom.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main() {
    loom::context_options options;
    const char* listed = std::getenv("LOOM_DEVICE");
    if (!listed || !*listed) {
        options.backend = "opencl";
        options.device = "0/2";
    }
    loom::context ctx = [&] {
        try {
            return loom::context(options);
        } catch (const loom::error& e) { // a device that does not split: the whole device twice
            std::printf("%s\n(two parts on the whole device instead)\n", e.what());
            options.device = "0,0";
            return loom::context(options);
        }
    }();
    std::printf("%zu devices: %s\n", ctx.device_count(), ctx.device_name().c_str());

    const std::size_t n = std::size_t(1) << 22;
    loom::vector<float> x(ctx, n), y(ctx, n);
    x = loom::random_uniform<float>(2024);                 // the same numbers as on one device
    y = 2.0f * x + loom::sin(x);                           // each device computes its part
    const double total = loom::sum(loom::cast<double>(y)); // partial sums folded across the parts
    loom::vector<float> running(ctx, n);
    loom::inclusive_scan(y, running); // each part carries the parts before it

    const std::vector<float> hx = x.to_host(), hy = y.to_host();
    double want = 0;
    for (std::size_t i = 0; i < n; ++i) want += double(2.0f * hx[i] + std::sin(hx[i]));
    const std::vector<double> split = ctx.split();
    for (std::size_t k = 0; k < split.size(); ++k)
        std::printf("part %zu holds %.1f%% of each vector\n", k, 100 * split[k]);
    std::printf("sum %.6f (host %.6f); last running sum %.1f\n", total, want, double(running[n - 1]));
    return std::fabs(total - want) <= 1e-6 * std::fabs(want) ? 0 : 1;
}
