// Launch geometry for element-wise kernels (src/launch/policy.cpp decides Loom's): the
// grid-stride loop Loom emits against a plain `if (i < n)` guard with global =
// round_up(n, wg), 64- and 32-bit indices, FP contraction off and on, for the runtime's
// work-group choice (NULL) and fixed sizes 16..4096, plus the GPU-style capped grid. Two
// kernels: bandwidth-bound z = a*x + y and a compute-bound transcendental map.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"
#include "opencl_baseline.hpp"

namespace {

struct form {
    const char* name;
    bool stride;     // grid-stride loop (Loom's form) or one item per element with a guard
    bool wide_index; // ulong index and n, or uint
    bool contract;   // FP_CONTRACT left on (OpenCL's default) or turned off as Loom does
};

const form forms[] = {
    {"stride_ulong", true, true, false}, // what Loom emits today
    {"stride_uint", true, false, false}, {"guard_ulong", false, true, false},
    {"guard_uint", false, false, false}, {"guard_uint_contract", false, false, true},
};

struct kernel_body {
    const char* name;
    const char* statement; // reads x[i], y[i], a; writes z[i]
    int max_log2;
    double bytes_per_element;
};

const kernel_body bodies[] = {
    {"saxpy", "z[i] = a * x[i] + y[i];", 24, 12},
    {"transcendental", "const float v = x[i]; z[i] = sin(v) * exp(a * v) + log(v) * sqrt(v) + cos(v) + y[i];", 22, 12},
};

std::string source(const form& f, const kernel_body& b) {
    const std::string index = f.wide_index ? "ulong" : "uint";
    std::string s = f.contract ? "" : "#pragma OPENCL FP_CONTRACT OFF\n";
    s += "__kernel void k(__global const float *restrict x, __global const float *restrict y, "
         "__global float *restrict z, float a, " +
         index + " n) {\n";
    if (f.stride)
        s += "    for (" + index + " i = get_global_id(0); i < n; i += get_global_size(0)) {\n";
    else
        s += "    const " + index + " i = get_global_id(0);\n    if (i < n) {\n";
    return s + "        " + b.statement + "\n    }\n}\n";
}

const float a = 0.5f;

std::vector<float> reference(const kernel_body& b, std::size_t n) {
    const float* x = bench::random_floats(1, 0.5f, 1.5f, n);
    const float* y = bench::random_floats(2, 0.5f, 1.5f, n);
    std::vector<float> z(n);
    const bool saxpy = std::string(b.name) == "saxpy";
    bench::parallel_for(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const float v = x[i];
            z[i] =
                saxpy ? a * v + y[i] : std::sin(v) * std::exp(a * v) + std::log(v) * std::sqrt(v) + std::cos(v) + y[i];
        }
    });
    return z;
}

struct instance {
    std::string error;
    cl::Kernel kernel;
    cl::Buffer x, y, z;
};

constexpr std::size_t capped = ~std::size_t(0); // marker: Loom's GPU geometry (256-wide groups, grid capped)

void run_geometry(benchmark::State& state, const form& f, const kernel_body& b, std::size_t group,
                  const std::string& key) {
    const std::size_t n = std::size_t(state.range(0));
    auto& env = bench::ocl::env();
    std::size_t global = group == 0 ? n : bench::ocl::round_up(n, group == capped ? 256 : group);
    if (group == capped) global = std::min<std::size_t>(global, std::size_t(env.compute_units) * 2048);
    const std::size_t local = group == capped ? 256 : group;
    auto launch = [&](const cl::Kernel& k) {
        bench::ocl::launch(k, cl::NDRange(global), local ? cl::NDRange(local) : cl::NullRange);
        env.queue.finish();
    };
    auto& p = bench::prepared<instance>(key + "/" + std::to_string(n), [&] {
        auto p = std::make_unique<instance>();
        try {
            p->kernel = bench::ocl::build_uncached(source(f, b), "k");
            p->x = bench::ocl::upload(bench::random_floats(1, 0.5f, 1.5f, n), n);
            p->y = bench::ocl::upload(bench::random_floats(2, 0.5f, 1.5f, n), n);
            p->z = bench::ocl::allocate(n);
            bench::ocl::fill_nan(p->z, n);
            p->kernel.setArg(0, p->x);
            p->kernel.setArg(1, p->y);
            p->kernel.setArg(2, p->z);
            p->kernel.setArg(3, a);
            if (f.wide_index)
                p->kernel.setArg(4, cl_ulong(n));
            else
                p->kernel.setArg(4, cl_uint(n));
            launch(p->kernel);
            p->error = bench::compare(bench::ocl::download(p->z, n).data(), reference(b, n).data(), n, {5e-5, 1e-6});
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key + ": " + p->error;
        return p;
    });
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    bench::time_loop(state, [&] { launch(p.kernel); });
    state.counters["global"] = double(global);
    state.counters["local"] = double(local);
    bench::set_bytes(state, b.bytes_per_element * double(n));
}

// Loom itself on the same work, for reference: it should match stride_ulong at NULL.
struct loom_instance {
    std::string error;
    std::unique_ptr<loom::vector<float>> x, y, z;
};

void run_loom(benchmark::State& state, const kernel_body& b, const std::string& key) {
    const std::size_t n = std::size_t(state.range(0));
    loom::context& ctx = bench::loom_context(true);
    const bool saxpy = std::string(b.name) == "saxpy";
    auto compute = [&](loom_instance& p) {
        loom::vector<float>&x = *p.x, &y = *p.y;
        if (saxpy)
            *p.z = a * x + y;
        else
            *p.z = loom::sin(x) * loom::exp(a * x) + loom::log(x) * loom::sqrt(x) + loom::cos(x) + y;
        ctx.finish();
    };
    auto& p = bench::prepared<loom_instance>(key + "/" + std::to_string(n), [&] {
        auto p = std::make_unique<loom_instance>();
        try {
            const float* x = bench::random_floats(1, 0.5f, 1.5f, n);
            const float* y = bench::random_floats(2, 0.5f, 1.5f, n);
            p->x = std::make_unique<loom::vector<float>>(ctx, x, x + n);
            p->y = std::make_unique<loom::vector<float>>(ctx, y, y + n);
            p->z = std::make_unique<loom::vector<float>>(ctx, bench::poison(n));
            compute(*p);
            p->error = bench::compare(p->z->to_host().data(), reference(b, n).data(), n, {5e-5, 1e-6});
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key + ": " + p->error;
        return p;
    });
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    bench::time_loop(state, [&] { compute(p); });
    bench::set_bytes(state, b.bytes_per_element * double(n));
}

void register_all() {
    for (const kernel_body& b : bodies) {
        const std::vector<std::int64_t> n = bench::sizes(12, b.max_log2, 4);
        const std::string workload = std::string("geometry_") + b.name;
        const kernel_body* body = &b;
        bench::add(
            workload + "/loom", [body, workload](benchmark::State& s) { run_loom(s, *body, workload + "/loom"); }, n);
        for (const form& f : forms) {
            std::vector<std::size_t> groups{0, 16, 64, 128, 256, 1024, 4096};
            if (f.stride) groups.push_back(capped);
            for (std::size_t g : groups) {
                const std::string variant = std::string(f.name) + "_" +
                                            (g == capped ? std::string("capped256") : "wg" + bench::ocl::group_name(g));
                const std::string key = workload + "/" + variant;
                const form* fp = &f;
                bench::add(
                    key, [fp, body, g, key](benchmark::State& s) { run_geometry(s, *fp, *body, g, key); }, n);
            }
        }
    }
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
