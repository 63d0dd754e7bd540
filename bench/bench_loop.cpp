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

void register_all() {
    bench::add("stencil_loop/device_loop", [](benchmark::State& s) { run(s, true); }, {std::int64_t(n)}, 0)->Iterations(5);
    bench::add("stencil_loop/host_loop", [](benchmark::State& s) { run(s, false); }, {std::int64_t(n)}, 0)->Iterations(5);
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
