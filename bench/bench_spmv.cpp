// Sparse matrix-vector product y = A x (float values, 32-bit indices) on two matrices of n rows:
// - poisson: the 5-point Laplacian on a sqrt(n) x sqrt(n) grid (5 entries a row, 4 at the
//   border), as CG on a 2-D problem multiplies it;
// - uneven: random rows of 0 to 16 entries (8 on average) at random columns, so neighbouring
//   rows differ in length and x is read all over.
// Variants:
// - loom_csr, loom_sell32: `y = A * x` (docs/sparse.md) with A in CSR and in sliced ELL of 32-row
//   slices (the layout the automatic choice gives GPUs); loom_auto: the automatic layout.
// - handwritten: OpenCL kernels tuned over shapes and geometry, the fastest kept: CSR with a row
//   per work-item (every group size), CSR with a band of rows per work-item (1 to 32 work-items
//   a compute unit), vector CSR (2, 4 or 8 work-items a row, their sums added in local memory),
//   ELL (every row padded to the longest, stored column by column) with a row per work-item and
//   with a band per work-item, and sliced ELL of 32-row slices with a row per work-item.
// - interleaved: loom_auto and the tuned kernel, run by run.
// Boost.Compute has no sparse matrix: not measured. Every variant and shape is checked against
// a double host product first.
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

// A CSR matrix on the host.
struct csr {
    std::size_t rows = 0, cols = 0;
    std::vector<std::uint32_t> row_ptr{0}, col;
    std::vector<float> val;
};

csr poisson(std::size_t n) {
    const std::size_t m = std::size_t(std::lround(std::sqrt(double(n))));
    csr a;
    a.rows = a.cols = m * m;
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < m; ++j) {
            const std::size_t r = i * m + j;
            auto add = [&](std::size_t c, float v) {
                a.col.push_back(std::uint32_t(c));
                a.val.push_back(v);
            };
            if (i > 0) add(r - m, -1.0f);
            if (j > 0) add(r - 1, -1.0f);
            add(r, 4.0f);
            if (j + 1 < m) add(r + 1, -1.0f);
            if (i + 1 < m) add(r + m, -1.0f);
            a.row_ptr.push_back(std::uint32_t(a.col.size()));
        }
    return a;
}

csr uneven(std::size_t n) {
    std::mt19937_64 gen(71);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    csr a;
    a.rows = a.cols = n;
    for (std::size_t r = 0; r < n; ++r) {
        const std::size_t length = gen() % 17;
        for (std::size_t k = 0; k < length; ++k) {
            a.col.push_back(std::uint32_t(gen() % n));
            a.val.push_back(d(gen));
        }
        a.row_ptr.push_back(std::uint32_t(a.col.size()));
    }
    return a;
}

struct workload {
    std::string name;
    csr (*make)(std::size_t);
};

const std::vector<workload>& workloads() {
    static const std::vector<workload> all = {{"spmv_poisson", poisson}, {"spmv_uneven", uneven}};
    return all;
}

const csr& matrix(const workload& w, std::size_t n) {
    static std::string key;
    static csr a;
    if (key != w.name + std::to_string(n)) {
        a = w.make(n);
        key = w.name + std::to_string(n);
    }
    return a;
}

const std::vector<float>& host_x(std::size_t n) {
    static std::vector<float> x;
    if (x.size() != n) {
        std::mt19937 gen(72);
        std::uniform_real_distribution<float> d(-1.0f, 1.0f);
        x.resize(n);
        for (float& v : x) v = d(gen);
    }
    return x;
}

// Within 1e-5 of sum |terms| per row: any order of a float sum of at most 16 terms is far inside
// it; a missing or doubled term is not.
std::string check(const std::vector<float>& got, const csr& a) {
    const std::vector<float>& x = host_x(a.cols);
    for (std::size_t r = 0; r < a.rows; ++r) {
        double s = 0, m = 0;
        for (std::uint32_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
            const double t = double(a.val[k]) * double(x[a.col[k]]);
            s += t;
            m += std::fabs(t);
        }
        if (!std::isfinite(got[r]) || std::fabs(got[r] - s) > 1e-5 * m + 1e-30) {
            char text[160];
            std::snprintf(text, sizeof text, "wrong result: row %zu is %.9g, the host product says %.9g", r,
                          double(got[r]), s);
            return text;
        }
    }
    return {};
}

std::string key(const workload& w, const std::string& variant, std::size_t n) {
    return w.name + "/" + variant + "/" + std::to_string(n);
}

void set_counters(benchmark::State& state, const csr& a) {
    // The entries (value and column), row_ptr, x and y once each: the least a CSR kernel moves.
    bench::set_bytes(state, 8.0 * double(a.val.size()) + 4.0 * double(a.rows + 1) + 4.0 * double(a.cols + a.rows));
    state.counters["entries"] = double(a.val.size());
}

// ---- Loom ----------------------------------------------------------------------------------

struct loom_instance {
    std::string error;
    loom::context* ctx = nullptr;
    std::unique_ptr<loom::sparse_matrix<float>> a;
    std::unique_ptr<loom::vector<float>> x, y;
    void once() {
        *y = *a * *x;
        ctx->finish();
    }
};

loom::sparse_layout layout_of(const std::string& variant) {
    if (variant == "loom_csr") return loom::sparse_layout::csr();
    if (variant == "loom_sell32") return loom::sparse_layout::sliced_ell(32);
    return loom::sparse_layout::automatic();
}

loom_instance& loom_prepared(const workload& w, const std::string& variant, std::size_t n) {
    const csr& a = matrix(w, n);
    return bench::prepared<loom_instance>(key(w, variant, n), [&] {
        auto p = std::make_unique<loom_instance>();
        try {
            p->ctx = &bench::loom_context(true);
            p->a = std::make_unique<loom::sparse_matrix<float>>(*p->ctx, a.rows, a.cols, a.row_ptr, a.col, a.val,
                                                                layout_of(variant));
            p->x = std::make_unique<loom::vector<float>>(*p->ctx, host_x(a.cols));
            p->y = std::make_unique<loom::vector<float>>(*p->ctx, a.rows);
            loom::copy(bench::poison(a.rows), *p->y);
            p->once();
            p->error = check(p->y->to_host(), a);
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key(w, variant, n) + ": " + p->error;
        return p;
    });
}

void run_loom(benchmark::State& state, const workload& w, const std::string& variant) {
    const std::size_t n = std::size_t(state.range(0));
    loom_instance& p = loom_prepared(w, variant, n);
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    bench::time_loop(state, [&p] { p.once(); });
    set_counters(state, matrix(w, n));
}

// ---- handwritten ---------------------------------------------------------------------------

// OpenCL's default FP_CONTRACT (on) is left as a programmer gets it.
const char* spmv_source = R"(
__kernel void csr_row(__global const uint* restrict row_ptr, __global const uint* restrict col,
                      __global const float* restrict val, __global const float* restrict x,
                      __global float* restrict y, uint rows) {
    const uint r = get_global_id(0);
    if (r >= rows) return;
    float s = 0.0f;
    for (uint k = row_ptr[r]; k < row_ptr[r + 1]; ++k) s += val[k] * x[col[k]];
    y[r] = s;
}

// A contiguous band of rows per work-item: each row's end is the next row's start.
__kernel void csr_band(__global const uint* restrict row_ptr, __global const uint* restrict col,
                       __global const float* restrict val, __global const float* restrict x,
                       __global float* restrict y, uint rows) {
    const uint band = (rows + get_global_size(0) - 1) / get_global_size(0);
    const uint r0 = min((uint)get_global_id(0) * band, rows), r1 = min(r0 + band, rows);
    uint start = row_ptr[r0];
    for (uint r = r0; r < r1; ++r) {
        const uint end = row_ptr[r + 1];
        float s = 0.0f;
        for (uint k = start; k < end; ++k) s += val[k] * x[col[k]];
        y[r] = s;
        start = end;
    }
}

// `lanes` work-items a row (a power of two dividing the group), their sums added in local memory.
__kernel void csr_vector(__global const uint* restrict row_ptr, __global const uint* restrict col,
                         __global const float* restrict val, __global const float* restrict x,
                         __global float* restrict y, uint rows, uint lanes, __local float* part) {
    const uint lid = get_local_id(0), lane = lid % lanes;
    const uint r = get_global_id(0) / lanes;
    float s = 0.0f;
    if (r < rows)
        for (uint k = row_ptr[r] + lane; k < row_ptr[r + 1]; k += lanes) s += val[k] * x[col[k]];
    part[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint o = lanes / 2; o > 0; o >>= 1) {
        if (lane < o) part[lid] += part[lid + o];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lane == 0 && r < rows) y[r] = part[lid];
}

// ELL: `width` entries a row, entry k of row r at k * rows + r; padding has value 0, column 0.
__kernel void ell_row(__global const uint* restrict col, __global const float* restrict val,
                      __global const float* restrict x, __global float* restrict y, uint rows, uint width) {
    const uint r = get_global_id(0);
    if (r >= rows) return;
    float s = 0.0f;
    for (uint k = 0; k < width; ++k) s += val[k * rows + r] * x[col[k * rows + r]];
    y[r] = s;
}

__kernel void ell_band(__global const uint* restrict col, __global const float* restrict val,
                       __global const float* restrict x, __global float* restrict y, uint rows, uint width) {
    const uint band = (rows + get_global_size(0) - 1) / get_global_size(0);
    const uint r0 = min((uint)get_global_id(0) * band, rows), r1 = min(r0 + band, rows);
    for (uint r = r0; r < r1; ++r) {
        float s = 0.0f;
        for (uint k = 0; k < width; ++k) s += val[k * rows + r] * x[col[k * rows + r]];
        y[r] = s;
    }
}

// Sliced ELL of 32-row slices: slice s from slice_ptr[s], entry k of its lane l at + k * 32 + l,
// each row read up to its own length.
__kernel void sell32_row(__global const uint* restrict slice_ptr, __global const uint* restrict length,
                         __global const uint* restrict col, __global const float* restrict val,
                         __global const float* restrict x, __global float* restrict y, uint rows) {
    const uint r = get_global_id(0);
    if (r >= rows) return;
    const uint first = slice_ptr[r / 32] + r % 32, end = first + length[r] * 32;
    float s = 0.0f;
    for (uint k = first; k < end; k += 32) s += val[k] * x[col[k]];
    y[r] = s;
}
)";

struct opencl_instance {
    std::string error;
    cl::Buffer row_ptr, col, val, ell_col, ell_val, slice_ptr, length, sell_col, sell_val, x, y;
    bench::ocl::tuned_launches tuned;
    void once() { bench::ocl::run_launch(tuned.best()); }
};

template <class T> cl::Buffer upload_any(const std::vector<T>& host) {
    return cl::Buffer(bench::ocl::env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                      std::max<std::size_t>(1, host.size()) * sizeof(T), const_cast<T*>(host.data()));
}

// The ELL arrays (padded to the longest row) and the sliced ELL ones.
void upload_ell(opencl_instance& p, const csr& a, std::uint32_t& width) {
    width = 0;
    for (std::size_t r = 0; r < a.rows; ++r) width = std::max(width, a.row_ptr[r + 1] - a.row_ptr[r]);
    std::vector<std::uint32_t> col(std::size_t(width) * a.rows, 0);
    std::vector<float> val(col.size(), 0.0f);
    for (std::size_t r = 0; r < a.rows; ++r)
        for (std::uint32_t k = 0; k < a.row_ptr[r + 1] - a.row_ptr[r]; ++k) {
            col[k * a.rows + r] = a.col[a.row_ptr[r] + k];
            val[k * a.rows + r] = a.val[a.row_ptr[r] + k];
        }
    p.ell_col = upload_any(col);
    p.ell_val = upload_any(val);
    const std::size_t slices = (a.rows + 31) / 32;
    std::vector<std::uint32_t> slice_ptr(slices + 1, 0), length(a.rows), sell_col;
    std::vector<float> sell_val;
    for (std::size_t s = 0; s < slices; ++s) {
        std::uint32_t longest = 0;
        for (std::size_t r = s * 32; r < std::min(a.rows, s * 32 + 32); ++r) {
            length[r] = a.row_ptr[r + 1] - a.row_ptr[r];
            longest = std::max(longest, length[r]);
        }
        slice_ptr[s + 1] = slice_ptr[s] + longest * 32;
        sell_col.resize(slice_ptr[s + 1], 0);
        sell_val.resize(slice_ptr[s + 1], 0.0f);
        for (std::size_t r = s * 32; r < std::min(a.rows, s * 32 + 32); ++r)
            for (std::uint32_t k = 0; k < length[r]; ++k) {
                sell_col[slice_ptr[s] + k * 32 + r % 32] = a.col[a.row_ptr[r] + k];
                sell_val[slice_ptr[s] + k * 32 + r % 32] = a.val[a.row_ptr[r] + k];
            }
    }
    p.slice_ptr = upload_any(slice_ptr);
    p.length = upload_any(length);
    p.sell_col = upload_any(sell_col);
    p.sell_val = upload_any(sell_val);
}

std::vector<bench::ocl::named_launch> spmv_launches(opencl_instance& p, const csr& a) {
    using namespace bench::ocl;
    const cl_uint rows = cl_uint(a.rows);
    auto csr_kernel = [&](const char* name) {
        cl::Kernel k = kernel(spmv_source, name);
        k.setArg(0, p.row_ptr);
        k.setArg(1, p.col);
        k.setArg(2, p.val);
        k.setArg(3, p.x);
        k.setArg(4, p.y);
        k.setArg(5, rows);
        return k;
    };
    std::uint32_t width = 0;
    upload_ell(p, a, width);
    auto ell_kernel = [&](const char* name) {
        cl::Kernel k = kernel(spmv_source, name);
        k.setArg(0, p.ell_col);
        k.setArg(1, p.ell_val);
        k.setArg(2, p.x);
        k.setArg(3, p.y);
        k.setArg(4, rows);
        k.setArg(5, cl_uint(width));
        return k;
    };
    std::vector<named_launch> out;
    add_group_sizes(out, csr_kernel("csr_row"), "csr_row", a.rows);
    add_chunked(out, csr_kernel("csr_band"), "csr_band", a.rows);
    // A kernel object per geometry: each binds its own lanes and local memory.
    for (std::size_t lanes : {2, 4, 8})
        for (std::size_t g : {64, 256}) {
            if (g > env().max_work_group) continue;
            cl::Kernel k = csr_kernel("csr_vector");
            k.setArg(6, cl_uint(lanes));
            k.setArg(7, cl::Local(g * sizeof(float)));
            out.push_back({k, cl::NDRange(round_up(a.rows * lanes, g)), cl::NDRange(g),
                           "csr_vector" + std::to_string(lanes) + ":" + std::to_string(g)});
        }
    add_group_sizes(out, ell_kernel("ell_row"), "ell_row", a.rows);
    add_chunked(out, ell_kernel("ell_band"), "ell_band", a.rows);
    cl::Kernel sell = kernel(spmv_source, "sell32_row");
    sell.setArg(0, p.slice_ptr);
    sell.setArg(1, p.length);
    sell.setArg(2, p.sell_col);
    sell.setArg(3, p.sell_val);
    sell.setArg(4, p.x);
    sell.setArg(5, p.y);
    sell.setArg(6, rows);
    add_group_sizes(out, sell, "sell32_row", a.rows);
    return out;
}

opencl_instance& handwritten_prepared(const workload& w, std::size_t n) {
    const csr& a = matrix(w, n);
    return bench::prepared<opencl_instance>(key(w, "handwritten", n), [&] {
        auto p = std::make_unique<opencl_instance>();
        try {
            p->row_ptr = upload_any(a.row_ptr);
            p->col = upload_any(a.col);
            p->val = upload_any(a.val);
            p->x = bench::ocl::upload(host_x(a.cols).data(), a.cols);
            p->y = bench::ocl::allocate(a.rows);
            opencl_instance* raw = p.get();
            p->tuned = bench::ocl::check_and_tune(key(w, "handwritten", n), spmv_launches(*p, a),
                                                  [raw, &a](const bench::ocl::named_launch& l) {
                                                      bench::ocl::fill_nan(raw->y, a.rows);
                                                      bench::ocl::run_launch(l);
                                                      return check(bench::ocl::download(raw->y, a.rows), a);
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
    set_counters(state, matrix(w, n));
}

// Loom (automatic layout) and the tuned kernel, run by run (bench::time_interleaved).
void run_interleaved(benchmark::State& state, const workload& w) {
    const bench::own_instances fresh; // both made anew for the pair
    const std::size_t n = std::size_t(state.range(0));
    opencl_instance& hand = handwritten_prepared(w, n);
    if (!bench::time_interleaved_instances(state, loom_prepared(w, "loom_auto", n), hand)) return;
    state.SetLabel("-> " + hand.tuned.best().name);
    set_counters(state, matrix(w, n));
}

void register_all() {
    // n = 2^14, 2^18, 2^20, 2^22 rows (squares, for the Poisson grid), up to 2^max_log2.
    std::vector<std::int64_t> sizes;
    for (int log2 : {14, 18, 20, 22})
        if (log2 <= bench::max_log2()) sizes.push_back(std::int64_t(1) << log2);
    if (sizes.empty()) return;
    for (const workload& w : workloads()) {
        const workload* p = &w;
        for (const char* variant : {"loom_auto", "loom_csr", "loom_sell32"}) {
            const std::string v = variant;
            bench::add(
                w.name + "/" + v, [p, v](benchmark::State& s) { run_loom(s, *p, v); }, sizes);
        }
        bench::add(
            w.name + "/handwritten", [p](benchmark::State& s) { run_handwritten(s, *p); }, sizes);
        bench::add(
            w.name + "/interleaved", [p](benchmark::State& s) { run_interleaved(s, *p); }, sizes, 0.01);
    }
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
