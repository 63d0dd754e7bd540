// Prefix sums of float vectors, inclusive and exclusive: Loom (loom::inclusive_scan,
// loom::exclusive_scan), a handwritten work-efficient OpenCL scan tuned over its geometry,
// and Boost.Compute (inclusive_scan, exclusive_scan). Every variant is checked against a
// double host reference (outputs poisoned first) before it is timed.
#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/exclusive_scan.hpp>
#include <boost/compute/algorithm/inclusive_scan.hpp>

#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"
#include "boost_baseline.hpp"
#include "opencl_baseline.hpp"

namespace {

namespace bc = boost::compute;

struct workload {
    std::string name;
    bool exclusive;
};

const std::vector<workload>& workloads() {
    static const std::vector<workload> all = {{"inclusive_scan", false}, {"exclusive_scan", true}};
    return all;
}

// Positive inputs: the prefix grows, so a relative tolerance is meaningful at every element.
const float* host_x(std::size_t n) { return bench::random_floats(31, 0.5f, 1.5f, n); }

// Float scans accumulate rounding along a chunk; 2e-3 relative is loose for that and still
// catches a missing or doubled element (>= 0.5 / prefix, i.e. wrong in the first ~250) or a
// misplaced offset.
const bench::tolerance scan_tolerance{2e-3, 1e-6};

const std::vector<float>& reference(const workload& w, std::size_t n) {
    static std::string name;
    static std::vector<float> ref;
    const std::size_t top = std::size_t(1) << bench::max_log2();
    if (name != w.name) {
        const float* x = host_x(top);
        ref.resize(top);
        double s = 0;
        for (std::size_t i = 0; i < top; ++i) {
            if (w.exclusive) ref[i] = float(s);
            s += x[i];
            if (!w.exclusive) ref[i] = float(s);
        }
        name = w.name;
    }
    (void)n;
    return ref;
}

std::string check(const workload& w, std::size_t n, const std::vector<float>& got) {
    return bench::compare(got.data(), reference(w, n).data(), n, scan_tolerance);
}

std::string key(const workload& w, const std::string& variant, std::size_t n) {
    return w.name + "/" + variant + "/" + std::to_string(n);
}

template <class Instance> void time_instance(benchmark::State& state, Instance& p, std::size_t n) {
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    bench::time_loop(state, [&] { p.once(); });
    bench::set_bytes(state, 8.0 * double(n)); // read x, write the output
}

// ---- Loom ----------------------------------------------------------------------------------

struct loom_instance {
    std::string error;
    std::unique_ptr<loom::vector<float>> x, y;
    loom::context* ctx = nullptr;
    std::function<void()> once;
};

loom_instance& loom_prepared(const workload& w, std::size_t n) {
    return bench::prepared<loom_instance>(key(w, "loom_expr", n), [&] {
        auto p = std::make_unique<loom_instance>();
        try {
            loom::context& ctx = bench::loom_context(true);
            p->ctx = &ctx;
            p->x = std::make_unique<loom::vector<float>>(ctx, host_x(n), host_x(n) + n);
            p->y = std::make_unique<loom::vector<float>>(ctx, n);
            loom::copy(bench::poison(n), *p->y);
            loom::vector<float>&x = *p->x, &y = *p->y;
            if (w.exclusive)
                p->once = [&x, &y, &ctx] {
                    loom::exclusive_scan(x, y, 0.0f);
                    ctx.finish();
                };
            else
                p->once = [&x, &y, &ctx] {
                    loom::inclusive_scan(x, y);
                    ctx.finish();
                };
            p->once();
            p->error = check(w, n, y.to_host());
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key(w, "loom_expr", n) + ": " + p->error;
        return p;
    });
}

void run_loom(benchmark::State& state, const workload& w) {
    const std::size_t n = std::size_t(state.range(0));
    time_instance(state, loom_prepared(w, n), n);
}

// ---- handwritten ---------------------------------------------------------------------------

// A work-efficient scan in three passes (2 reads and 1 write of the data, n - 1 additions
// plus the items' totals): every work-item owns one contiguous chunk, read with float8. Pass 1 sums each chunk
// (float8 loads); pass 2, one work-item, scans the items' totals into their offsets (a few
// thousand at most); pass 3 scans each chunk serially from its offset. On a CPU a chunk per
// work-item is what the cores and caches want; the geometry (work-items, group size) is tuned.
const char* scan_source = R"(
__kernel void chunk_totals(__global const float* restrict x, __global float* restrict totals, uint n, uint per_item) {
    const uint first = get_global_id(0) * per_item;
    const uint last = min(first + per_item, n);
    float8 a8 = (float8)(0.0f);
    uint i = first;
    for (; i + 8 <= last; i += 8) a8 += vload8(0, x + i);
    float a = 0.0f;
    for (; i < last; ++i) a += x[i];
    const float4 a4 = a8.lo + a8.hi;
    const float2 a2 = a4.lo + a4.hi;
    totals[get_global_id(0)] = a + a2.x + a2.y;
}

__kernel void scan_totals(__global float* restrict totals, uint count) {
    float s = 0.0f;
    for (uint i = 0; i < count; ++i) {
        const float t = totals[i];
        totals[i] = s;
        s += t;
    }
}

__kernel void scan_chunks(__global const float* restrict x, __global float* restrict y,
                          __global const float* restrict offsets, uint n, uint per_item, uint exclusive) {
    const uint first = get_global_id(0) * per_item;
    const uint last = min(first + per_item, n);
    float s = offsets[get_global_id(0)];
    uint i = first;
    // Eight at a time: the prefix inside a float8 in three shifted adds, so the serial chain
    // is one addition per eight elements.
    for (; i + 8 <= last; i += 8) {
        float8 v = vload8(0, x + i);
        v += (float8)(0.0f, v.s0, v.s1, v.s2, v.s3, v.s4, v.s5, v.s6);
        v += (float8)(0.0f, 0.0f, v.s0, v.s1, v.s2, v.s3, v.s4, v.s5);
        v += (float8)(0.0f, 0.0f, 0.0f, 0.0f, v.s0, v.s1, v.s2, v.s3);
        v += s;
        if (exclusive) vstore8((float8)(s, v.s0, v.s1, v.s2, v.s3, v.s4, v.s5, v.s6), 0, y + i);
        else vstore8(v, 0, y + i);
        s = v.s7;
    }
    for (; i < last; ++i) {
        const float v = x[i];
        y[i] = exclusive ? s : s + v;
        s += v;
    }
}
)";

struct config {
    std::size_t items, group;
    std::string name() const { return std::to_string(items) + "x" + std::to_string(group); }
};

struct opencl_instance {
    std::string error;
    cl::Kernel totals_kernel, scan_totals, chunks;
    cl::Buffer x, y, totals;
    std::vector<config> configs;
    bench::tuning tuning;
    std::function<void()> once;
};

void run_config(opencl_instance& p, const config& c, std::size_t n, bool exclusive) {
    auto& env = bench::ocl::env();
    const cl_uint per_item = cl_uint((n + c.items * 8 - 1) / (c.items * 8) * 8);
    const std::size_t items = (n + per_item - 1) / per_item; // every item owns a nonempty chunk
    const std::size_t global = bench::ocl::round_up(items, c.group);
    p.totals_kernel.setArg(2, cl_uint(n));
    p.totals_kernel.setArg(3, per_item);
    bench::ocl::launch(p.totals_kernel, cl::NDRange(global), cl::NDRange(c.group));
    p.scan_totals.setArg(1, cl_uint(global));
    bench::ocl::launch(p.scan_totals, cl::NDRange(1), cl::NDRange(1));
    p.chunks.setArg(3, cl_uint(n));
    p.chunks.setArg(4, per_item);
    p.chunks.setArg(5, cl_uint(exclusive ? 1 : 0));
    bench::ocl::launch(p.chunks, cl::NDRange(global), cl::NDRange(c.group));
    env.queue.finish();
}

opencl_instance& handwritten_prepared(const workload& w, std::size_t n) {
    return bench::prepared<opencl_instance>(key(w, "handwritten", n), [&] {
        auto p = std::make_unique<opencl_instance>();
        try {
            p->totals_kernel = bench::ocl::kernel(scan_source, "chunk_totals");
            p->scan_totals = bench::ocl::kernel(scan_source, "scan_totals");
            p->chunks = bench::ocl::kernel(scan_source, "scan_chunks");
            p->x = bench::ocl::upload(host_x(n), n);
            p->y = bench::ocl::allocate(n);
            p->totals = bench::ocl::allocate(4096);
            p->totals_kernel.setArg(0, p->x);
            p->totals_kernel.setArg(1, p->totals);
            p->scan_totals.setArg(0, p->totals);
            p->chunks.setArg(0, p->x);
            p->chunks.setArg(1, p->y);
            p->chunks.setArg(2, p->totals);
            for (std::size_t items : {2, 4, 8, 16, 32, 64, 256})
                for (std::size_t group : {1, 8, 64})
                    if (group <= items && items * 64 <= n) p->configs.push_back({items, group});
            std::vector<std::string> names;
            for (const config& c : p->configs) {
                names.push_back(c.name());
                bench::ocl::fill_nan(p->y, n);
                run_config(*p, c, n, w.exclusive);
                const std::string e = check(w, n, bench::ocl::download(p->y, n));
                if (!e.empty()) throw std::runtime_error(c.name() + ": " + e);
            }
            opencl_instance* raw = p.get();
            const bool exclusive = w.exclusive;
            p->tuning = bench::tune_configs(key(w, "handwritten", n), names, [raw, n, exclusive](std::size_t k) {
                run_config(*raw, raw->configs[k], n, exclusive);
            });
            const config best = p->configs[p->tuning.best];
            p->once = [raw, best, n, exclusive] { run_config(*raw, best, n, exclusive); };
        } catch (const std::exception& e) {
            p->error = key(w, "handwritten", n) + ": " + e.what();
        }
        return p;
    });
}

void run_handwritten(benchmark::State& state, const workload& w) {
    const std::size_t n = std::size_t(state.range(0));
    opencl_instance& p = handwritten_prepared(w, n);
    time_instance(state, p, n);
    if (p.error.empty()) state.SetLabel(p.tuning.summary.substr(p.tuning.summary.rfind("->")));
}

// Loom and the tuned three-pass scan, run by run (bench::time_interleaved).
void run_interleaved(benchmark::State& state, const workload& w) {
    const bench::own_instances fresh; // both made anew for the pair
    const std::size_t n = std::size_t(state.range(0));
    opencl_instance& hand = handwritten_prepared(w, n);
    if (!bench::time_interleaved_instances(state, loom_prepared(w, n), hand)) return;
    state.SetLabel(hand.tuning.summary.substr(hand.tuning.summary.rfind("->")));
    bench::set_bytes(state, 8.0 * double(n));
}

// ---- Boost.Compute -------------------------------------------------------------------------

struct boost_instance {
    std::string error;
    std::unique_ptr<bench::boost_vectors> v;
    std::function<void()> once;
};

void run_boost(benchmark::State& state, const workload& w) {
    const std::size_t n = std::size_t(state.range(0));
    auto& p = bench::prepared<boost_instance>(key(w, "boost_compute", n), [&] {
        auto p = std::make_unique<boost_instance>();
        try {
            p->v = std::make_unique<bench::boost_vectors>(host_x(n), bench::poison(n).data(), n);
            bc::vector<float>&x = p->v->x, &y = p->v->y;
            bc::command_queue& q = p->v->queue;
            if (w.exclusive)
                p->once = [&x, &y, &q] {
                    bc::exclusive_scan(x.begin(), x.end(), y.begin(), q);
                    q.finish();
                };
            else
                p->once = [&x, &y, &q] {
                    bc::inclusive_scan(x.begin(), x.end(), y.begin(), q);
                    q.finish();
                };
            p->once();
            std::vector<float> host(n);
            bc::copy(y.begin(), y.end(), host.begin(), q);
            p->error = check(w, n, host);
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key(w, "boost_compute", n) + ": " + p->error;
        return p;
    });
    time_instance(state, p, n);
}

void register_all() {
    const std::vector<std::int64_t> n = bench::sizes(10, 24); // issue 5's target size is 2^24
    for (const workload& w : workloads()) {
        const workload* p = &w;
        bench::add(
            w.name + "/loom_expr", [p](benchmark::State& s) { run_loom(s, *p); }, n);
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
