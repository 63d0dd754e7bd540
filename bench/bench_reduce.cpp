// Reductions: dot product (sum of x * y, the map fused into the reduction), sum, min and max
// of float vectors. Each runs as Loom (one call; the dot also as `t = x * y; sum(t)` with
// fusion off, what an eager library runs), as the best handwritten two-stage OpenCL reduction
// (two kernel forms, each tuned over work-group size and group count) and as Boost.Compute
// (inner_product, reduce). A reduction returns a host value, so every variant's time
// includes reading the result back. Results are checked against a double host reference.
#include <boost/compute/algorithm/inner_product.hpp>
#include <boost/compute/algorithm/reduce.hpp>
#include <boost/compute/functional/math.hpp>
#include <boost/compute/functional/operator.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness.hpp"
#include "boost_baseline.hpp"
#include "opencl_baseline.hpp"

namespace {

namespace bc = boost::compute;

enum class kind { dot, sum, min, max };

struct workload {
    std::string name;
    kind k;
    int inputs;           // 1 or 2 (x, y)
    const char* op;       // OpenCL C combine of a and b
    const char* identity; // OpenCL C literal
    double bytes_per_element;
};

const std::vector<workload>& workloads() {
    static const std::vector<workload> all = {
        {"dot", kind::dot, 2, "a + b", "0.0f", 8},
        {"sum", kind::sum, 1, "a + b", "0.0f", 4},
        {"min", kind::min, 1, "fmin(a, b)", "INFINITY", 4},
        {"max", kind::max, 1, "fmax(a, b)", "-INFINITY", 4},
    };
    return all;
}

// Inputs of mixed sign for the sums (cancellation shows a bad order), positive for min/max.
const float* host_x(std::size_t n) { return bench::random_floats(21, -1.0f, 1.0f, n); }
const float* host_y(std::size_t n) { return bench::random_floats(22, 0.5f, 1.5f, n); }

struct reference_value {
    double value = 0, magnitude = 0; // magnitude: sum of |terms|, the scale of a sum's error bound
};

reference_value reference(const workload& w, std::size_t n) {
    static std::string cached_key;
    static reference_value cached;
    if (cached_key == w.name + std::to_string(n)) return cached;
    const float *x = host_x(n), *y = host_y(n);
    reference_value r;
    switch (w.k) {
    case kind::dot:
        for (std::size_t i = 0; i < n; ++i) {
            r.value += double(x[i]) * double(y[i]);
            r.magnitude += std::fabs(double(x[i]) * double(y[i]));
        }
        break;
    case kind::sum:
        for (std::size_t i = 0; i < n; ++i) {
            r.value += x[i];
            r.magnitude += std::fabs(double(x[i]));
        }
        break;
    case kind::min: r.value = *std::min_element(x, x + n); break;
    case kind::max: r.value = *std::max_element(x, x + n); break;
    }
    cached_key = w.name + std::to_string(n);
    cached = r;
    return r;
}

// Sums: within a tree order's error bound (depth well under 2^12 additions of rounding
// 2^-24 each, so 2^-10 of the magnitude is loose but catches a wrong or partial sum).
// min/max: exact.
std::string check(const workload& w, std::size_t n, double got) {
    const reference_value r = reference(w, n);
    const bool sum_like = w.k == kind::dot || w.k == kind::sum;
    const double tol = sum_like ? r.magnitude * 1e-3 * std::max(1.0, std::log2(double(n)) / 24) : 0.0;
    if (std::isfinite(got) && std::fabs(got - r.value) <= tol) return {};
    char text[200];
    std::snprintf(text, sizeof text, "wrong result %.9g, the host reference says %.9g (tolerance %.3g)", got, r.value,
                  tol);
    return text;
}

std::string key(const workload& w, const std::string& variant, std::size_t n) {
    return w.name + "/" + variant + "/" + std::to_string(n);
}

// Runs the prepared instance's `once()` (which returns the host value) per iteration.
template <class Instance> void time_value(benchmark::State& state, Instance& p, const workload& w, std::size_t n) {
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    volatile float sink = 0;
    bench::time_loop(state, [&] { sink = p.once(); });
    (void)sink;
    bench::set_bytes(state, w.bytes_per_element * double(n));
}

// ---- Loom ----------------------------------------------------------------------------------

struct loom_instance {
    std::string error;
    std::unique_ptr<loom::vector<float>> x, y, t;
    std::function<float()> once;
};

loom_instance& loom_prepared(const workload& w, bool fused, std::size_t n) {
    const std::string variant = fused ? "loom_expr" : "loom_unfused";
    return bench::prepared<loom_instance>(key(w, variant, n), [&] {
        auto p = std::make_unique<loom_instance>();
        try {
            loom::context& ctx = bench::loom_context(fused);
            p->x = std::make_unique<loom::vector<float>>(ctx, host_x(n), host_x(n) + n);
            p->y = std::make_unique<loom::vector<float>>(ctx, host_y(n), host_y(n) + n);
            loom::vector<float>&x = *p->x, &y = *p->y;
            switch (w.k) {
            case kind::dot:
                if (fused) {
                    p->once = [&x, &y] { return loom::sum(x * y); };
                } else {
                    p->t = std::make_unique<loom::vector<float>>(ctx, n);
                    loom::vector<float>& t = *p->t;
                    p->once = [&x, &y, &t] {
                        t = x * y;
                        return loom::sum(t);
                    };
                }
                break;
            case kind::sum: p->once = [&x] { return loom::sum(x); }; break;
            case kind::min: p->once = [&x] { return loom::min(x); }; break;
            case kind::max: p->once = [&x] { return loom::max(x); }; break;
            }
            p->error = check(w, n, p->once());
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key(w, variant, n) + ": " + p->error;
        return p;
    });
}

void run_loom(benchmark::State& state, const workload& w, bool fused) {
    const std::size_t n = std::size_t(state.range(0));
    time_value(state, loom_prepared(w, fused, n), w, n);
}

// ---- handwritten two-stage reduction -------------------------------------------------------

// Stage 1, two forms. "stride": every work-item folds x[i], i += global size (coalesced on a
// GPU), then the group folds its values as a tree in local memory. "chunk": every work-item
// folds one contiguous chunk with float8 loads (what a CPU's SIMD units want), then the same
// tree. Stage 2: one work-item folds the partials and writes the result.
std::string reduction_source(const workload& w) {
    std::string s = "#define OP(a, b) (" + std::string(w.op) + ")\n#define ID " + w.identity + "\n";
    s += w.k == kind::dot
             ? "#define LOAD(i) (x[i] * y[i])\n#define LOAD8(i) (vload8(0, x + (i)) * vload8(0, y + (i)))\n"
             : "#define LOAD(i) (x[i])\n#define LOAD8(i) (vload8(0, x + (i)))\n";
    s += w.k == kind::dot || w.k == kind::sum ? "#define OP8(a, b) ((a) + (b))\n"
                                              : "#define OP8(a, b) (" + std::string(w.op) + ")\n";
    s += R"(
void tree(__local float* s, float a, __global float* partial) {
    const uint lid = get_local_id(0), w = get_local_size(0);
    s[lid] = a;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = w / 2; step > 0; step >>= 1) {
        if (lid < step) s[lid] = OP(s[lid], s[lid + step]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) partial[get_group_id(0)] = s[0];
}

__kernel void stride(__global const float* restrict x, __global const float* restrict y,
                     __global float* restrict partial, __local float* s, uint n) {
    float a = ID;
    for (uint i = get_global_id(0); i < n; i += get_global_size(0)) {
        const float b = LOAD(i);
        a = OP(a, b);
    }
    tree(s, a, partial);
}

__kernel void chunk(__global const float* restrict x, __global const float* restrict y,
                    __global float* restrict partial, __local float* s, uint n, uint per_item) {
    const uint first = get_global_id(0) * per_item;
    const uint last = min(first + per_item, n);
    float8 a8 = (float8)(ID);
    uint i = first;
    for (; i + 8 <= last; i += 8) {
        const float8 b = LOAD8(i);
        a8 = OP8(a8, b);
    }
    float a = ID;
    for (; i < last; ++i) {
        const float b = LOAD(i);
        a = OP(a, b);
    }
    float4 a4 = OP8(a8.lo, a8.hi);
    float2 a2 = OP8(a4.lo, a4.hi);
    a = OP(a, OP(a2.x, a2.y));
    tree(s, a, partial);
}

__kernel void finish(__global const float* restrict partial, __global float* restrict result, uint count) {
    float a = ID;
    for (uint i = 0; i < count; ++i) a = OP(a, partial[i]);
    result[0] = a;
}
)";
    return s;
}

struct config {
    bool chunk;
    std::size_t group, groups;
    std::string name() const {
        return std::string(chunk ? "chunk" : "stride") + ":" + std::to_string(groups) + "x" + std::to_string(group);
    }
};

std::vector<config> configs(std::size_t n) {
    std::vector<config> c;
    // The stride form at Loom's own geometry (8 groups of 256 on this 2-core device) and at
    // the stride form's best in a full sweep of 2..64 groups x 64..1024 (64 x 1024); the sweep
    // itself costs seconds per size at 2^24 (the stride form runs 10-30x slower there).
    for (auto [groups, group] : {std::pair<std::size_t, std::size_t>{8, 256}, {64, 1024}})
        if (groups * group <= n) c.push_back({false, group, groups});
    for (std::size_t groups : {2, 4, 8, 16, 32, 64})
        for (std::size_t group : {1, 8, 64})
            if (groups * group * 8 <= n) c.push_back({true, group, groups});
    return c;
}

struct opencl_instance {
    std::string error;
    cl::Kernel stride, chunk, finish;
    cl::Buffer x, y, partial, result;
    std::vector<config> configs;
    bench::tuning tuning;
    std::function<float()> once;
};

float run_config(opencl_instance& p, const config& c, std::size_t n) {
    auto& env = bench::ocl::env();
    cl::Kernel& k = c.chunk ? p.chunk : p.stride;
    k.setArg(3, cl::Local(c.group * sizeof(float)));
    if (c.chunk) k.setArg(5, cl_uint((n + c.groups * c.group * 8 - 1) / (c.groups * c.group * 8) * 8));
    bench::ocl::launch(k, cl::NDRange(c.groups * c.group), cl::NDRange(c.group));
    p.finish.setArg(2, cl_uint(c.groups));
    bench::ocl::launch(p.finish, cl::NDRange(1), cl::NDRange(1));
    float result = 0;
    env.queue.enqueueReadBuffer(p.result, CL_TRUE, 0, sizeof result, &result);
    return result;
}

opencl_instance& handwritten_prepared(const workload& w, std::size_t n) {
    return bench::prepared<opencl_instance>(key(w, "handwritten", n), [&] {
        auto p = std::make_unique<opencl_instance>();
        try {
            const std::string source = reduction_source(w);
            p->stride = bench::ocl::kernel(source, "stride");
            p->chunk = bench::ocl::kernel(source, "chunk");
            p->finish = bench::ocl::kernel(source, "finish");
            p->x = bench::ocl::upload(host_x(n), n);
            p->y = bench::ocl::upload(host_y(n), n);
            p->partial = bench::ocl::allocate(64);
            p->result = bench::ocl::allocate(1);
            for (cl::Kernel* k : {&p->stride, &p->chunk}) {
                k->setArg(0, p->x);
                k->setArg(1, p->y);
                k->setArg(2, p->partial);
                k->setArg(4, cl_uint(n));
            }
            p->finish.setArg(0, p->partial);
            p->finish.setArg(1, p->result);
            p->configs = configs(n);
            std::vector<std::string> names;
            std::string wrong;
            for (const config& c : p->configs) {
                names.push_back(c.name());
                // Every configuration is checked, not only the winner.
                bench::ocl::fill_nan(p->result, 1);
                const std::string e = check(w, n, run_config(*p, c, n));
                if (!e.empty() && wrong.empty()) wrong = c.name() + ": " + e;
            }
            if (!wrong.empty()) throw std::runtime_error(wrong);
            opencl_instance* raw = p.get();
            p->tuning = bench::tune_configs(key(w, "handwritten", n), names,
                                            [raw, n](std::size_t k) { run_config(*raw, raw->configs[k], n); });
            const config best = p->configs[p->tuning.best];
            p->once = [raw, best, n] { return run_config(*raw, best, n); };
        } catch (const std::exception& e) {
            p->error = key(w, "handwritten", n) + ": " + e.what();
        }
        return p;
    });
}

void run_handwritten(benchmark::State& state, const workload& w) {
    const std::size_t n = std::size_t(state.range(0));
    opencl_instance& p = handwritten_prepared(w, n);
    time_value(state, p, w, n);
    if (p.error.empty()) state.SetLabel(p.tuning.summary.substr(p.tuning.summary.rfind("->")));
}

// Loom and the tuned two-stage reduction, run by run (bench::time_interleaved).
void run_interleaved(benchmark::State& state, const workload& w) {
    const bench::own_instances fresh; // both made anew for the pair
    const std::size_t n = std::size_t(state.range(0));
    opencl_instance& hand = handwritten_prepared(w, n);
    if (!bench::time_interleaved_instances(state, loom_prepared(w, true, n), hand)) return;
    state.SetLabel(hand.tuning.summary.substr(hand.tuning.summary.rfind("->")));
    bench::set_bytes(state, w.bytes_per_element * double(n));
}

// ---- Boost.Compute -------------------------------------------------------------------------

struct boost_instance {
    std::string error;
    std::unique_ptr<bench::boost_vectors> v;
    std::function<float()> once;
};

// bc::reduce into a host value with one of Boost.Compute's functions.
template <class Op> float boost_reduce(bc::vector<float>& x, bc::command_queue& q, Op op) {
    float r = 0;
    bc::reduce(x.begin(), x.end(), &r, op, q);
    return r;
}

void run_boost(benchmark::State& state, const workload& w) {
    const std::size_t n = std::size_t(state.range(0));
    auto& p = bench::prepared<boost_instance>(key(w, "boost_compute", n), [&] {
        auto p = std::make_unique<boost_instance>();
        try {
            p->v = std::make_unique<bench::boost_vectors>(host_x(n), host_y(n), n);
            bc::vector<float>&x = p->v->x, &y = p->v->y;
            bc::command_queue& q = p->v->queue;
            switch (w.k) {
            case kind::dot:
                p->once = [&x, &y, &q] { return bc::inner_product(x.begin(), x.end(), y.begin(), 0.0f, q); };
                break;
            case kind::sum: p->once = [&x, &q] { return boost_reduce(x, q, bc::plus<float>()); }; break;
            case kind::min: p->once = [&x, &q] { return boost_reduce(x, q, bc::fmin<float>()); }; break;
            case kind::max: p->once = [&x, &q] { return boost_reduce(x, q, bc::fmax<float>()); }; break;
            }
            p->error = check(w, n, p->once());
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key(w, "boost_compute", n) + ": " + p->error;
        return p;
    });
    time_value(state, p, w, n);
}

void register_all() {
    // Up to 2^24, the size issue 5's targets name (the time budget of the full run).
    const std::vector<std::int64_t> n = bench::sizes(10, 24);
    for (const workload& w : workloads()) {
        const workload* p = &w;
        bench::add(
            w.name + "/loom_expr", [p](benchmark::State& s) { run_loom(s, *p, true); }, n);
        if (w.k == kind::dot)
            bench::add(
                w.name + "/loom_unfused", [p](benchmark::State& s) { run_loom(s, *p, false); }, n);
        bench::add(
            w.name + "/handwritten", [p](benchmark::State& s) { run_handwritten(s, *p); }, n);
        bench::add_interleaved(
            w.name, [p](benchmark::State& s) { run_interleaved(s, *p); }, 24);
        bench::add(
            w.name + "/boost_compute", [p](benchmark::State& s) { run_boost(s, *p); }, n);
    }
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
