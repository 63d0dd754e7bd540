// Loom on its CUDA backend against handwritten CUDA kernels (kernels.cu) on one GPU: the
// element-wise maps, dot and sum, the inclusive scan, the 2-D stencil, the sort of floats and
// the sparse product of the 2-D Poisson matrix (n rows), the 8x8 block DCT of a square image and
// copy_if (the values above 1 of x in [0.5, 1.5), about half) and the inclusive scan by key (keys
// i / 1000), with cudaMemcpyAsync device to device as the bandwidth reference. Variants: loom_expr (Loom's
// one expression, loom::sort(x, z), z = A * x with A in its automatic layout, or
// loom::map_blocks<8, 8> with examples/dct8x8.cpp's lambda), handwritten (the kernel at its tuned
// geometry; CUB for the scan, the sort, copy_if (DeviceSelect::If, its count read back as
// loom::copy_if returns it) and the scan by key (DeviceScan::InclusiveSumByKey); for the product the fastest of CSR a
// row per thread, vector CSR of 2-32 threads a row and sliced ELL of 32-row slices; for the DCT a thread a block, its
// rows read as floats or float4s), interleaved (the two run by run, bench::time_interleaved), and copy/copybuffer (the
// device-to-device copy). Host time after a synchronize, as in the OpenCL suite; every variant is checked against a
// host reference before it is timed. Built where nvcc and Loom's CUDA backend are; run by `bench/run.sh --cuda` where a
// GPU is (bench/README.md). Without one it says why and stops.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dct8x8_work.hpp"
#include "harness.hpp"
#include "kernels.hpp"

namespace {

namespace cb = cuda_baseline;

enum class kind { map, reduce, scan, stencil, sort, spmv, dct, compact, scan_by_key };

struct workload {
    std::string name;
    kind k;
    cb::map_op op = cb::map_op::copy; // kind::map
    bool dot = false;                 // kind::reduce: sum(x * y) rather than sum(x)
    double bytes_per_element = 8;     // the least a run must move
};

const std::vector<workload>& workloads() {
    static const std::vector<workload> all = {
        {"copy", kind::map, cb::map_op::copy, false, 8},
        {"scale", kind::map, cb::map_op::scale, false, 8},
        {"saxpy", kind::map, cb::map_op::saxpy, false, 12},
        {"triad", kind::map, cb::map_op::triad, false, 12},
        {"chain8", kind::map, cb::map_op::chain8, false, 8},
        {"issue4_chain4", kind::map, cb::map_op::issue4_chain4, false, 12},
        {"dot", kind::reduce, cb::map_op::copy, true, 8},
        {"sum", kind::reduce, cb::map_op::copy, false, 4},
        {"inclusive_scan", kind::scan, cb::map_op::copy, false, 8},
        {"stencil2d_5pt", kind::stencil, cb::map_op::copy, false, 8},
        {"sort_float", kind::sort, cb::map_op::copy, false, 8},
        // A Poisson row: 5 entries of 8 bytes, its row_ptr, x and y.
        {"spmv_poisson", kind::spmv, cb::map_op::copy, false, 52},
        // The 8x8 block DCT of a square image (bench/dct8x8_work.hpp): read once, written once.
        {"dct8x8", kind::dct, cb::map_op::copy, false, 8},
        // Reads x, writes about half of it.
        {"copy_if", kind::compact, cb::map_op::copy, false, 6},
        // Reads the keys and x, writes z.
        {"scan_by_key", kind::scan_by_key, cb::map_op::copy, false, 12},
    };
    return all;
}

// The scalars of the OpenCL suite's workloads of the same names (bench_elementwise.cpp,
// bench_stencil.cpp).
const cb::map_scalars& scalars() {
    static const cb::map_scalars s{2.5f, {0.75f, 1.25f, 0.5f, 1.5f, 0.875f, 1.125f, 0.625f, 1.375f}};
    return s;
}
constexpr float stencil_c = 0.2f;
constexpr float compact_threshold = 1.0f; // copy_if keeps the values of x above it
constexpr unsigned segment_length = 1000; // scan_by_key's keys: i / segment_length

std::vector<unsigned> segment_keys(std::size_t n) {
    std::vector<unsigned> keys(n);
    for (std::size_t i = 0; i < n; ++i) keys[i] = unsigned(i / segment_length);
    return keys;
}

const float* host_x(std::size_t n) { return bench::random_floats(1, 0.5f, 1.5f, n); }
const float* host_y(std::size_t n) { return bench::random_floats(2, 0.5f, 1.5f, n); }
std::size_t width(std::size_t n) { return std::size_t(std::llround(std::sqrt(double(n)))); } // sizes are 4^k

// The input a workload reads: the DCT's image, or the random x of the others.
const float* input_of(const workload& w, std::size_t n) {
    return w.k == kind::dct ? bench::dct8x8::host_image(n) : host_x(n);
}
// The DCT's coefficients as the kernels take them, c[v * 8 + k].
const float* dct_coefficients() {
    static const std::array<float, 64> c = [] {
        std::array<float, 64> f{};
        for (std::size_t k = 0; k < 64; ++k) f[k] = float(bench::dct8x8::dct_matrix()[k]);
        return f;
    }();
    return c.data();
}

std::string key(const workload& w, const std::string& variant, std::size_t n) {
    return w.name + "/" + variant + "/" + std::to_string(n);
}

// ---- host references -----------------------------------------------------------------------

float map_reference(cb::map_op op, float x, float y) {
    const cb::map_scalars& s = scalars();
    switch (op) {
    case cb::map_op::copy: return x;
    case cb::map_op::scale: return s.a * x;
    case cb::map_op::saxpy: return s.a * x + y;
    case cb::map_op::triad: return x + s.a * y;
    case cb::map_op::chain8: {
        float t = x;
        for (float c : s.c) t = t * c + x;
        return t;
    }
    case cb::map_op::issue4_chain4: {
        const float t = s.a * x + y;
        return t * t - x;
    }
    }
    return 0;
}

// The 5-point Laplacian on a width(n) x width(n) grid, in CSR, and the same in sliced ELL of 32-row
// slices.
struct poisson_matrix {
    std::size_t rows = 0;
    std::vector<unsigned> row_ptr{0}, col, slice_ptr{0}, length, sell_col;
    std::vector<float> val, sell_val;
};

const poisson_matrix& poisson(std::size_t n) {
    static poisson_matrix a;
    const std::size_t m = width(n);
    if (a.rows == m * m) return a;
    a = poisson_matrix();
    a.rows = m * m;
    for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < m; ++j) {
            const std::size_t r = i * m + j;
            auto add = [&](std::size_t c, float v) {
                a.col.push_back(unsigned(c));
                a.val.push_back(v);
            };
            if (i > 0) add(r - m, -1.0f);
            if (j > 0) add(r - 1, -1.0f);
            add(r, 4.0f);
            if (j + 1 < m) add(r + 1, -1.0f);
            if (i + 1 < m) add(r + m, -1.0f);
            a.row_ptr.push_back(unsigned(a.col.size()));
        }
    a.length.resize(a.rows);
    for (std::size_t s = 0; s * 32 < a.rows; ++s) {
        unsigned longest = 0;
        for (std::size_t r = s * 32; r < std::min(a.rows, s * 32 + 32); ++r) {
            a.length[r] = a.row_ptr[r + 1] - a.row_ptr[r];
            longest = std::max(longest, a.length[r]);
        }
        a.slice_ptr.push_back(a.slice_ptr.back() + longest * 32);
        a.sell_col.resize(a.slice_ptr.back(), 0);
        a.sell_val.resize(a.slice_ptr.back(), 0.0f);
        for (std::size_t r = s * 32; r < std::min(a.rows, s * 32 + 32); ++r)
            for (unsigned k = 0; k < a.length[r]; ++k) {
                a.sell_col[a.slice_ptr[s] + k * 32 + r % 32] = a.col[a.row_ptr[r] + k];
                a.sell_val[a.slice_ptr[s] + k * 32 + r % 32] = a.val[a.row_ptr[r] + k];
            }
    }
    return a;
}

// The expected output of a map, scan, stencil, sort or product over the host inputs of size n.
std::vector<float> reference(const workload& w, std::size_t n) {
    const float *x = host_x(n), *y = host_y(n);
    if (w.k == kind::dct) { // of the image bench_dct8x8 transforms
        const std::vector<double>& f = bench::dct8x8::reference(width(n));
        return std::vector<float>(f.begin(), f.end());
    }
    if (w.k == kind::stencil) return bench::stencil2d_reference(x, width(n), n / width(n), stencil_c);
    if (w.k == kind::compact) { // the kept values in order (what follows them is not compared)
        std::vector<float> kept;
        std::copy_if(x, x + n, std::back_inserter(kept), [](float v) { return v > compact_threshold; });
        return kept;
    }
    if (w.k == kind::sort) {
        std::vector<float> sorted(x, x + n);
        std::sort(sorted.begin(), sorted.end());
        return sorted;
    }
    if (w.k == kind::spmv) {
        const poisson_matrix& a = poisson(n);
        std::vector<float> out(a.rows);
        for (std::size_t r = 0; r < a.rows; ++r) {
            double s = 0;
            for (unsigned k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) s += double(a.val[k]) * x[a.col[k]];
            out[r] = float(s);
        }
        return out;
    }
    std::vector<float> out(n);
    if (w.k == kind::map) {
        for (std::size_t i = 0; i < n; ++i) out[i] = map_reference(w.op, x[i], y[i]);
    } else if (w.k == kind::scan_by_key) { // restarting at every segment
        double running = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (i % segment_length == 0) running = 0;
            out[i] = float(running += x[i]);
        }
    } else { // the inclusive scan
        double running = 0;
        for (std::size_t i = 0; i < n; ++i) out[i] = float(running += x[i]);
    }
    return out;
}

// Empty when `got` is the workload's output over the host inputs. Contraction (nvcc's
// default) and the scan's order of additions round differently from the host; a sort is exact.
std::string check_output(const workload& w, std::size_t n, const std::vector<float>& got) {
    if (w.k == kind::dct) return bench::dct8x8::check(got, width(n)); // within 1e-5 of the pixel range
    const bool scan = w.k == kind::scan || w.k == kind::scan_by_key;
    const bench::tolerance tol{scan ? 2e-3 : w.k == kind::sort ? 0.0 : 1e-5, scan || w.k == kind::sort ? 0.0 : 1e-6};
    const std::vector<float> expected = reference(w, n); // a compaction's: its kept prefix, exact
    return bench::compare(got.data(), expected.data(), expected.size(),
                          w.k == kind::compact ? bench::tolerance{0, 0} : tol);
}

std::string check_value(const workload& w, std::size_t n, float got) {
    const float *x = host_x(n), *y = host_y(n);
    double exact = 0, magnitude = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double v = w.dot ? double(x[i]) * y[i] : double(x[i]);
        exact += v;
        magnitude += std::fabs(v);
    }
    if (std::fabs(double(got) - exact) <= 1e-4 * magnitude + 1e-6) return "";
    return "result " + std::to_string(got) + ", the host says " + std::to_string(exact);
}

// ---- Loom ----------------------------------------------------------------------------------

loom::context& cuda_context() {
    static loom::context ctx(loom::context_options{"cuda", "", 1, 0});
    return ctx;
}

struct loom_instance {
    std::string error;
    std::unique_ptr<loom::vector<float>> x, y, z;
    std::unique_ptr<loom::sparse_matrix<float>> a;
    std::unique_ptr<loom::vector<std::uint32_t>> keys;                     // the scan by key's
    std::unique_ptr<loom::matrix<float>> xm, zm;                           // the DCT's image and output
    std::optional<loom::block_map<8, 8, bench::dct8x8::dct_block>> blocks; // traced at its first call
    float value = 0; // a reduction's result, kept so that the call is not optimised away
    std::function<void()> once;
};

void loom_map(cb::map_op op, loom::vector<float>& x, loom::vector<float>& y, loom::vector<float>& z) {
    const float a = scalars().a;
    const float* c = scalars().c;
    switch (op) {
    case cb::map_op::copy: z = x; break;
    case cb::map_op::scale: z = a * x; break;
    case cb::map_op::saxpy: y = a * x + y; break;
    case cb::map_op::triad: z = x + a * y; break;
    case cb::map_op::chain8:
        z = (((((((x * c[0] + x) * c[1] + x) * c[2] + x) * c[3] + x) * c[4] + x) * c[5] + x) * c[6] + x) * c[7] + x;
        break;
    case cb::map_op::issue4_chain4: z = (a * x + y) * (a * x + y) - x; break;
    }
}

loom_instance& loom_prepared(const workload& w, std::size_t n) {
    return bench::prepared<loom_instance>(key(w, "loom_expr", n), [&] {
        auto p = std::make_unique<loom_instance>();
        try {
            loom::context& ctx = cuda_context();
            p->x = std::make_unique<loom::vector<float>>(ctx, input_of(w, n), input_of(w, n) + n);
            p->y = std::make_unique<loom::vector<float>>(ctx, host_y(n), host_y(n) + n);
            p->z = std::make_unique<loom::vector<float>>(ctx, n);
            loom::copy(bench::poison(n), *p->z);
            loom::vector<float>&x = *p->x, &y = *p->y, &z = *p->z;
            const std::size_t nx = width(n);
            switch (w.k) {
            case kind::map: p->once = [&x, &y, &z, op = w.op] { loom_map(op, x, y, z); }; break;
            case kind::reduce: {
                loom_instance* raw = p.get();
                if (w.dot)
                    p->once = [&x, &y, raw] { raw->value = loom::sum(x * y); };
                else
                    p->once = [&x, raw] { raw->value = loom::sum(x); };
                p->once();
                p->error = check_value(w, n, p->value);
                break;
            }
            case kind::scan: p->once = [&x, &z] { loom::inclusive_scan(x, z); }; break;
            case kind::sort: p->once = [&x, &z] { loom::sort(x, z); }; break;
            case kind::compact: p->once = [&x, &z] { loom::copy_if(x, x > compact_threshold, z); }; break;
            case kind::scan_by_key: {
                p->keys = std::make_unique<loom::vector<std::uint32_t>>(ctx, segment_keys(n));
                p->once = [&x, &z, &keys = *p->keys] { loom::inclusive_scan_by_key(keys, x, z); };
                break;
            }
            case kind::spmv: {
                const poisson_matrix& m = poisson(n);
                p->a = std::make_unique<loom::sparse_matrix<float>>(ctx, m.rows, m.rows, m.row_ptr, m.col, m.val);
                loom::sparse_matrix<float>& a = *p->a; // m.rows == n: the sizes are powers of 4
                p->once = [&a, &x, &z] { z = a * x; };
                break;
            }
            case kind::dct: {
                p->xm = std::make_unique<loom::matrix<float>>(loom::reshape(x, nx, nx));
                p->zm = std::make_unique<loom::matrix<float>>(loom::reshape(z, nx, nx));
                p->blocks.emplace(bench::dct8x8::dct_block{bench::dct8x8::dct_matrix()});
                loom_instance* raw = p.get();
                p->once = [raw] { (*raw->blocks)(*raw->xm, *raw->zm); };
                break;
            }
            case kind::stencil:
                p->once = [&x, &z, nx, n] {
                    auto g = loom::grid(x, nx, n / nx);
                    z = x + stencil_c * (loom::at(g, -1, 0) + loom::at(g, 1, 0) + loom::at(g, 0, -1) +
                                         loom::at(g, 0, 1) - 4.0f * x);
                };
                break;
            }
            if (w.k != kind::reduce) {
                p->once();
                p->error = check_output(w, n, (w.op == cb::map_op::saxpy && w.k == kind::map ? y : z).to_host());
            }
            auto run = p->once;
            p->once = [run, &ctx] {
                run();
                ctx.finish();
            };
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key(w, "loom_expr", n) + ": " + p->error;
        return p;
    });
}

// ---- handwritten ---------------------------------------------------------------------------

struct cuda_instance {
    std::string error;
    std::unique_ptr<cb::buffer> x, y, z, partials, result, val, sell_val;
    std::unique_ptr<cb::index_buffer> row_ptr, col, slice_ptr, length, sell_col;
    std::unique_ptr<cb::inclusive_scan> scan;
    std::unique_ptr<cb::radix_sort> sort;
    std::unique_ptr<cb::select_if> select;
    std::unique_ptr<cb::scan_by_key> by_key;
    std::unique_ptr<cb::index_buffer> keys; // the scan by key's
    std::string label;                      // the tuned geometry
    std::function<void()> once;
};

// The geometries tuned for a workload at size n, each a run of the kernel (not synchronized).
struct config {
    std::string name;
    std::function<void()> run;
};

std::vector<config> configs(const workload& w, std::size_t n, cuda_instance& p) {
    std::vector<config> out;
    const unsigned count = unsigned(n);
    float *x = p.x->data(), *y = p.y->data(), *z = p.z->data();
    switch (w.k) {
    case kind::map:
        for (bool float4s : {false, true}) // the scalar and the vector-load shape, each over block sizes
            for (int block : {128, 256, 512, 1024})
                out.push_back({(float4s ? "float4:" : "") + std::to_string(block),
                               [=, op = w.op] { cb::map(op, x, y, z, scalars(), count, block, float4s); }});
        break;
    case kind::reduce: {
        const int sms = cb::multiprocessors();
        for (int block : {256, 512, 1024})
            for (int per_sm : {2, 4, 8}) {
                // No more blocks than the float4 loads need.
                const long long needed = (n / 4 + block - 1) / block;
                const int blocks = int(std::max<long long>(1, std::min<long long>(sms * per_sm, needed)));
                float *partials = p.partials->data(), *result = p.result->data();
                const float* second = w.dot ? y : nullptr;
                out.push_back({std::to_string(blocks) + "x" + std::to_string(block),
                               [=] { cb::reduce(x, second, count, blocks, block, partials, result); }});
            }
        break;
    }
    case kind::scan: out.push_back({"cub", [x, z, s = p.scan.get()] { s->run(x, z); }}); break;
    case kind::sort: out.push_back({"cub", [x, z, s = p.sort.get()] { s->run(x, z); }}); break;
    case kind::compact: out.push_back({"cub", [x, z, s = p.select.get()] { s->run(x, z); }}); break;
    case kind::scan_by_key: {
        const unsigned* keys = p.keys->data();
        out.push_back({"cub", [keys, x, z, s = p.by_key.get()] { s->run(keys, x, z); }});
        break;
    }
    case kind::spmv: {
        const unsigned rows = unsigned(poisson(n).rows);
        const unsigned *row_ptr = p.row_ptr->data(), *col = p.col->data(), *slice_ptr = p.slice_ptr->data(),
                       *length = p.length->data(), *sell_col = p.sell_col->data();
        const float *val = p.val->data(), *sell_val = p.sell_val->data();
        for (int block : {128, 256, 512})
            out.push_back(
                {"csr:" + std::to_string(block), [=] { cb::spmv_csr_scalar(row_ptr, col, val, x, z, rows, block); }});
        for (int lanes : {2, 4, 8, 32})
            for (int block : {128, 256})
                out.push_back({"csr_vector" + std::to_string(lanes) + ":" + std::to_string(block),
                               [=] { cb::spmv_csr_vector(row_ptr, col, val, x, z, rows, lanes, block); }});
        for (int block : {128, 256, 512})
            out.push_back({"sell32:" + std::to_string(block),
                           [=] { cb::spmv_sell32(slice_ptr, length, sell_col, sell_val, x, z, rows, block); }});
        break;
    }
    case kind::dct: { // a thread a block, the rows read as floats or as float4s, over block sizes
        const unsigned side = unsigned(width(n));
        const float* c = dct_coefficients();
        for (bool float4s : {false, true})
            for (int block : {64, 128, 256})
                out.push_back({(float4s ? "block_float4:" : "block:") + std::to_string(block),
                               [=] { cb::dct8x8(x, z, side, side, c, block, float4s); }});
        for (int block : {64, 128, 256}) // eight threads a block, through shared memory
            out.push_back({"rows:" + std::to_string(block), [=] { cb::dct8x8_rows(x, z, side, side, c, block); }});
        break;
    }
    case kind::stencil: {
        const unsigned nx = unsigned(width(n)), ny = unsigned(n / width(n));
        for (auto [bx, by] : {std::pair<int, int>{32, 8}, {32, 4}, {64, 4}, {128, 2}, {16, 16}, {256, 1}})
            out.push_back({std::to_string(bx) + "x" + std::to_string(by),
                           [=] { cb::stencil2d(x, z, stencil_c, nx, ny, bx, by); }});
        // Tiles in shared memory, and register blocking along y (the issue's two known shapes).
        for (auto [bx, by] : {std::pair<int, int>{32, 8}, {64, 4}, {128, 2}, {32, 16}})
            out.push_back({"tile:" + std::to_string(bx) + "x" + std::to_string(by),
                           [=] { cb::stencil2d_tiled(x, z, stencil_c, nx, ny, bx, by); }});
        for (auto [bx, rows] : {std::pair<int, int>{128, 8}, {128, 32}, {256, 8}, {256, 32}, {64, 16}})
            out.push_back({"columns:" + std::to_string(bx) + "x" + std::to_string(rows),
                           [=] { cb::stencil2d_columns(x, z, stencil_c, nx, ny, bx, rows); }});
        break;
    }
    }
    return out;
}

cuda_instance& handwritten_prepared(const workload& w, std::size_t n) {
    return bench::prepared<cuda_instance>(key(w, "handwritten", n), [&] {
        auto p = std::make_unique<cuda_instance>();
        try {
            p->x = std::make_unique<cb::buffer>(n);
            p->y = std::make_unique<cb::buffer>(n);
            p->z = std::make_unique<cb::buffer>(n);
            p->partials = std::make_unique<cb::buffer>(8 * std::size_t(cb::multiprocessors()));
            p->result = std::make_unique<cb::buffer>(1);
            if (w.k == kind::scan) p->scan = std::make_unique<cb::inclusive_scan>(unsigned(n));
            if (w.k == kind::sort) p->sort = std::make_unique<cb::radix_sort>(unsigned(n));
            if (w.k == kind::compact) p->select = std::make_unique<cb::select_if>(unsigned(n), compact_threshold);
            if (w.k == kind::scan_by_key) {
                p->by_key = std::make_unique<cb::scan_by_key>(unsigned(n));
                p->keys = std::make_unique<cb::index_buffer>(segment_keys(n));
            }
            if (w.k == kind::spmv) {
                const poisson_matrix& m = poisson(n);
                p->row_ptr = std::make_unique<cb::index_buffer>(m.row_ptr);
                p->col = std::make_unique<cb::index_buffer>(m.col);
                p->slice_ptr = std::make_unique<cb::index_buffer>(m.slice_ptr);
                p->length = std::make_unique<cb::index_buffer>(m.length);
                p->sell_col = std::make_unique<cb::index_buffer>(m.sell_col);
                p->val = std::make_unique<cb::buffer>(m.val.size());
                p->val->upload(m.val.data());
                p->sell_val = std::make_unique<cb::buffer>(m.sell_val.size());
                p->sell_val->upload(m.sell_val.data());
            }
            p->x->upload(input_of(w, n));
            const std::vector<config> all = configs(w, n, *p);
            std::vector<std::string> names;
            for (const config& c : all) { // every geometry is checked, on fresh inputs and a poisoned output
                names.push_back(c.name);
                p->y->upload(host_y(n));
                p->z->fill_nan();
                p->result->fill_nan();
                c.run();
                cb::synchronize();
                const std::string e =
                    w.k == kind::reduce
                        ? check_value(w, n, p->result->download()[0])
                        : check_output(w, n, (w.k == kind::map && w.op == cb::map_op::saxpy ? p->y : p->z)->download());
                if (!e.empty()) throw std::runtime_error(c.name + ": " + e);
            }
            const bench::tuning t = bench::tune_configs(key(w, "handwritten", n), names, [&all](std::size_t k) {
                all[k].run();
                cb::synchronize();
            });
            p->label = "-> " + names[t.best];
            p->once = [run = all[t.best].run] {
                run();
                cb::synchronize();
            };
        } catch (const std::exception& e) {
            p->error = key(w, "handwritten", n) + ": " + e.what();
        }
        return p;
    });
}

// ---- the variants --------------------------------------------------------------------------

template <class Instance> bool usable(benchmark::State& state, const Instance& p) {
    if (p.error.empty()) return true;
    state.SkipWithError(p.error.c_str());
    return false;
}

void run_loom(benchmark::State& state, const workload& w) {
    const std::size_t n = std::size_t(state.range(0));
    loom_instance& p = loom_prepared(w, n);
    if (!usable(state, p)) return;
    bench::time_loop(state, p.once);
    bench::set_bytes(state, w.bytes_per_element * double(n));
}

void run_handwritten(benchmark::State& state, const workload& w) {
    const std::size_t n = std::size_t(state.range(0));
    cuda_instance& p = handwritten_prepared(w, n);
    if (!usable(state, p)) return;
    state.SetLabel(p.label);
    bench::time_loop(state, p.once);
    bench::set_bytes(state, w.bytes_per_element * double(n));
}

void run_interleaved(benchmark::State& state, const workload& w) {
    const bench::own_instances fresh; // both made anew for the pair
    const std::size_t n = std::size_t(state.range(0));
    cuda_instance& hand = handwritten_prepared(w, n);
    if (!bench::time_interleaved_instances(state, loom_prepared(w, n), hand)) return;
    state.SetLabel(hand.label);
    bench::set_bytes(state, w.bytes_per_element * double(n));
}

// The device's copy bandwidth: cudaMemcpyAsync device to device, the reference line.
void run_copybuffer(benchmark::State& state) {
    const std::size_t n = std::size_t(state.range(0));
    cb::buffer from(n), to(n);
    from.upload(host_x(n));
    to.fill_nan();
    cb::device_copy(from.data(), to.data(), n);
    cb::synchronize();
    const std::string e = bench::compare(to.download().data(), host_x(n), n, {});
    if (!e.empty()) {
        state.SkipWithError(("copy/copybuffer: " + e).c_str());
        return;
    }
    bench::time_loop(state, [&] {
        cb::device_copy(from.data(), to.data(), n);
        cb::synchronize();
    });
    bench::set_bytes(state, 8.0 * double(n));
}

bool describe_cuda() {
    const std::string problem = cb::device_problem();
    if (!problem.empty()) {
        std::fprintf(stderr, "bench_cuda: no GPU to measure on (%s)\n", problem.c_str());
        return false;
    }
    try {
        loom::context& ctx = cuda_context();
        if (ctx.device_name() != cb::device_name()) {
            std::fprintf(stderr, "bench_cuda: Loom runs on '%s' but the handwritten kernels on '%s'; set LOOM_DEVICE\n",
                         ctx.device_name().c_str(), cb::device_name().c_str());
            return false;
        }
        benchmark::AddCustomContext("device", ctx.device_name());
        benchmark::AddCustomContext("driver", ctx.driver_version());
        benchmark::AddCustomContext("cuda", cb::versions());
        benchmark::AddCustomContext("compute_units", std::to_string(cb::multiprocessors()));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_cuda: %s\n", e.what());
        return false;
    }
    return true;
}

void register_all() {
    const std::vector<std::int64_t> n = bench::sizes(10, 26);
    for (const workload& w : workloads()) {
        const workload* p = &w;
        bench::add(
            w.name + "/loom_expr", [p](benchmark::State& s) { run_loom(s, *p); }, n);
        bench::add(
            w.name + "/handwritten", [p](benchmark::State& s) { run_handwritten(s, *p); }, n);
        bench::add_interleaved(
            w.name, [p](benchmark::State& s) { run_interleaved(s, *p); }, 26);
        if (w.name == "copy")
            bench::add(
                "copy/copybuffer", [](benchmark::State& s) { run_copybuffer(s); }, n);
    }
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all, describe_cuda); }
