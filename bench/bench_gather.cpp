// Gather y = x[idx] (float values, 32-bit unsigned indices) over two indices: a random
// permutation (gather_random) and a strided one, idx[i] = 33 i mod n, a permutation too, each
// read a new cache line in an order a prefetcher follows (gather_strided). Loom as users write
// it, y = loom::gather(x, idx) (include/loom/view.hpp), against handwritten OpenCL kernels tuned
// over shapes and geometry: one element per work-item, a contiguous chunk per work-item (and the
// chunk with float8 loads of the index and stores of y), and a grid-stride loop; and
// Boost.Compute's gather. The handwritten kernels test each index as Loom does (0 outside x);
// Boost.Compute's does not. Every variant and every shape is checked against the host first.
#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/gather.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/container/vector.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "harness.hpp"
#include "opencl_baseline.hpp"
#include "shaped_launches.hpp"

namespace {

namespace bc = boost::compute;

struct workload {
    std::string name;
    bool random;
};

const std::vector<workload>& workloads() {
    static const std::vector<workload> all = {{"gather_random", true}, {"gather_strided", false}};
    return all;
}

constexpr std::uint32_t stride = 33; // odd, so i -> 33 i mod 2^k is a permutation

const float* host_x(std::size_t n) { return bench::random_floats(81, 0.5f, 1.5f, n); }

const std::vector<std::uint32_t>& host_index(const workload& w, std::size_t n) {
    static std::string cached_key;
    static std::vector<std::uint32_t> idx;
    const std::string key = w.name + std::to_string(n);
    if (cached_key == key) return idx;
    idx.resize(n);
    for (std::size_t i = 0; i < n; ++i) idx[i] = w.random ? std::uint32_t(i) : std::uint32_t(i * stride % n);
    if (w.random) { // Fisher-Yates with a fixed generator: the same permutation in every run
        std::mt19937_64 gen(82);
        for (std::size_t i = n - 1; i > 0; --i) std::swap(idx[i], idx[gen() % (i + 1)]);
    }
    cached_key = key;
    return idx;
}

const std::vector<float>& reference(const workload& w, std::size_t n) {
    static std::string cached_key;
    static std::vector<float> y;
    const std::string key = w.name + std::to_string(n);
    if (cached_key == key) return y;
    const float* x = host_x(n);
    const std::vector<std::uint32_t>& idx = host_index(w, n);
    y.resize(n);
    for (std::size_t i = 0; i < n; ++i) y[i] = x[idx[i]];
    cached_key = key;
    return y;
}

// A gather moves values: exact.
std::string check(const workload& w, const std::vector<float>& got, std::size_t n) {
    return bench::compare(got.data(), reference(w, n).data(), n, bench::tolerance{0, 0});
}

std::string key(const workload& w, const std::string& variant, std::size_t n) {
    return w.name + "/" + variant + "/" + std::to_string(n);
}

// x (each element once: the indices are permutations), the index and y.
void set_counters(benchmark::State& state, std::size_t n) { bench::set_bytes(state, 12.0 * double(n)); }

// ---- Loom ----------------------------------------------------------------------------------

struct loom_instance {
    std::string error;
    loom::context* ctx = nullptr;
    std::unique_ptr<loom::vector<float>> x, y;
    std::unique_ptr<loom::vector<std::uint32_t>> idx;
    void once() {
        *y = loom::gather(*x, *idx);
        ctx->finish();
    }
};

loom_instance& loom_prepared(const workload& w, std::size_t n) {
    return bench::prepared<loom_instance>(key(w, "loom_expr", n), [&] {
        auto p = std::make_unique<loom_instance>();
        try {
            loom::context& ctx = bench::loom_context(true);
            p->ctx = &ctx;
            p->x = std::make_unique<loom::vector<float>>(ctx, host_x(n), host_x(n) + n);
            p->idx = std::make_unique<loom::vector<std::uint32_t>>(ctx, host_index(w, n));
            p->y = std::make_unique<loom::vector<float>>(ctx, n);
            loom::copy(bench::poison(n), *p->y);
            p->once();
            p->error = check(w, p->y->to_host(), n);
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key(w, "loom_expr", n) + ": " + p->error;
        return p;
    });
}

void run_loom(benchmark::State& state, const workload& w) {
    const std::size_t n = std::size_t(state.range(0));
    loom_instance& p = loom_prepared(w, n);
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    bench::time_loop(state, [&p] { p.once(); });
    set_counters(state, n);
}

// ---- handwritten ---------------------------------------------------------------------------

// Written once over LOOM_EACH_ELEMENT (bench::ocl::shaped_source defines it per element or per
// chunk; grid_stride below as a loop over the whole range).
const char* gather_source = R"(
__kernel void gather(__global const float* restrict x, __global const uint* restrict idx,
                     __global float* restrict y, uint n) {
    LOOM_EACH_ELEMENT(i) {
        const uint j = idx[i];
        y[i] = j < n ? x[j] : 0.0f;
    }
}
)";

const char* grid_stride =
    "#define LOOM_EACH_ELEMENT(i) for (uint i = get_global_id(0); i < n; i += get_global_size(0))\n";

// A chunk per work-item, eight elements at a time: float8 loads of the index, stores of y.
const char* chunk8_source = R"(
__kernel void gather(__global const float* restrict x, __global const uint* restrict idx,
                     __global float* restrict y, uint n) {
    const uint chunk = ((n + get_global_size(0) - 1) / get_global_size(0) + 15) & ~15u;
    const uint b = min((uint)get_global_id(0) * chunk, n), e = min(b + chunk, n);
    uint i = b;
    for (; i + 8 <= e; i += 8) {
        const uint8 j = vload8(0, idx + i);
        const float8 v = (float8)(j.s0 < n ? x[j.s0] : 0.0f, j.s1 < n ? x[j.s1] : 0.0f,
                                  j.s2 < n ? x[j.s2] : 0.0f, j.s3 < n ? x[j.s3] : 0.0f,
                                  j.s4 < n ? x[j.s4] : 0.0f, j.s5 < n ? x[j.s5] : 0.0f,
                                  j.s6 < n ? x[j.s6] : 0.0f, j.s7 < n ? x[j.s7] : 0.0f);
        vstore8(v, 0, y + i);
    }
    for (; i < e; ++i) {
        const uint j = idx[i];
        y[i] = j < n ? x[j] : 0.0f;
    }
}
)";

struct opencl_instance {
    std::string error;
    cl::Buffer x, idx, y;
    bench::ocl::tuned_launches tuned;
    void once() { bench::ocl::run_launch(tuned.best()); }
};

std::vector<bench::ocl::named_launch> gather_launches(opencl_instance& p, std::size_t n) {
    using namespace bench::ocl;
    auto bound = [&](const std::string& source) {
        cl::Kernel k = kernel(source, "gather");
        k.setArg(0, p.x);
        k.setArg(1, p.idx);
        k.setArg(2, p.y);
        k.setArg(3, cl_uint(n));
        return k;
    };
    std::vector<named_launch> out;
    add_group_sizes(out, bound(shaped_source(gather_source, shape::per_element)), "elem", n);
    add_chunked(out, bound(shaped_source(gather_source, shape::chunked)), "chunk", n);
    add_chunked(out, bound(chunk8_source), "chunk8", n);
    const cl::Kernel strided = bound(grid_stride + std::string(gather_source));
    for (std::size_t per_unit : {1, 4, 16})
        for (std::size_t group : {16, 64, 256}) {
            const std::size_t groups = env().compute_units * per_unit;
            if (groups * group > n) continue;
            out.push_back({strided, cl::NDRange(groups * group), cl::NDRange(group),
                           "stride:" + std::to_string(groups) + "x" + std::to_string(group)});
        }
    return out;
}

opencl_instance& handwritten_prepared(const workload& w, std::size_t n) {
    return bench::prepared<opencl_instance>(key(w, "handwritten", n), [&] {
        auto p = std::make_unique<opencl_instance>();
        try {
            const std::vector<std::uint32_t>& idx = host_index(w, n);
            p->x = bench::ocl::upload(host_x(n), n);
            p->idx = cl::Buffer(bench::ocl::env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                n * sizeof(std::uint32_t), const_cast<std::uint32_t*>(idx.data()));
            p->y = bench::ocl::allocate(n);
            opencl_instance* raw = p.get();
            const workload* pw = &w;
            p->tuned = bench::ocl::check_and_tune(key(w, "handwritten", n), gather_launches(*p, n),
                                                  [raw, pw, n](const bench::ocl::named_launch& l) {
                                                      bench::ocl::fill_nan(raw->y, n);
                                                      bench::ocl::run_launch(l);
                                                      return check(*pw, bench::ocl::download(raw->y, n), n);
                                                  });
        } catch (const std::exception& e) {
            p->error = key(w, "handwritten", n) + ": " + e.what();
        }
        return p;
    });
}

void run_handwritten(benchmark::State& state, const workload& w) {
    const std::size_t n = std::size_t(state.range(0));
    opencl_instance& p = handwritten_prepared(w, n);
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    state.SetLabel("-> " + p.tuned.best().name);
    bench::time_loop(state, [&p] { p.once(); });
    set_counters(state, n);
}

// Loom and the tuned kernel, run by run (bench::time_interleaved).
void run_interleaved(benchmark::State& state, const workload& w) {
    const bench::own_instances fresh; // both made anew for the pair
    const std::size_t n = std::size_t(state.range(0));
    opencl_instance& hand = handwritten_prepared(w, n);
    if (!bench::time_interleaved_instances(state, loom_prepared(w, n), hand)) return;
    state.SetLabel("-> " + hand.tuned.best().name);
    set_counters(state, n);
}

// ---- Boost.Compute -------------------------------------------------------------------------

struct boost_instance {
    std::string error;
    bc::command_queue queue;
    std::unique_ptr<bc::vector<float>> x, y;
    std::unique_ptr<bc::vector<bc::uint_>> idx;
    void once() {
        bc::gather(idx->begin(), idx->end(), x->begin(), y->begin(), queue);
        queue.finish();
    }
};

void run_boost(benchmark::State& state, const workload& w) {
    const std::size_t n = std::size_t(state.range(0));
    auto& p = bench::prepared<boost_instance>(key(w, "boost_compute", n), [&] {
        auto p = std::make_unique<boost_instance>();
        try {
            p->queue = bc::command_queue(bench::ocl::env().queue());
            const std::vector<std::uint32_t>& idx = host_index(w, n);
            p->x = std::make_unique<bc::vector<float>>(host_x(n), host_x(n) + n, p->queue);
            p->idx = std::make_unique<bc::vector<bc::uint_>>(idx.begin(), idx.end(), p->queue);
            const std::vector<float>& nan = bench::poison(n);
            p->y = std::make_unique<bc::vector<float>>(nan.begin(), nan.end(), p->queue);
            p->once();
            std::vector<float> got(n);
            bc::copy(p->y->begin(), p->y->end(), got.begin(), p->queue);
            p->error = check(w, got, n);
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key(w, "boost_compute", n) + ": " + p->error;
        return p;
    });
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    bench::time_loop(state, [&p] { p.once(); });
    set_counters(state, n);
}

void register_all() {
    // 2^16 (in cache), 2^20 and 2^24 (beyond it).
    const std::vector<std::int64_t> n = bench::sizes(16, 24, 4);
    for (const workload& w : workloads()) {
        const workload* p = &w;
        bench::add(
            w.name + "/loom_expr", [p](benchmark::State& s) { run_loom(s, *p); }, n);
        bench::add(
            w.name + "/handwritten", [p](benchmark::State& s) { run_handwritten(s, *p); }, n);
        bench::add(
            w.name + "/interleaved", [p](benchmark::State& s) { run_interleaved(s, *p); }, n, 0.01);
        bench::add(
            w.name + "/boost_compute", [p](benchmark::State& s) { run_boost(s, *p); }, n);
    }
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
