// A small iterative solver step repeated 1000 times at n = 2^12: a 1-D 3-point diffusion
// stencil into `next`, the residual next - u, a swap, and a stop test on max |residual|.
// "device_loop" keeps the loop on the device (the body never waits for the host between
// checks); "host_loop" is the same loop driven from the host, which reads the residual back
// every iteration to test it. The tolerance is never reached, so both run all 1000 iterations;
// the counters give the host synchronisations per iteration. Checked against the host.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"
#include "opencl_baseline.hpp"

namespace {

constexpr std::size_t n = 4096;
constexpr std::uint64_t iterations = 1000;
constexpr float c = 0.2f;
constexpr float tol = 1e-30f; // never reached: both forms run every iteration

const float* host_u() { return bench::random_floats(51, 0.5f, 1.5f, n); }

std::vector<float> reference() {
    std::vector<float> u(host_u(), host_u() + n), next(n);
    for (std::uint64_t it = 0; it < iterations; ++it) {
        for (std::size_t i = 0; i < n; ++i) {
            const float l = u[i == 0 ? 0 : i - 1], m = u[i], r = u[i + 1 < n ? i + 1 : n - 1];
            next[i] = m + c * (l - 2.0f * m + r);
        }
        std::swap(u, next);
    }
    return u;
}

struct instance {
    std::string error;
    loom::context* ctx = nullptr;
    std::unique_ptr<loom::vector<float>> u, next, res;
    std::uint64_t ran = 0; // iterations the last run made
};

void step(instance& p) {
    loom::vector<float>&u = *p.u, &next = *p.next, &res = *p.res;
    next = u + c * (loom::shift(u, -1) - 2.0f * u + loom::shift(u, 1));
    res = next - u;
    loom::swap(u, next);
}

#if __has_include(<loom/scalar.hpp>)
#define LOOM_BENCH_LOOP_WHILE 1
// The device-side loop: the residual's max stays on the device (a loom::scalar) and
// loop_while tests it there; the host reads the stop flag only every check_every iterations.
std::uint64_t device_loop(instance& p) {
    loom::context& ctx = *p.ctx;
    *p.res = *p.u; // a residual above tol before the first iteration, on the device
    loom::scalar<float> r = loom::max(loom::fabs(*p.res), loom::on_device);
    const std::uint64_t ran = loom::loop_while(
        ctx, r > tol,
        [&] {
            step(p);
            r = loom::max(loom::fabs(*p.res), loom::on_device);
        },
        /*check_every=*/16, /*max_iterations=*/iterations);
    ctx.finish();
    return ran;
}
#else
// Until loom::loop_while exists: the count-based device loop (no stop test at all).
std::uint64_t device_loop(instance& p) {
    loom::context& ctx = *p.ctx;
    loom::loop(ctx, iterations, [&] { step(p); });
    ctx.finish();
    return iterations;
}
#endif

// The host-driven loop: one read of the residual (a synchronisation) per iteration.
std::uint64_t host_loop(instance& p) {
    std::uint64_t it = 0;
    while (it < iterations) {
        step(p);
        ++it;
        if (!(loom::max(loom::fabs(*p.res)) > tol)) break;
    }
    return it;
}

void reset(instance& p) {
    static const std::vector<float> start(host_u(), host_u() + n);
    loom::copy(start, *p.u);
    p.ctx->finish();
}

void run(benchmark::State& state, bool on_device) {
    const std::string name = std::string("stencil_loop/") + (on_device ? "device_loop" : "host_loop") + "/4096";
    auto& p = bench::prepared<instance>(name, [&] {
        auto p = std::make_unique<instance>();
        try {
            loom::context& ctx = bench::loom_context(true);
            p->ctx = &ctx;
            p->u = std::make_unique<loom::vector<float>>(ctx, n);
            p->next = std::make_unique<loom::vector<float>>(ctx, n);
            p->res = std::make_unique<loom::vector<float>>(ctx, n);
            reset(*p);
            p->ran = on_device ? device_loop(*p) : host_loop(*p);
            if (p->ran != iterations) throw std::runtime_error("ran " + std::to_string(p->ran) + " iterations");
            const std::vector<float> got = p->u->to_host();
            p->error = bench::compare(got.data(), reference().data(), n, {1e-4, 1e-6});
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = name + ": " + p->error;
        return p;
    });
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    loom::context_statistics before{}, after{};
    std::uint64_t ran = 0;
    for (auto _ : state) {
        reset(p);
        before = p.ctx->statistics();
        const auto start = std::chrono::steady_clock::now();
        ran = on_device ? device_loop(p) : host_loop(p);
        state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        after = p.ctx->statistics();
    }
    // Per loop iteration, from the last timed run.
    state.counters["loop_iterations"] = double(ran); // not "iterations": Google Benchmark's own field
    state.counters["kernels_per_iteration"] = double(after.kernels_launched - before.kernels_launched) / double(ran);
    state.counters["flushes_per_iteration"] = double(after.flushes - before.flushes) / double(ran);
#ifdef LOOM_BENCH_LOOP_WHILE
    // Host synchronisations (reads, finishes) per iteration, the final finish included.
    state.counters["host_syncs_per_iteration"] = double(after.host_syncs - before.host_syncs) / double(ran);
    state.counters["host_syncs"] = double(after.host_syncs - before.host_syncs);
#endif
}

// ---- handwritten: the same loop with one kernel per iteration -----------------------------
// Stencil, residual and max |residual| in one single-group kernel; in the device form the
// same kernel also updates the stop flag and the iteration count (flag[0], flag[1]) in its
// last step, so an iteration is one launch and the host reads the flag every 16 iterations.
// This is the fewest launches any launch-per-iteration design can make: its device/host ratio
// is the ceiling for loop_while on this device.
const char* const handwritten_source = R"(
__kernel void loop_step(__global const float *u, __global float *next, __global float *res,
                   __global float *r, __global int *flag, ulong n, float c, float tol, int guarded) {
    __local float s[256];
    // Every work-item reaches every barrier (PoCL hangs on an early return before them):
    // a stopped loop only skips the work.
    const int active = !guarded || flag[0] != 0;
    const size_t lid = get_local_id(0), g = get_local_size(0);
    const size_t chunk = (n + g - 1) / g, first = lid * chunk, last = active ? min(n, first + chunk) : 0;
    float m = 0.0f;
    for (size_t i = first; i < last; ++i) {
        const float l = u[i == 0 ? 0 : i - 1], x = u[i], rr = u[i + 1 < n ? i + 1 : n - 1];
        const float v = x + c * (l - 2.0f * x + rr);
        next[i] = v;
        res[i] = v - x;
        m = fmax(m, fabs(v - x));
    }
    s[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t span = g / 2; span > 0; span >>= 1) {
        if (lid < span) s[lid] = fmax(s[lid], s[lid + span]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0 && active) {
        r[0] = s[0];
        if (guarded) {
            flag[1] += 1;
            flag[0] = s[0] > tol;
        }
    }
}
)";

struct handwritten {
    std::string error;
    cl::Kernel forward, backward; // u -> next and next -> u: the ping-pong without setArg
    cl::Buffer u, next, res, r, flag;
    std::size_t group = 0;
};

// Runs the loop: guarded (device) or reading r every iteration (host). Returns iterations run.
std::uint64_t handwritten_loop(handwritten& h, bool on_device) {
    cl::CommandQueue& q = bench::ocl::env().queue;
    const int start_flag[2] = {1, 0};
    q.enqueueWriteBuffer(h.flag, CL_TRUE, 0, sizeof start_flag, start_flag);
    for (cl::Kernel* k : {&h.forward, &h.backward}) k->setArg(8, on_device ? 1 : 0);
    std::uint64_t it = 0;
    int flag[2] = {1, 0};
    while (it < iterations) {
        bench::ocl::launch(it % 2 ? h.backward : h.forward, cl::NDRange(h.group), cl::NDRange(h.group));
        ++it;
        if (on_device) {
            if (it % 16 == 0 || it == iterations) {
                q.enqueueReadBuffer(h.flag, CL_TRUE, 0, sizeof flag, flag);
                if (!flag[0]) break;
            }
        } else {
            float r = 0.0f;
            q.enqueueReadBuffer(h.r, CL_TRUE, 0, sizeof r, &r);
            if (!(r > tol)) break;
        }
    }
    if (on_device) {
        q.enqueueReadBuffer(h.flag, CL_TRUE, 0, sizeof flag, flag);
        return std::uint64_t(flag[1]);
    }
    return it;
}

void run_handwritten(benchmark::State& state, bool on_device) {
    const std::string name =
        std::string("stencil_loop/") + (on_device ? "handwritten_device" : "handwritten_host") + "/4096";
    auto& h = bench::prepared<handwritten>(name, [&] {
        auto h = std::make_unique<handwritten>();
        try {
            h->u = bench::ocl::upload(host_u(), n);
            h->next = bench::ocl::allocate(n);
            h->res = bench::ocl::allocate(n);
            h->r = bench::ocl::allocate(1);
            h->flag = bench::ocl::allocate(2); // two ints in two floats' room
            h->forward = bench::ocl::kernel(handwritten_source, "loop_step");
            h->backward = cl::Kernel(h->forward.getInfo<CL_KERNEL_PROGRAM>(), "loop_step");
            const cl_ulong count = n;
            for (int k = 0; k < 2; ++k) {
                cl::Kernel& kern = k ? h->backward : h->forward;
                kern.setArg(0, k ? h->next : h->u);
                kern.setArg(1, k ? h->u : h->next);
                kern.setArg(2, h->res);
                kern.setArg(3, h->r);
                kern.setArg(4, h->flag);
                kern.setArg(5, count);
                kern.setArg(6, c);
                kern.setArg(7, tol);
            }
            // One group: the tuning is over its size (a power of two, at most 256: the local array).
            std::vector<std::size_t> groups;
            for (std::size_t g = 16; g <= 256 && g <= bench::ocl::env().max_work_group; g *= 2) groups.push_back(g);
            const bench::tuning t = bench::ocl::tune(name, groups, [&](std::size_t g) {
                h->group = g;
                handwritten_loop(*h, on_device);
            });
            h->group = t.best;
            bench::ocl::env().queue.enqueueWriteBuffer(h->u, CL_TRUE, 0, n * sizeof(float), host_u());
            const std::uint64_t ran = handwritten_loop(*h, on_device);
            if (ran != iterations) throw std::runtime_error("ran " + std::to_string(ran) + " iterations");
            // 1000 iterations end with the result in u (an even count of swaps).
            h->error = bench::compare(bench::ocl::download(h->u, n).data(), reference().data(), n, {1e-4, 1e-6});
        } catch (const std::exception& e) {
            h->error = e.what();
        }
        if (!h->error.empty()) h->error = name + ": " + h->error;
        return h;
    });
    if (!h.error.empty()) {
        state.SkipWithError(h.error.c_str());
        return;
    }
    std::uint64_t ran = 0;
    for (auto _ : state) {
        bench::ocl::env().queue.enqueueWriteBuffer(h.u, CL_TRUE, 0, n * sizeof(float), host_u());
        const auto start = std::chrono::steady_clock::now();
        ran = handwritten_loop(h, on_device);
        state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    state.counters["loop_iterations"] = double(ran);
    state.counters["kernels_per_iteration"] = 1.0;
    state.counters["group"] = double(h.group);
}

void register_all() {
    bench::add(
        "stencil_loop/device_loop", [](benchmark::State& s) { run(s, true); }, {std::int64_t(n)}, 0)
        ->Iterations(5);
    bench::add(
        "stencil_loop/host_loop", [](benchmark::State& s) { run(s, false); }, {std::int64_t(n)}, 0)
        ->Iterations(5);
    bench::add(
        "stencil_loop/handwritten_device", [](benchmark::State& s) { run_handwritten(s, true); }, {std::int64_t(n)}, 0)
        ->Iterations(5);
    bench::add(
        "stencil_loop/handwritten_host", [](benchmark::State& s) { run_handwritten(s, false); }, {std::int64_t(n)}, 0)
        ->Iterations(5);
}

} // namespace

int main(int argc, char** argv) {
    bench::set_device_timing(false); // host round trips are what it measures: no profiling events in them
    return bench::run(argc, argv, register_all);
}
