// The 2-D heat equation of heat2d.cpp on every device of a context over several (the devices
// LOOM_DEVICE lists, LOOM_DEVICE=0,1 or 0/2; else this machine's first OpenCL device split into
// two sub-devices): the plate's rows split over the devices, each step's five-point stencil
// reading its neighbours across the split from halos (docs/multi-device.md). Checked against the
// same steps on one device: equal bit for bit.
#include <loom/loom.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

const std::size_t nx = 96, ny = 96, n = nx * ny, steps = 400;
const float alpha = 0.24f;

// The plate after `steps` steps (the left edge held at 100, the other edges at 0), and the largest
// change of the last step.
std::vector<float> heat(loom::context& ctx, float& change) {
    std::vector<float> h0(n, 0.0f), hmask(n, 1.0f);
    for (std::size_t j = 0; j < ny; ++j)
        for (std::size_t i = 0; i < nx; ++i)
            if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) {
                hmask[j * nx + i] = 0.0f;
                if (i == 0) h0[j * nx + i] = 100.0f;
            }
    loom::vector<float> u(ctx, h0), next(ctx, n), mask(ctx, hmask);
    for (std::size_t step = 0; step < steps; ++step) {
        const auto g = loom::grid(u, nx, ny);
        next = u + alpha * mask *
                       (loom::at(g, -1, 0) + loom::at(g, 1, 0) + loom::at(g, 0, -1) + loom::at(g, 0, 1) - 4.0f * u);
        if (step + 1 == steps) change = loom::max(loom::fabs(next - u));
        loom::swap(u, next);
    }
    return u.to_host();
}

} // namespace

int main() {
    loom::context_options options;
    const char* listed = std::getenv("LOOM_DEVICE");
    if (!listed || !*listed) {
        options.backend = "opencl";
        options.device = "0/2";
    }
    loom::context several = [&] {
        try {
            return loom::context(options);
        } catch (const loom::error& e) { // a device that does not split: the whole device twice
            std::printf("%s\n(two parts on the whole device instead)\n", e.what());
            options.device = "0,0";
            return loom::context(options);
        }
    }();
    loom::context_options first = options;
    first.device = "0";
    loom::context one(first);
    float change = 0, change_one = 0;
    const std::vector<float> field = heat(several, change), reference = heat(one, change_one);
    std::size_t differ = 0;
    for (std::size_t k = 0; k < n; ++k) differ += field[k] != reference[k];
    std::printf("heat2d_multi %zux%zu, %zu steps on %zu devices (%s): centre %.4f, last change %g; %zu of %zu cells "
                "differ from one device\n",
                nx, ny, steps, several.device_count(), several.device_name().c_str(),
                double(field[(ny / 2) * nx + nx / 2]), double(change), differ, n);
    return differ == 0 && change == change_one ? 0 : 1;
}
