// Dispatch overhead at n = 1024, where the kernel itself costs almost nothing: one cached
// statement `y = a * x + y` with a changing `a` against a handwritten clSetKernelArg +
// clEnqueueNDRangeKernel of the same kernel (issue 2: Loom <= 1.2x), 1000 statements then one
// finish, and the issue 4 chain as one fused plan against its statements unfused (issue 4:
// fused dispatch <= 1.2x per statement). Times are per iteration (one statement, one batch,
// one chain); the counter us_per_statement divides by the statements. dispatch_sum and
// dispatch_scan time a cached loom::sum (with its read) and inclusive_scan (with a finish). "sync" variants include
// the finish; "enqueue" variants time only the host side (record + flush, or setArg +
// enqueue) and wait untimed. host_tree builds an expression tree and records nothing.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "harness.hpp"
#include "opencl_baseline.hpp"
#include "runtime/context_impl.hpp" // flush without waiting, for the host-only figures

namespace {

constexpr std::size_t n = 1024;
constexpr int batch = 1000;

// The kernel Loom generates for y = a * x + y, in the form Loom emits (grid-stride loop,
// restrict, contraction off), so "handwritten" differs from Loom only in how it is launched.
const char* saxpy_source = R"(#pragma OPENCL FP_CONTRACT OFF
__kernel void k(__global const float *restrict x, float a, __global float *restrict y, ulong n) {
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
        y[i] = a * x[i] + y[i];
    }
}
)";

// The issue 4 chain as the fused kernel Loom makes of it.
const char* chain_source = R"(#pragma OPENCL FP_CONTRACT OFF
__kernel void k(__global const float *restrict x, float a, __global const float *restrict y,
                __global float *restrict z, ulong n) {
    for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {
        const float xi = x[i];
        const float t2 = a * xi + y[i];
        z[i] = t2 * t2 - xi;
    }
}
)";

float a_of(long k) { return (k % 2) ? -0.5f : 0.5f; } // y oscillates: no drift however long the run

const float* host_x() { return bench::random_floats(1, 0.5f, 1.5f, n); }
const float* host_y() { return bench::random_floats(2, 0.5f, 1.5f, n); }

// y after `count` statements y = a_k * x + y, k = first .. first+count-1, from the random y.
std::vector<float> saxpy_reference(long first, long count) {
    std::vector<float> y(host_y(), host_y() + n);
    for (long k = first; k < first + count; ++k)
        for (std::size_t i = 0; i < n; ++i) y[i] = a_of(k) * host_x()[i] + y[i];
    return y;
}

std::vector<float> chain_reference() {
    std::vector<float> z(n);
    for (std::size_t i = 0; i < n; ++i) {
        const float t1 = 2.5f * host_x()[i], t2 = t1 + host_y()[i], t3 = t2 * t2;
        z[i] = t3 - host_x()[i];
    }
    return z;
}

// ---- Loom ----------------------------------------------------------------------------------

struct loom_instance {
    std::string error;
    loom::context* ctx = nullptr;
    std::unique_ptr<loom::vector<float>> x, y, z;
    std::vector<loom::vector<float>> tmp; // the unfused chain's persistent temporaries
};

loom_instance& loom_saxpy(const std::string& key, bool fused, long checked_count) {
    return bench::prepared<loom_instance>(key, [&] {
        auto p = std::make_unique<loom_instance>();
        try {
            p->ctx = &bench::loom_context(fused);
            p->x = std::make_unique<loom::vector<float>>(*p->ctx, host_x(), host_x() + n);
            p->y = std::make_unique<loom::vector<float>>(*p->ctx, host_y(), host_y() + n);
            for (long k = 0; k < checked_count; ++k) *p->y = a_of(k) * *p->x + *p->y;
            p->ctx->finish();
            p->error = bench::compare(p->y->to_host().data(), saxpy_reference(0, checked_count).data(), n, {});
            // Back to the start of the sequence: even statement counts leave y where it began.
            loom::copy(std::vector<float>(host_y(), host_y() + n), *p->y);
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key + ": " + p->error;
        return p;
    });
}

void chain_fused(loom_instance& p) {
    loom::vector<float> t1(*p.ctx, n), t2(*p.ctx, n), t3(*p.ctx, n);
    t1 = 2.5f * *p.x;
    t2 = t1 + *p.y;
    t3 = t2 * t2;
    *p.z = t3 - *p.x;
}

void chain_unfused(loom_instance& p) {
    p.tmp[0] = 2.5f * *p.x;
    p.tmp[1] = p.tmp[0] + *p.y;
    p.tmp[2] = p.tmp[1] * p.tmp[1];
    *p.z = p.tmp[2] - *p.x;
}

loom_instance& loom_chain(const std::string& key, bool fused) {
    return bench::prepared<loom_instance>(key, [&] {
        auto p = std::make_unique<loom_instance>();
        try {
            p->ctx = &bench::loom_context(fused);
            p->x = std::make_unique<loom::vector<float>>(*p->ctx, host_x(), host_x() + n);
            p->y = std::make_unique<loom::vector<float>>(*p->ctx, host_y(), host_y() + n);
            p->z = std::make_unique<loom::vector<float>>(*p->ctx, bench::poison(n));
            for (int t = 0; t < 3 && !fused; ++t) p->tmp.emplace_back(*p->ctx, n);
            fused ? chain_fused(*p) : chain_unfused(*p);
            p->error = bench::compare(p->z->to_host().data(), chain_reference().data(), n, {});
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key + ": " + p->error;
        return p;
    });
}

// The time of one iteration is that of all its statements (dividing it would make Google
// Benchmark run `statements` times longer); "us_per_statement" is the figure to compare.
void per_statement(benchmark::State& state, double seconds, int statements) {
    state.counters["statements"] = statements;
    state.counters["us_per_statement"] =
        seconds * 1e6 / double(std::max<std::int64_t>(1, state.iterations())) / statements;
}

// Times `record` + a flush; `wait` says whether the device wait is inside the timing.
template <class Record>
void time_flush(benchmark::State& state, loom_instance& p, bool wait, int statements, Record&& record) {
    double total = 0;
    for (auto _ : state) {
        const auto start = std::chrono::steady_clock::now();
        record();
        if (wait)
            p.ctx->finish();
        else
            p.ctx->impl()->flush();
        const auto stop = std::chrono::steady_clock::now();
        if (!wait) p.ctx->finish();
        const double seconds = std::chrono::duration<double>(stop - start).count();
        state.SetIterationTime(seconds);
        total += seconds;
    }
    per_statement(state, total, statements);
}

// ---- handwritten -----------------------------------------------------------------------------

struct opencl_instance {
    std::string error;
    cl::Kernel kernel;
    cl::Buffer x, y, z;
};

opencl_instance& opencl_saxpy(const std::string& key, long checked_count) {
    return bench::prepared<opencl_instance>(key, [&] {
        auto p = std::make_unique<opencl_instance>();
        try {
            // Built fresh, so that its setArg calls never race another instance's.
            p->kernel = bench::ocl::build_uncached(saxpy_source, "k");
            p->x = bench::ocl::upload(host_x(), n);
            p->y = bench::ocl::upload(host_y(), n);
            p->kernel.setArg(0, p->x);
            p->kernel.setArg(2, p->y);
            p->kernel.setArg(3, cl_ulong(n));
            for (long k = 0; k < checked_count; ++k) {
                p->kernel.setArg(1, a_of(k));
                bench::ocl::enqueue(p->kernel, n, 0);
            }
            p->error =
                bench::compare(bench::ocl::download(p->y, n).data(), saxpy_reference(0, checked_count).data(), n, {});
            bench::ocl::env().queue.enqueueWriteBuffer(p->y, CL_TRUE, 0, n * sizeof(float), host_y());
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key + ": " + p->error;
        return p;
    });
}

// ---- registration ------------------------------------------------------------------------------

bool skip(benchmark::State& state, const std::string& error) {
    if (error.empty()) return false;
    state.SkipWithError(error.c_str());
    return true;
}

void register_all() {
    const std::vector<std::int64_t> size{std::int64_t(n)};
    auto add = [&](const std::string& name, std::function<void(benchmark::State&)> fn) {
        bench::add(name, std::move(fn), size, 0.1);
    };

    // One cached statement, then a finish.
    add("dispatch_sync/loom", [](benchmark::State& s) {
        auto& p = loom_saxpy("dispatch_sync/loom", true, 2);
        if (skip(s, p.error)) return;
        long k = 0;
        time_flush(s, p, true, 1, [&] { *p.y = a_of(k++) * *p.x + *p.y; });
    });
    add("dispatch_sync/handwritten", [](benchmark::State& s) {
        auto& p = opencl_saxpy("dispatch_sync/handwritten", 2);
        if (skip(s, p.error)) return;
        auto& q = bench::ocl::env().queue;
        long k = 0;
        bench::time_loop(s, [&] {
            p.kernel.setArg(1, a_of(k++));
            bench::ocl::enqueue(p.kernel, n, 0);
            q.finish();
        });
    });

    // The host side alone: record + flush, or setArg + enqueue; the wait is not timed.
    add("dispatch_enqueue/loom", [](benchmark::State& s) {
        auto& p = loom_saxpy("dispatch_enqueue/loom", true, 2);
        if (skip(s, p.error)) return;
        long k = 0;
        time_flush(s, p, false, 1, [&] { *p.y = a_of(k++) * *p.x + *p.y; });
    });
    add("dispatch_enqueue/handwritten", [](benchmark::State& s) {
        auto& p = opencl_saxpy("dispatch_enqueue/handwritten", 2);
        if (skip(s, p.error)) return;
        auto& q = bench::ocl::env().queue;
        long k = 0;
        for (auto _ : s) {
            const auto start = std::chrono::steady_clock::now();
            p.kernel.setArg(1, a_of(k++));
            bench::ocl::enqueue(p.kernel, n, 0);
            const auto stop = std::chrono::steady_clock::now();
            q.finish();
            s.SetIterationTime(std::chrono::duration<double>(stop - start).count());
        }
    });

    // The two host sides run by run, alternately (timed apart, PoCL's wake-ups move either by
    // more than the gap): `ratio` is Loom's record + flush over the handwritten setArg + enqueue,
    // over the same iterations; each waits for its kernel untimed before the other starts, and
    // which goes first alternates from one iteration to the next.
    add("dispatch_enqueue/interleaved", [](benchmark::State& s) {
        auto& p = loom_saxpy("dispatch_enqueue/interleaved/loom", true, 2);
        auto& h = opencl_saxpy("dispatch_enqueue/interleaved/handwritten", 2);
        if (skip(s, p.error) || skip(s, h.error)) return;
        auto& q = bench::ocl::env().queue;
        long k = 0, j = 0;
        const auto loom_side = [&] {
            const auto start = std::chrono::steady_clock::now();
            *p.y = a_of(k++) * *p.x + *p.y;
            p.ctx->impl()->flush();
            const auto stop = std::chrono::steady_clock::now();
            p.ctx->finish();
            return std::chrono::duration<double>(stop - start).count();
        };
        const auto handwritten_side = [&] {
            const auto start = std::chrono::steady_clock::now();
            h.kernel.setArg(1, a_of(j++));
            bench::ocl::enqueue(h.kernel, n, 0);
            const auto stop = std::chrono::steady_clock::now();
            q.finish();
            return std::chrono::duration<double>(stop - start).count();
        };
        double loom_total = 0, handwritten_total = 0;
        bool loom_first = true;
        for (auto _ : s) {
            double l = 0;
            if (loom_first) {
                l = loom_side();
                handwritten_total += handwritten_side();
            } else {
                handwritten_total += handwritten_side();
                l = loom_side();
            }
            loom_first = !loom_first;
            loom_total += l;
            s.SetIterationTime(l);
        }
        const double iterations = double(std::max<std::int64_t>(1, s.iterations()));
        s.counters["ratio"] = handwritten_total > 0 ? loom_total / handwritten_total : 0;
        s.counters["handwritten_us"] = handwritten_total * 1e6 / iterations;
    });

    // 1000 statements, then one finish; time per statement. With fusion on Loom runs them as a
    // few kernels (the pending-statement limit flushes on its own); with fusion off, 1000.
    for (bool fused : {true, false}) {
        const std::string name = std::string("dispatch_batch1000/") + (fused ? "loom_fused" : "loom_unfused");
        add(name, [fused, name](benchmark::State& s) {
            auto& p = loom_saxpy(name, fused, batch);
            if (skip(s, p.error)) return;
            const std::uint64_t launched = p.ctx->statistics().kernels_launched;
            time_flush(s, p, true, batch, [&] {
                for (int k = 0; k < batch; ++k) *p.y = a_of(k) * *p.x + *p.y;
            });
            s.counters["kernels_per_batch"] = double(p.ctx->statistics().kernels_launched - launched) /
                                              double(std::max<std::int64_t>(1, s.iterations()));
        });
    }
    add("dispatch_batch1000/handwritten", [](benchmark::State& s) {
        auto& p = opencl_saxpy("dispatch_batch1000/handwritten", batch);
        if (skip(s, p.error)) return;
        auto& q = bench::ocl::env().queue;
        double total = 0;
        for (auto _ : s) {
            const auto start = std::chrono::steady_clock::now();
            for (int k = 0; k < batch; ++k) {
                p.kernel.setArg(1, a_of(k));
                bench::ocl::enqueue(p.kernel, n, 0);
            }
            q.finish();
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            s.SetIterationTime(seconds);
            total += seconds;
        }
        per_statement(s, total, batch);
    });

    // The issue 4 chain: 4 statements as one fused plan, or as 4 kernels; time per statement.
    for (bool wait : {true, false})
        for (bool fused : {true, false}) {
            const std::string name = std::string(wait ? "dispatch_chain4_sync/" : "dispatch_chain4_enqueue/") +
                                     (fused ? "loom_fused" : "loom_unfused");
            add(name, [fused, wait, name](benchmark::State& s) {
                auto& p = loom_chain(name, fused);
                if (skip(s, p.error)) return;
                time_flush(s, p, wait, 4, [&] { fused ? chain_fused(p) : chain_unfused(p); });
            });
        }
    add("dispatch_chain4_sync/handwritten", [](benchmark::State& s) {
        auto& p = bench::prepared<opencl_instance>("dispatch_chain4_sync/handwritten", [] {
            auto p = std::make_unique<opencl_instance>();
            p->kernel = bench::ocl::build_uncached(chain_source, "k");
            p->x = bench::ocl::upload(host_x(), n);
            p->y = bench::ocl::upload(host_y(), n);
            p->z = bench::ocl::allocate(n);
            bench::ocl::fill_nan(p->z, n);
            p->kernel.setArg(0, p->x);
            p->kernel.setArg(1, 2.5f);
            p->kernel.setArg(2, p->y);
            p->kernel.setArg(3, p->z);
            p->kernel.setArg(4, cl_ulong(n));
            bench::ocl::enqueue(p->kernel, n, 0);
            p->error = bench::compare(bench::ocl::download(p->z, n).data(), chain_reference().data(), n, {});
            return p;
        });
        if (skip(s, p.error)) return;
        auto& q = bench::ocl::env().queue;
        double total = 0;
        for (auto _ : s) {
            const auto start = std::chrono::steady_clock::now();
            bench::ocl::enqueue(p.kernel, n, 0);
            q.finish();
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            s.SetIterationTime(seconds);
            total += seconds;
        }
        per_statement(s, total, 4);
    });

    // A cached reduction and a cached scan: the skeletons' dispatch (plan lookup, allocation
    // check, binding, launches) with the host's read of the sum, or the scan's finish.
    add("dispatch_sum/loom", [](benchmark::State& s) {
        auto& p = loom_saxpy("dispatch_sum/loom", true, 0);
        if (skip(s, p.error)) return;
        double want = 0;
        for (std::size_t i = 0; i < n; ++i) want += host_x()[i];
        if (std::abs(double(loom::sum(*p.x)) - want) > 1e-4 * want) return s.SkipWithError("dispatch_sum: wrong sum");
        float got = 0;
        bench::time_loop(s, [&] { got = loom::sum(*p.x); });
        benchmark::DoNotOptimize(got);
    });
    add("dispatch_scan/loom", [](benchmark::State& s) {
        auto& p = loom_saxpy("dispatch_scan/loom", true, 0);
        if (skip(s, p.error)) return;
        loom::inclusive_scan(*p.x, *p.y);
        const std::vector<float> got = p.y->to_host();
        double running = 0, worst = 0;
        for (std::size_t i = 0; i < n; ++i) {
            running += host_x()[i];
            worst = std::max(worst, std::abs(double(got[i]) - running) / running);
        }
        if (worst > 1e-4) return s.SkipWithError("dispatch_scan: wrong prefix sums");
        bench::time_loop(s, [&] {
            loom::inclusive_scan(*p.x, *p.y);
            p.ctx->finish();
        });
    });

    // The floor: a finish with nothing pending.
    add("dispatch_empty_finish/loom", [](benchmark::State& s) {
        loom::context& ctx = bench::loom_context(true);
        bench::time_loop(s, [&] { ctx.finish(); });
    });
    add("dispatch_empty_finish/handwritten", [](benchmark::State& s) {
        auto& q = bench::ocl::env().queue;
        bench::time_loop(s, [&] { q.finish(); });
    });

    // Building examples/nbody.cpp's tree (its named parts and the tuple of three products that
    // loom::sum takes), recorded nowhere: the front end's own host cost, copies and shared counts.
    add("host_tree/nbody", [](benchmark::State& s) {
        auto& p = loom_saxpy("host_tree/nbody", true, 0);
        if (skip(s, p.error)) return;
        const loom::vector<float>&x = *p.x, &y = *p.y;
        const float eps2 = 1e-4f;
        bench::time_loop(s, [&] {
            const auto dx = loom::as_row(x) - loom::as_column(x);
            const auto dy = loom::as_row(y) - loom::as_column(y);
            const auto dz = loom::as_row(x) - loom::as_column(y);
            const auto inv_r = loom::rsqrt(dx * dx + dy * dy + dz * dz + eps2);
            const auto weight = loom::as_row(y) * (inv_r * inv_r * inv_r);
            auto tree = std::make_tuple(weight * dx, weight * dy, weight * dz);
            benchmark::DoNotOptimize(tree);
        });
    });
}

} // namespace

int main(int argc, char** argv) {
    bench::set_device_timing(false); // the host path is what it measures: no profiling events in it
    return bench::run(argc, argv, register_all);
}
