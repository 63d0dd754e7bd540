// Mandelbrot (uneven work per element): escape counts of a width x height image, 100 iterations
// at most. Loom runs it as examples/mandelbrot.cpp does, a loom::loop of masked element-wise
// updates (fused into one kernel per iteration; fusion off: one kernel per statement); the
// handwritten OpenCL kernel iterates each pixel in registers and stops at escape, tuned over
// the work-group size. Boost.Compute would need the loop as kernel source text: not measured.
// Counts are checked against the host, pixel by pixel.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"
#include "opencl_baseline.hpp"

namespace {

constexpr int iterations = 100;

struct image {
    std::size_t width, height;
    float sx, sy; // pixel (x, y) is c = (x sx - 2.2, y sy - 1.1)
};

image image_of(std::size_t n) {
    image g;
    g.width = std::size_t(std::llround(std::sqrt(double(n)))); // sizes are 4^k
    g.height = n / g.width;
    g.sx = 3.2f / float(g.width);
    g.sy = 2.2f / float(g.height);
    return g;
}

// The host count, as Loom's form computes it: every iteration adds 1 while |z|^2 <= 4.
std::vector<float> reference(std::size_t n) {
    const image g = image_of(n);
    std::vector<float> out(n);
    bench::parallel_for(n, [&](std::size_t b, std::size_t e) {
        for (std::size_t p = b; p < e; ++p) {
            const float cr = float(p % g.width) * g.sx - 2.2f, ci = float(p / g.width) * g.sy - 1.1f;
            float r = 0, i = 0, count = 0;
            for (int k = 0; k < iterations; ++k) {
                if (!(r * r + i * i <= 4.0f)) break;
                count += 1;
                const float nr = r * r - i * i + cr;
                i = 2.0f * r * i + ci;
                r = nr;
            }
            out[p] = count;
        }
    });
    return out;
}

// Pixels on the set's edge may escape one iteration apart when the device rounds differently
// (x*y+z contracted or not): up to 1 in 1000 pixels may differ, by at most 2.
std::string check(const std::vector<float>& got, std::size_t n) {
    const std::vector<float> ref = reference(n);
    std::size_t bad = 0, worse = 0;
    for (std::size_t p = 0; p < n; ++p) {
        if (got[p] != ref[p]) ++bad;
        if (!(std::fabs(got[p] - ref[p]) <= 2)) ++worse;
    }
    if (bad * 1000 <= n && worse == 0) return {};
    return std::to_string(bad) + " of " + std::to_string(n) + " pixels differ from the host (" + std::to_string(worse) +
           " by more than 2)";
}

std::string key(const std::string& variant, std::size_t n) { return "mandelbrot/" + variant + "/" + std::to_string(n); }

// ---- Loom ----------------------------------------------------------------------------------

struct loom_instance {
    std::string error;
    loom::context* ctx = nullptr;
    std::vector<loom::vector<float>> v; // cr, ci, zr, zi, count, and fusion off's inside, next_r
};

void loom_mandelbrot(loom_instance& p, bool fused) {
    loom::context& ctx = *p.ctx;
    loom::vector<float>&cr = p.v[0], &ci = p.v[1], &zr = p.v[2], &zi = p.v[3], &count = p.v[4];
    const std::size_t n = cr.size();
    zr = 0.0f * cr;
    zi = 0.0f * cr;
    count = 0.0f * cr;
    loom::loop(ctx, iterations, [&] {
        if (fused) {
            loom::vector<float> inside(ctx, n), next_r(ctx, n); // temporaries: registers only
            inside = loom::cast<float>(zr * zr + zi * zi <= 4.0f);
            count += inside;
            next_r = zr * zr - zi * zi + cr;
            zi = loom::where(inside > 0.0f, 2.0f * zr * zi + ci, zi);
            zr = loom::where(inside > 0.0f, next_r, zr);
        } else {
            loom::vector<float>&inside = p.v[5], &next_r = p.v[6];
            inside = loom::cast<float>(zr * zr + zi * zi <= 4.0f);
            count += inside;
            next_r = zr * zr - zi * zi + cr;
            zi = loom::where(inside > 0.0f, 2.0f * zr * zi + ci, zi);
            zr = loom::where(inside > 0.0f, next_r, zr);
        }
    });
    ctx.finish();
}

void run_loom(benchmark::State& state, bool fused) {
    const std::size_t n = std::size_t(state.range(0));
    const std::string variant = fused ? "loom_stmts" : "loom_unfused";
    auto& p = bench::prepared<loom_instance>(key(variant, n), [&] {
        auto p = std::make_unique<loom_instance>();
        try {
            loom::context& ctx = bench::loom_context(fused);
            p->ctx = &ctx;
            for (int k = 0; k < (fused ? 5 : 7); ++k) p->v.emplace_back(ctx, n);
            const image g = image_of(n);
            p->v[0] = loom::cast<float>(loom::index() % g.width) * g.sx - 2.2f;
            p->v[1] = loom::cast<float>(loom::index() / g.width) * g.sy - 1.1f;
            loom::copy(bench::poison(n), p->v[4]);
            loom_mandelbrot(*p, fused);
            p->error = check(p->v[4].to_host(), n);
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key(variant, n) + ": " + p->error;
        return p;
    });
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    bench::time_loop(state, [&] { loom_mandelbrot(p, fused); });
    state.counters["pixels/s"] = benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate);
}

// ---- handwritten ---------------------------------------------------------------------------

const char* mandelbrot_source = R"(#pragma OPENCL FP_CONTRACT OFF
__kernel void k(__global float* restrict count, uint width, float sx, float sy, int iterations, uint n) {
    const uint p = get_global_id(0);
    if (p >= n) return;
    const float cr = (float)(p % width) * sx - 2.2f, ci = (float)(p / width) * sy - 1.1f;
    float r = 0.0f, i = 0.0f;
    int k = 0;
    for (; k < iterations && r * r + i * i <= 4.0f; ++k) {
        const float nr = r * r - i * i + cr;
        i = 2.0f * r * i + ci;
        r = nr;
    }
    count[p] = (float)k;
}
)";

struct opencl_instance {
    std::string error;
    cl::Kernel kernel;
    cl::Buffer count;
    bench::tuning tuning;
};

void run_handwritten(benchmark::State& state) {
    const std::size_t n = std::size_t(state.range(0));
    auto& env = bench::ocl::env();
    auto& p = bench::prepared<opencl_instance>(key("handwritten", n), [&] {
        auto p = std::make_unique<opencl_instance>();
        try {
            const image g = image_of(n);
            p->kernel = bench::ocl::kernel(mandelbrot_source, "k");
            p->count = bench::ocl::allocate(n);
            p->kernel.setArg(0, p->count);
            p->kernel.setArg(1, cl_uint(g.width));
            p->kernel.setArg(2, g.sx);
            p->kernel.setArg(3, g.sy);
            p->kernel.setArg(4, cl_int(iterations));
            p->kernel.setArg(5, cl_uint(n));
            cl::Kernel k = p->kernel;
            p->tuning = bench::ocl::tune(key("handwritten", n), bench::ocl::candidate_groups(k), [&](std::size_t wg) {
                bench::ocl::enqueue(k, n, wg);
                env.queue.finish();
            });
            bench::ocl::fill_nan(p->count, n);
            bench::ocl::enqueue(k, n, p->tuning.best);
            env.queue.finish();
            p->error = check(bench::ocl::download(p->count, n), n);
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key("handwritten", n) + ": " + p->error;
        return p;
    });
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    const std::size_t group = p.tuning.best;
    bench::time_loop(state, [&] {
        bench::ocl::enqueue(p.kernel, n, group);
        env.queue.finish();
    });
    state.SetLabel(p.tuning.summary.substr(p.tuning.summary.rfind("->")));
    state.counters["pixels/s"] = benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate);
}

void register_all() {
    // 2^14 .. 2^20 pixels (128 x 128 .. 1024 x 1024): Loom's loop form moves 100 iterations of
    // every pixel's state through memory, which bounds the size the time budget allows.
    const std::vector<std::int64_t> n = bench::sizes(14, 20);
    bench::add(
        "mandelbrot/loom_stmts", [](benchmark::State& s) { run_loom(s, true); }, n);
    bench::add(
        "mandelbrot/loom_unfused", [](benchmark::State& s) { run_loom(s, false); }, n);
    bench::add(
        "mandelbrot/handwritten", [](benchmark::State& s) { run_handwritten(s); }, n);
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
