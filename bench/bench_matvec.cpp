// Matrix-vector product y = A x (float, row-major): square matrices (matvec/<variant>/<n>, n x n)
// and a tall one of 256 columns (matvec_tall256/<variant>/<rows>). Loom as users write it,
// y = loom::sum(A * loom::as_row(x), loom::axis<1>) (docs/matrices.md), against handwritten
// OpenCL kernels tuned over shapes and geometry: a work-item per row (scalar loop, float4 and
// float8 loads), a work-group per row (a tree in local memory), and a band of rows per work-item
// (float8 and float16 loads; four rows at a time sharing each load of x). Boost.Compute has no
// matrix-vector product or segmented reduction of a matrix's rows in its front end: not
// measured. Every variant and every shape is checked against a double host reference first.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "harness.hpp"
#include "opencl_baseline.hpp"
#include "shaped_launches.hpp"

namespace {

struct workload {
    std::string name;
    std::size_t cols; // 0: square, cols = rows
};

const std::vector<workload>& workloads() {
    static const std::vector<workload> all = {{"matvec", 0}, {"matvec_tall256", 256}};
    return all;
}

std::size_t cols_of(const workload& w, std::size_t rows) { return w.cols ? w.cols : rows; }

// The matrix: a prefix of the harness's pool, of mixed sign (cancellation shows a bad order).
const float* host_a(std::size_t elements) { return bench::random_floats(61, -1.0f, 1.0f, elements); }

const std::vector<float>& host_x(std::size_t cols) {
    static std::vector<float> x;
    if (x.size() != cols) {
        std::mt19937 gen(62);
        std::uniform_real_distribution<float> d(-1.0f, 1.0f);
        x.resize(cols);
        for (float& v : x) v = d(gen);
    }
    return x;
}

// Per row: the product in double, and sum |A(i, j) x[j]|, the scale of a float fold's error.
struct reference_rows {
    std::string key;
    std::vector<double> value, magnitude;
};

const reference_rows& reference(std::size_t rows, std::size_t cols) {
    static reference_rows r;
    const std::string key = std::to_string(rows) + "x" + std::to_string(cols);
    if (r.key == key) return r;
    const float* a = host_a(rows * cols);
    const std::vector<float>& x = host_x(cols);
    r.value.assign(rows, 0);
    r.magnitude.assign(rows, 0);
    bench::parallel_for(rows * cols, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin / cols; i < rows && i * cols < end; ++i) {
            if (i * cols < begin) continue; // a row belongs to the part its first element is in
            double s = 0, m = 0;
            for (std::size_t j = 0; j < cols; ++j) {
                const double t = double(a[i * cols + j]) * double(x[j]);
                s += t;
                m += std::fabs(t);
            }
            r.value[i] = s;
            r.magnitude[i] = m;
        }
    });
    r.key = key;
    return r;
}

// Any order of a float fold of `cols` terms (sequential, lanes, trees; with or without
// contraction) stays far inside 1e-5 of sum |terms| with these inputs (typical error about
// 1e-7 of it); a missing or doubled term of a 4096-column row is 2e-4 of it.
std::string check(const std::vector<float>& got, std::size_t rows, std::size_t cols) {
    const reference_rows& r = reference(rows, cols);
    std::size_t bad = 0, first = rows;
    for (std::size_t i = 0; i < rows; ++i)
        if (!std::isfinite(got[i]) || std::fabs(got[i] - r.value[i]) > 1e-5 * r.magnitude[i] + 1e-30) {
            if (first == rows) first = i;
            ++bad;
        }
    if (bad == 0) return {};
    char text[200];
    std::snprintf(text, sizeof text, "wrong result: row %zu is %.9g, the host reference says %.9g (%zu of %zu differ)",
                  first, double(got[first]), r.value[first], bad, rows);
    return text;
}

std::string key(const workload& w, const std::string& variant, std::size_t rows) {
    return w.name + "/" + variant + "/" + std::to_string(rows);
}

void set_counters(benchmark::State& state, std::size_t rows, std::size_t cols) {
    // The matrix once, x and y: the least any kernel must move.
    bench::set_bytes(state, 4.0 * double(rows * cols + rows + cols));
    state.counters["cols"] = double(cols);
}

// ---- Loom ----------------------------------------------------------------------------------

struct loom_instance {
    std::string error;
    loom::context* ctx = nullptr;
    std::unique_ptr<loom::matrix<float>> a;
    std::unique_ptr<loom::vector<float>> x, y;
    void once() {
        *y = loom::sum(*a * loom::as_row(*x), loom::axis<1>);
        ctx->finish();
    }
};

loom_instance& loom_prepared(const workload& w, bool contract, std::size_t rows) {
    const std::string variant = contract ? "loom_contract" : "loom_expr";
    const std::size_t cols = cols_of(w, rows);
    return bench::prepared<loom_instance>(key(w, variant, rows), [&] {
        auto p = std::make_unique<loom_instance>();
        try {
            p->ctx = &bench::loom_context(true, contract);
            p->a = std::make_unique<loom::matrix<float>>(*p->ctx, rows, cols, host_a(rows * cols));
            p->x = std::make_unique<loom::vector<float>>(*p->ctx, host_x(cols));
            p->y = std::make_unique<loom::vector<float>>(*p->ctx, rows);
            loom::copy(bench::poison(rows), *p->y);
            p->once();
            p->error = check(p->y->to_host(), rows, cols);
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key(w, variant, rows) + ": " + p->error;
        return p;
    });
}

void run_loom(benchmark::State& state, const workload& w, bool contract) {
    const std::size_t rows = std::size_t(state.range(0));
    loom_instance& p = loom_prepared(w, contract, rows);
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    bench::time_loop(state, [&p] { p.once(); });
    set_counters(state, rows, cols_of(w, rows));
}

// ---- handwritten ---------------------------------------------------------------------------

// The vector forms are written once with $W for the width of their loads; hsum$W folds a
// vector's lanes. OpenCL's default FP_CONTRACT (on) is left as a programmer gets it.
const char* vector_forms = R"(
__kernel void row_vec$W(__global const float* restrict a, __global const float* restrict x,
                        __global float* restrict y, uint rows, uint cols) {
    const uint r = get_global_id(0);
    if (r >= rows) return;
    __global const float* row = a + (ulong)r * cols;
    float$W acc = 0.0f;
    uint c = 0;
    for (; c + $W <= cols; c += $W) acc += vload$W(0, row + c) * vload$W(0, x + c);
    float s = hsum$W(acc);
    for (; c < cols; ++c) s += row[c] * x[c];
    y[r] = s;
}

// A contiguous band of rows per work-item.
__kernel void band_vec$W(__global const float* restrict a, __global const float* restrict x,
                         __global float* restrict y, uint rows, uint cols) {
    const uint band = (rows + get_global_size(0) - 1) / get_global_size(0);
    const uint r0 = min((uint)get_global_id(0) * band, rows), r1 = min(r0 + band, rows);
    for (uint r = r0; r < r1; ++r) {
        __global const float* row = a + (ulong)r * cols;
        float$W acc = 0.0f;
        uint c = 0;
        for (; c + $W <= cols; c += $W) acc += vload$W(0, row + c) * vload$W(0, x + c);
        float s = hsum$W(acc);
        for (; c < cols; ++c) s += row[c] * x[c];
        y[r] = s;
    }
}

// A band of rows per work-item, four rows at a time: each load of x serves four rows.
__kernel void band4_vec$W(__global const float* restrict a, __global const float* restrict x,
                          __global float* restrict y, uint rows, uint cols) {
    const uint band = ((rows + get_global_size(0) - 1) / get_global_size(0) + 3) & ~3u;
    const uint r0 = min((uint)get_global_id(0) * band, rows), r1 = min(r0 + band, rows);
    uint r = r0;
    for (; r + 4 <= r1; r += 4) {
        __global const float* row = a + (ulong)r * cols;
        float$W a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
        uint c = 0;
        for (; c + $W <= cols; c += $W) {
            const float$W xv = vload$W(0, x + c);
            a0 += vload$W(0, row + c) * xv;
            a1 += vload$W(0, row + cols + c) * xv;
            a2 += vload$W(0, row + 2 * cols + c) * xv;
            a3 += vload$W(0, row + 3 * cols + c) * xv;
        }
        float s0 = hsum$W(a0), s1 = hsum$W(a1), s2 = hsum$W(a2), s3 = hsum$W(a3);
        for (; c < cols; ++c) {
            s0 += row[c] * x[c];
            s1 += row[cols + c] * x[c];
            s2 += row[2 * cols + c] * x[c];
            s3 += row[3 * cols + c] * x[c];
        }
        y[r] = s0;
        y[r + 1] = s1;
        y[r + 2] = s2;
        y[r + 3] = s3;
    }
    for (; r < r1; ++r) {
        __global const float* row = a + (ulong)r * cols;
        float s = 0.0f;
        for (uint c = 0; c < cols; ++c) s += row[c] * x[c];
        y[r] = s;
    }
}
)";

std::string matvec_source() {
    std::string s = R"(
inline float hsum4(float4 v) { return (v.s0 + v.s1) + (v.s2 + v.s3); }
inline float hsum8(float8 v) { return hsum4(v.lo + v.hi); }
inline float hsum16(float16 v) { return hsum8(v.lo + v.hi); }

__kernel void row_scalar(__global const float* restrict a, __global const float* restrict x,
                         __global float* restrict y, uint rows, uint cols) {
    const uint r = get_global_id(0);
    if (r >= rows) return;
    __global const float* row = a + (ulong)r * cols;
    float s = 0.0f;
    for (uint c = 0; c < cols; ++c) s += row[c] * x[c];
    y[r] = s;
}

// A work-group per row: its work-items stride over the columns, then a tree in local memory
// (the group size a power of two).
__kernel void group_row(__global const float* restrict a, __global const float* restrict x,
                        __global float* restrict y, uint rows, uint cols, __local float* part) {
    const uint r = get_group_id(0), lid = get_local_id(0), g = get_local_size(0);
    __global const float* row = a + (ulong)r * cols;
    float s = 0.0f;
    for (uint c = lid; c < cols; c += g) s += row[c] * x[c];
    part[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint step = g / 2; step > 0; step >>= 1) {
        if (lid < step) part[lid] += part[lid + step];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) y[r] = part[0];
}
)";
    return s + bench::ocl::for_widths(vector_forms, {"4", "8", "16"});
}

struct opencl_instance {
    std::string error;
    cl::Buffer a, x, y;
    bench::ocl::tuned_launches tuned;
    void once() { bench::ocl::run_launch(tuned.best()); }
};

std::vector<bench::ocl::named_launch> matvec_launches(opencl_instance& p, std::size_t rows, std::size_t cols) {
    using namespace bench::ocl;
    const std::string source = matvec_source();
    auto bound = [&](const char* name) {
        cl::Kernel k = kernel(source, name);
        k.setArg(0, p.a);
        k.setArg(1, p.x);
        k.setArg(2, p.y);
        k.setArg(3, cl_uint(rows));
        k.setArg(4, cl_uint(cols));
        return k;
    };
    std::vector<named_launch> out;
    for (const char* form : {"row_scalar", "row_vec4", "row_vec8"}) add_group_sizes(out, bound(form), form, rows);
    // A kernel object per group size: each binds its own local memory.
    for (std::size_t g : {16, 64, 256, 1024}) {
        if (g > cols || g > env().max_work_group) continue;
        cl::Kernel k = bound("group_row");
        k.setArg(5, cl::Local(g * sizeof(float)));
        out.push_back({k, cl::NDRange(rows * g), cl::NDRange(g), "group_row:" + std::to_string(g)});
    }
    for (const char* form : {"band_vec8", "band_vec16", "band4_vec8"}) add_chunked(out, bound(form), form, rows);
    return out;
}

opencl_instance& handwritten_prepared(const workload& w, std::size_t rows) {
    const std::size_t cols = cols_of(w, rows);
    return bench::prepared<opencl_instance>(key(w, "handwritten", rows), [&] {
        auto p = std::make_unique<opencl_instance>();
        try {
            p->a = bench::ocl::upload(host_a(rows * cols), rows * cols);
            p->x = bench::ocl::upload(host_x(cols).data(), cols);
            p->y = bench::ocl::allocate(rows);
            opencl_instance* raw = p.get();
            p->tuned = bench::ocl::check_and_tune(key(w, "handwritten", rows), matvec_launches(*p, rows, cols),
                                                  [raw, rows, cols](const bench::ocl::named_launch& l) {
                                                      bench::ocl::fill_nan(raw->y, rows);
                                                      bench::ocl::run_launch(l);
                                                      return check(bench::ocl::download(raw->y, rows), rows, cols);
                                                  });
        } catch (const std::exception& e) {
            p->error = key(w, "handwritten", rows) + ": " + e.what();
        }
        return p;
    });
}

void run_handwritten(benchmark::State& state, const workload& w) {
    const std::size_t rows = std::size_t(state.range(0));
    opencl_instance& p = handwritten_prepared(w, rows);
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    state.SetLabel("-> " + p.tuned.best().name);
    bench::time_loop(state, [&p] { p.once(); });
    set_counters(state, rows, cols_of(w, rows));
}

// Loom and the tuned kernel, run by run (bench::time_interleaved).
void run_interleaved(benchmark::State& state, const workload& w) {
    const bench::own_instances fresh; // both made anew for the pair
    const std::size_t rows = std::size_t(state.range(0));
    opencl_instance& hand = handwritten_prepared(w, rows);
    if (!bench::time_interleaved_instances(state, loom_prepared(w, false, rows), hand)) return;
    state.SetLabel("-> " + hand.tuned.best().name);
    set_counters(state, rows, cols_of(w, rows));
}

void register_all() {
    // Square n x n for n = 256 .. 4096, and 4096 or 65536 rows of 256 columns: each up to
    // 2^max_log2 elements.
    for (const workload& w : workloads()) {
        std::vector<std::int64_t> rows;
        for (std::int64_t r :
             w.cols ? std::vector<std::int64_t>{4096, 65536} : std::vector<std::int64_t>{256, 1024, 2048, 4096})
            if (double(r) * double(w.cols ? std::int64_t(w.cols) : r) <= std::ldexp(1.0, bench::max_log2()))
                rows.push_back(r);
        if (rows.empty()) continue;
        const workload* p = &w;
        bench::add(
            w.name + "/loom_expr", [p](benchmark::State& s) { run_loom(s, *p, false); }, rows);
        bench::add(
            w.name + "/loom_contract", [p](benchmark::State& s) { run_loom(s, *p, true); }, rows);
        bench::add(
            w.name + "/handwritten", [p](benchmark::State& s) { run_handwritten(s, *p); }, rows);
        bench::add(
            w.name + "/interleaved", [p](benchmark::State& s) { run_interleaved(s, *p); }, rows, 0.01);
    }
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
