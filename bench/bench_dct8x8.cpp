// 8x8 block DCT of an n x n float image (dct8x8/<variant>/<n>): the orthonormal 2-D DCT-II of
// every 8x8 block, F = C X C^T. Loom as examples/dct8x8.cpp writes it (`loom_blocks`:
// loom::map_blocks<8, 8>(f), f transforming one block's rows, then its columns, traced once; the
// block in registers, one block a work-item; `loom_blocks_contract` in a context with fp_contract
// on, the rounding the handwritten kernels get; `loom_blocks_traced` the same lambda traced at
// every call, map_blocks(x, f, lambda)), the earlier formulation in two passes (`loom_expr`:
// a row pass of eight statements through stride-8 views, a column pass as one matrix statement
// over index<0>() and index<1>() with gathers), the same with both passes as gathers
// (`loom_gathers`), and with the column pass's row found by a multiply and a shift (`loom_rowmagic`), against
// handwritten OpenCL kernels tuned over shapes and geometry: a work-item per pixel (two
// kernels), a work-item per block row and per block column with float8 loads (two kernels), a
// work-item per 8x8 block with both passes in registers (float8 loads, at every group size, and
// a band of blocks per work-item), a work-group of 64 per block and one of 8 per block with the
// separable passes through local memory. The coefficients are a __constant table. The figure
// is pixels per second; bytes: the image read once and F written once. Boost.Compute has no
// block transform: not measured. Every variant and every shape is checked against a double
// host reference first.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness.hpp"
#include "dct8x8_work.hpp"
#include "opencl_baseline.hpp"
#include "shaped_launches.hpp"

namespace {

using namespace bench::dct8x8; // the workload: coefficients, image, reference, one block's transform

// ---- Loom ----------------------------------------------------------------------------------

// examples/dct8x8.cpp's passes.
void row_pass(loom::vector<float>& in, loom::vector<float>& out, const coefficients& m) {
    const std::size_t groups = in.size() / 8;
    for (int v = 0; v < 8; ++v) {
        auto term = [&](int k) { return float(m[v * 8 + k]) * in.slice(k, groups, 8); };
        out.slice(v, groups, 8) = term(0) + term(1) + term(2) + term(3) + term(4) + term(5) + term(6) + term(7);
    }
}

void column_pass(const loom::matrix<float>& in, loom::matrix<float>& out,
                 const std::vector<loom::vector<float>>& weight) {
    const auto i = loom::index<0>();
    const auto j = loom::index<1>();
    const std::uint64_t band_mask = ~std::uint64_t(7), width = in.cols();
    auto term = [&](int k) {
        return loom::as_column(weight[k]) * loom::gather(in.elements(), ((i & band_mask) + k) * width + j);
    };
    out = term(0) + term(1) + term(2) + term(3) + term(4) + term(5) + term(6) + term(7);
}

// Both passes as matrix statements with gathers: out(i, j) = sum_k m[j % 8][k] x(i, 8 (j / 8) + k),
// the weights gathered from the 64 coefficients; then the same down the columns.
void gathers_transform(loom::matrix<float>& x, loom::matrix<float>& t, loom::matrix<float>& f,
                       const loom::vector<float>& c) {
    const auto i = loom::index<0>();
    const auto j = loom::index<1>();
    const std::uint64_t seven = 7, band_mask = ~std::uint64_t(7), width = x.cols();
    auto row_term = [&](int k) {
        return loom::gather(c, (j & seven) * 8 + k) * loom::gather(x.elements(), i * width + (j & band_mask) + k);
    };
    t = row_term(0) + row_term(1) + row_term(2) + row_term(3) + row_term(4) + row_term(5) + row_term(6) + row_term(7);
    auto column_term = [&](int k) {
        return loom::gather(c, (i & seven) * 8 + k) * loom::gather(t.elements(), ((i & band_mask) + k) * width + j);
    };
    f = column_term(0) + column_term(1) + column_term(2) + column_term(3) + column_term(4) + column_term(5) +
        column_term(6) + column_term(7);
}

// The example's column pass as a 1-D statement whose row, n / w, is a multiply and a shift
// (n * ceil(2^40 / w)) >> 40, exact while n < 2^40 / w (every size here): what the 64-bit
// division per element that a matrix statement computes costs.
void column_pass_magic(const loom::vector<float>& in, loom::vector<float>& out, const loom::vector<float>& c,
                       std::uint64_t width) {
    const auto n = loom::index();
    const std::uint64_t seven = 7, magic = ((std::uint64_t(1) << 40) + width - 1) / width;
    const auto u = ((n * magic) >> 40) & seven; // the row's place in its band
    auto term = [&](int k) { return loom::gather(c, u * 8 + k) * loom::gather(in, n - u * width + k * width); };
    out = term(0) + term(1) + term(2) + term(3) + term(4) + term(5) + term(6) + term(7);
}

struct loom_instance {
    std::string error;
    loom::context* ctx = nullptr;
    bool gathers = false, magic = false;
    std::optional<loom::block_map<8, 8, dct_block>> blocks; // traced at its first call
    bool traced_each_call = false;                          // loom_blocks_traced: map_blocks(x, f, fn)
    std::unique_ptr<loom::matrix<float>> x, t, f;
    std::unique_ptr<loom::vector<float>> x_flat, t_flat, f_flat, c;
    std::vector<loom::vector<float>> weight; // weight[k][i] = C[i % 8][k]
    void once() {
        if (traced_each_call)
            loom::map_blocks<8, 8>(*x, *f, dct_block{dct_matrix()});
        else if (blocks)
            (*blocks)(*x, *f);
        else if (gathers)
            gathers_transform(*x, *t, *f, *c);
        else {
            row_pass(*x_flat, *t_flat, dct_matrix());
            if (magic)
                column_pass_magic(*t_flat, *f_flat, *c, t->cols());
            else
                column_pass(*t, *f, weight);
        }
        ctx->finish();
    }
};

loom_instance& loom_prepared(const std::string& variant, std::size_t n) {
    return bench::prepared<loom_instance>(key(variant, n), [&] {
        auto p = std::make_unique<loom_instance>();
        try {
            p->ctx = &bench::loom_context(true, variant == "loom_contract" || variant == "loom_blocks_contract");
            if (variant == "loom_blocks" || variant == "loom_blocks_contract")
                p->blocks.emplace(dct_block{dct_matrix()});
            p->traced_each_call = variant == "loom_blocks_traced";
            p->gathers = variant == "loom_gathers";
            p->magic = variant == "loom_rowmagic";
            loom::context& ctx = *p->ctx;
            p->x = std::make_unique<loom::matrix<float>>(ctx, n, n, host_image(n * n));
            p->t = std::make_unique<loom::matrix<float>>(ctx, n, n);
            p->f = std::make_unique<loom::matrix<float>>(ctx, n, n);
            p->x_flat = std::make_unique<loom::vector<float>>(loom::flatten(*p->x));
            p->t_flat = std::make_unique<loom::vector<float>>(loom::flatten(*p->t));
            p->f_flat = std::make_unique<loom::vector<float>>(loom::flatten(*p->f));
            std::vector<float> c(64);
            for (int k = 0; k < 64; ++k) c[std::size_t(k)] = float(dct_matrix()[std::size_t(k)]);
            p->c = std::make_unique<loom::vector<float>>(ctx, c);
            for (int k = 0; k < 8; ++k) {
                std::vector<float> w(n);
                for (std::size_t i = 0; i < n; ++i) w[i] = float(dct_matrix()[(i % 8) * 8 + std::size_t(k)]);
                p->weight.emplace_back(ctx, w);
            }
            loom::copy(bench::poison(n * n), *p->f);
            p->once();
            p->error = check(p->f->to_host(), n);
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key(variant, n) + ": " + p->error;
        return p;
    });
}

void run_loom(benchmark::State& state, const std::string& variant) {
    const std::size_t n = std::size_t(state.range(0));
    loom_instance& p = loom_prepared(variant, n);
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    bench::time_loop(state, [&p] { p.once(); });
    set_counters(state, n);
}

// ---- handwritten ---------------------------------------------------------------------------

// The coefficients as OpenCL C: C[v * 8 + k], and CT8[k] = column k of C as a float8, so that a
// block row's transform is sum_k x.sk * CT8[k]. Every kernel takes the width w (a multiple of 8)
// and the height h.
std::string dct_source() {
    const coefficients& c = dct_matrix();
    std::string s = "__constant float C[64] = {";
    char number[32];
    for (int k = 0; k < 64; ++k) {
        std::snprintf(number, sizeof number, "%s%.9ef", k ? ", " : "", c[std::size_t(k)]);
        s += number;
    }
    s += "};\n__constant float8 CT8[8] = {";
    for (int k = 0; k < 8; ++k) {
        s += k ? ", (float8)(" : "(float8)(";
        for (int v = 0; v < 8; ++v) {
            std::snprintf(number, sizeof number, "%s%.9ef", v ? ", " : "", c[std::size_t(v * 8 + k)]);
            s += number;
        }
        s += ")";
    }
    s += "};\n";
    s += R"(
inline float8 rows_dct(float8 x) {
    return x.s0 * CT8[0] + x.s1 * CT8[1] + x.s2 * CT8[2] + x.s3 * CT8[3] +
           x.s4 * CT8[4] + x.s5 * CT8[5] + x.s6 * CT8[6] + x.s7 * CT8[7];
}

// Output row u of a block from its eight rows after the row pass.
inline float8 column_dct(const float8* t, uint u) {
    __constant const float* m = C + u * 8;
    return m[0] * t[0] + m[1] * t[1] + m[2] * t[2] + m[3] * t[3] +
           m[4] * t[4] + m[5] * t[5] + m[6] * t[6] + m[7] * t[7];
}

// A work-item per pixel, two kernels: along the rows into t, then down the columns.
__kernel void pixel_rows(__global const float* restrict x, __global float* restrict t, uint w, uint h) {
    const uint i = get_global_id(0);
    if (i >= w * h) return;
    __global const float* p = x + (i & ~7u);
    __constant const float* m = C + (i & 7u) * 8;
    float s = 0.0f;
    for (uint k = 0; k < 8; ++k) s += m[k] * p[k];
    t[i] = s;
}

__kernel void pixel_columns(__global const float* restrict t, __global float* restrict f, uint w, uint h) {
    const uint i = get_global_id(0);
    if (i >= w * h) return;
    const uint u = (i / w) & 7u;
    __global const float* p = t + (i - u * w);
    __constant const float* m = C + u * 8;
    float s = 0.0f;
    for (uint k = 0; k < 8; ++k) s += m[k] * p[k * w];
    f[i] = s;
}

// A work-item per block row (float8 in and out), then one per 8x8 tile's column pass.
__kernel void row8(__global const float* restrict x, __global float* restrict t, uint w, uint h) {
    const uint r = get_global_id(0);
    if (r >= w / 8 * h) return;
    vstore8(rows_dct(vload8(r, x)), r, t);
}

__kernel void column8(__global const float* restrict t, __global float* restrict f, uint w, uint h) {
    const uint q = get_global_id(0), blocks_x = w / 8;
    if (q >= blocks_x * (h / 8)) return;
    const uint b = q / blocks_x, c = q - b * blocks_x;
    __global const float* p = t + (ulong)(8 * b) * w + 8 * c;
    float8 r[8];
    for (uint x = 0; x < 8; ++x) r[x] = vload8(0, p + x * w);
    __global float* o = f + (ulong)(8 * b) * w + 8 * c;
    for (uint u = 0; u < 8; ++u) vstore8(column_dct(r, u), 0, o + u * w);
}

// Both passes of one 8x8 block in registers.
inline void block_dct(__global const float* restrict x, __global float* restrict f, uint w, uint q) {
    const uint blocks_x = w / 8, b = q / blocks_x, c = q - b * blocks_x;
    const ulong origin = (ulong)(8 * b) * w + 8 * c;
    float8 t[8];
    for (uint r = 0; r < 8; ++r) t[r] = rows_dct(vload8(0, x + origin + r * w));
    for (uint u = 0; u < 8; ++u) vstore8(column_dct(t, u), 0, f + origin + u * w);
}

// A work-item per block.
__kernel void block(__global const float* restrict x, __global float* restrict f, uint w, uint h) {
    const uint q = get_global_id(0);
    if (q < w / 8 * (h / 8)) block_dct(x, f, w, q);
}

// A contiguous band of blocks per work-item.
__kernel void block_band(__global const float* restrict x, __global float* restrict f, uint w, uint h) {
    const uint blocks = w / 8 * (h / 8), band = (blocks + get_global_size(0) - 1) / get_global_size(0);
    const uint q0 = min((uint)get_global_id(0) * band, blocks), q1 = min(q0 + band, blocks);
    for (uint q = q0; q < q1; ++q) block_dct(x, f, w, q);
}

// A work-group of 64 per block, a pixel each, the passes through local memory.
__kernel __attribute__((reqd_work_group_size(64, 1, 1)))
void group64(__global const float* restrict x, __global float* restrict f, uint w, uint h) {
    __local float tile[64], rowwise[64];
    const uint q = get_group_id(0), lane = get_local_id(0), r = lane / 8, col = lane % 8;
    const uint blocks_x = w / 8, b = q / blocks_x, c = q - b * blocks_x;
    const ulong at = (ulong)(8 * b + r) * w + 8 * c + col;
    tile[lane] = x[at];
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (uint k = 0; k < 8; ++k) s += C[col * 8 + k] * tile[r * 8 + k];
    rowwise[lane] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    s = 0.0f;
    for (uint k = 0; k < 8; ++k) s += C[r * 8 + k] * rowwise[k * 8 + col];
    f[at] = s;
}

// A work-group of 8 per block: a block row each (float8), then an output row each.
__kernel __attribute__((reqd_work_group_size(8, 1, 1)))
void group8(__global const float* restrict x, __global float* restrict f, uint w, uint h) {
    __local float8 rowwise[8];
    const uint q = get_group_id(0), r = get_local_id(0);
    const uint blocks_x = w / 8, b = q / blocks_x, c = q - b * blocks_x;
    const ulong origin = (ulong)(8 * b) * w + 8 * c;
    rowwise[r] = rows_dct(vload8(0, x + origin + r * w));
    barrier(CLK_LOCAL_MEM_FENCE);
    float8 t[8];
    for (uint k = 0; k < 8; ++k) t[k] = rowwise[k];
    vstore8(column_dct(t, r), 0, f + origin + r * w);
}
)";
    return s;
}

// A shape: one or two kernels run in order (the two-pass shapes go through a buffer t).
struct dct_launch {
    std::vector<bench::ocl::named_launch> steps;
    std::string name;
};

void run_dct(const dct_launch& l) {
    for (const bench::ocl::named_launch& s : l.steps) bench::ocl::launch(s.kernel, s.global, s.local);
    bench::ocl::env().queue.finish();
}

struct opencl_instance {
    std::string error;
    cl::Buffer x, t, f;
    std::vector<dct_launch> launches;
    bench::tuning tuned;
    const dct_launch& best() const { return launches[tuned.best]; }
    void once() { run_dct(best()); }
};

std::vector<dct_launch> dct_launches(opencl_instance& p, std::size_t n) {
    using namespace bench::ocl;
    const std::string source = dct_source();
    auto bound = [&](const char* name, const cl::Buffer& in, const cl::Buffer& out) {
        cl::Kernel k = kernel(source, name);
        k.setArg(0, in);
        k.setArg(1, out);
        k.setArg(2, cl_uint(n));
        k.setArg(3, cl_uint(n));
        return k;
    };
    const std::size_t pixels = n * n, blocks = pixels / 64;
    std::vector<dct_launch> out;
    // Two-pass shapes: both kernels at one group size.
    const cl::Kernel rows = bound("pixel_rows", p.x, p.t), columns = bound("pixel_columns", p.t, p.f);
    for (std::size_t g : candidate_groups(columns))
        if (g <= pixels)
            out.push_back(
                {{items_in_groups(rows, "pixel_rows", pixels, g), items_in_groups(columns, "pixel_columns", pixels, g)},
                 "pixel:" + group_name(g)});
    const cl::Kernel row8 = bound("row8", p.x, p.t), column8 = bound("column8", p.t, p.f);
    for (std::size_t g : candidate_groups(column8))
        if (g <= blocks)
            out.push_back(
                {{items_in_groups(row8, "row8", pixels / 8, g), items_in_groups(column8, "column8", blocks, g)},
                 "row8_column8:" + group_name(g)});
    // One-pass shapes.
    std::vector<named_launch> single;
    add_group_sizes(single, bound("block", p.x, p.f), "block", blocks);
    add_chunked(single, bound("block_band", p.x, p.f), "block_band", blocks);
    single.push_back({bound("group64", p.x, p.f), cl::NDRange(pixels), cl::NDRange(64), "group64"});
    single.push_back({bound("group8", p.x, p.f), cl::NDRange(blocks * 8), cl::NDRange(8), "group8"});
    for (named_launch& l : single) out.push_back({{l}, l.name});
    return out;
}

opencl_instance& handwritten_prepared(std::size_t n) {
    return bench::prepared<opencl_instance>(key("handwritten", n), [&] {
        auto p = std::make_unique<opencl_instance>();
        const std::string what = key("handwritten", n);
        try {
            p->x = bench::ocl::upload(host_image(n * n), n * n);
            p->t = bench::ocl::allocate(n * n);
            p->f = bench::ocl::allocate(n * n);
            p->launches = dct_launches(*p, n);
            auto checked = [&](const dct_launch& l) {
                bench::ocl::fill_nan(p->f, n * n);
                run_dct(l);
                const std::string e = check(bench::ocl::download(p->f, n * n), n);
                if (!e.empty()) throw std::runtime_error(l.name + ": " + e);
            };
            // Tuned once per size in a process (an interleaved benchmark makes its instance anew
            // and keeps the first tuning, as bench::ocl::check_and_tune does).
            static std::map<std::string, bench::tuning> tuned_before;
            if (auto it = tuned_before.find(what); it != tuned_before.end()) {
                p->tuned = it->second;
                checked(p->best());
            } else {
                std::vector<std::string> names;
                for (const dct_launch& l : p->launches) {
                    checked(l);
                    names.push_back(l.name);
                }
                opencl_instance* raw = p.get();
                p->tuned = bench::tune_configs(
                    what, names, [raw](std::size_t k) { run_dct(raw->launches[k]); }, 3, "shape");
                tuned_before[what] = p->tuned;
            }
        } catch (const std::exception& e) {
            p->error = what + ": " + e.what();
        }
        return p;
    });
}

void run_handwritten(benchmark::State& state) {
    const std::size_t n = std::size_t(state.range(0));
    opencl_instance& p = handwritten_prepared(n);
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    state.SetLabel("-> " + p.best().name);
    bench::time_loop(state, [&p] { p.once(); });
    set_counters(state, n);
}

// Loom (the example's formulation, loom_blocks) and the tuned kernel, run by run
// (bench::time_interleaved). `contract`: Loom with fp_contract on, the rounding the handwritten
// kernels get.
void run_interleaved(benchmark::State& state, bool contract) {
    const bench::own_instances fresh; // both made anew for the pair
    const std::size_t n = std::size_t(state.range(0));
    opencl_instance& hand = handwritten_prepared(n);
    if (!bench::time_interleaved_instances(state, loom_prepared(contract ? "loom_blocks_contract" : "loom_blocks", n),
                                           hand))
        return;
    state.SetLabel("-> " + hand.best().name);
    set_counters(state, n);
}

void register_all() {
    // n x n images, n = 512 .. 4096, while n^2 <= 2^max_log2.
    std::vector<std::int64_t> n;
    for (std::int64_t side : {512, 1024, 2048, 4096})
        if (double(side) * double(side) <= std::ldexp(1.0, bench::max_log2())) n.push_back(side);
    if (n.empty()) return;
    for (const char* variant : {"loom_blocks", "loom_blocks_contract", "loom_blocks_traced", "loom_expr",
                                "loom_contract", "loom_gathers", "loom_rowmagic"}) {
        const std::string v = variant;
        bench::add(
            "dct8x8/" + v, [v](benchmark::State& s) { run_loom(s, v); }, n);
    }
    bench::add("dct8x8/handwritten", run_handwritten, n);
    bench::add(
        "dct8x8/interleaved", [](benchmark::State& s) { run_interleaved(s, false); }, n, 0.01);
    bench::add(
        "dct8x8/interleaved_contract", [](benchmark::State& s) { run_interleaved(s, true); }, n, 0.01);
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
