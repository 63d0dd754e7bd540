// The 3-D 7-point diffusion step v = u + c (W + E + S + N + B + F - 6 u) on an nx x ny x nz float
// grid (x fastest), every read clamped per dimension at the grid's faces (docs/skeleton-stencil.md):
// cubes of 64, 128 and 256 and a flat 512 x 512 x 16 slab (stencil3d_7pt/<variant>/<cells>). Loom
// as users write it (a loom::array3 and loom::grid, as examples/heat3d.cpp) against handwritten
// OpenCL kernels tuned over shapes and geometry: a work-item per cell (a 1-D range that splits its
// index, and a 3-D range), a work-item per x-row (an untested interior loop, the two edge cells
// apart), a band of rows per work-item, both with float8 / float16 loads along x for the interior,
// and z-marches (a work-item per (x, y) column walks z keeping the planes below, at and above in
// registers; a band of y per work-item walks z a whole x-row at a time). GB/s counts 8 bytes per
// cell (one read of u, one write of v: the least any kernel moves); cells/s beside it.
// Boost.Compute has no neighbour access in its lambda front end: not measured. Every variant and
// every shape is checked against a host reference first.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"
#include "opencl_baseline.hpp"
#include "shaped_launches.hpp"

namespace {

constexpr float c = 0.1f; // stable below 1/6

struct extents {
    std::size_t nx, ny, nz;
    std::size_t cells() const { return nx * ny * nz; }
};

// The grids, each named by its number of cells (the benchmark's argument; all distinct).
const std::vector<extents>& grids() {
    static const std::vector<extents> all = {{64, 64, 64}, {128, 128, 128}, {512, 512, 16}, {256, 256, 256}};
    return all;
}

extents grid_of(std::size_t cells) {
    for (const extents& e : grids())
        if (e.cells() == cells) return e;
    return {cells, 1, 1};
}

const float* host_u(std::size_t n) { return bench::random_floats(43, 0.5f, 1.5f, n); }

// In the order every variant writes it: u + c * (((((W + E) + S) + N) + B) + F - 6 u); S and N
// the rows before and after (y), B and F the planes before and after (z).
const std::vector<float>& reference(const extents& g) {
    static std::vector<float> out;
    static std::size_t made_for = 0;
    const std::size_t n = g.cells();
    if (made_for == n && out.size() == n) return out;
    const float* u = host_u(n);
    out.assign(n, 0.0f);
    const std::size_t nx = g.nx, ny = g.ny, nz = g.nz, plane = nx * ny;
    bench::parallel_for(n, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const std::size_t x = i % nx, y = (i / nx) % ny, z = i / plane;
            const float m = u[i];
            const float w = u[x > 0 ? i - 1 : i], e = u[x + 1 < nx ? i + 1 : i];
            const float s = u[y > 0 ? i - nx : i], nn = u[y + 1 < ny ? i + nx : i];
            const float b = u[z > 0 ? i - plane : i], f = u[z + 1 < nz ? i + plane : i];
            out[i] = m + c * (w + e + s + nn + b + f - 6.0f * m);
        }
    });
    made_for = n;
    return out;
}

// Contraction (in loom_contract) rounds a*b+c once: far inside this with values near 1.
const bench::tolerance stencil_tolerance{1e-5, 1e-6};

std::string check(const std::vector<float>& got, const extents& g) {
    return bench::compare(got.data(), reference(g).data(), g.cells(), stencil_tolerance);
}

std::string key(const std::string& variant, std::size_t cells) {
    return "stencil3d_7pt/" + variant + "/" + std::to_string(cells);
}

void set_counters(benchmark::State& state, const extents& g) {
    bench::set_bytes(state, 8.0 * double(g.cells())); // u read once, v written once
    state.counters["cells/s"] = benchmark::Counter(double(g.cells()), benchmark::Counter::kIsIterationInvariantRate);
    state.counters["nx"] = double(g.nx);
    state.counters["ny"] = double(g.ny);
    state.counters["nz"] = double(g.nz);
}

// ---- Loom ----------------------------------------------------------------------------------

struct loom_instance {
    std::string error;
    loom::context* ctx = nullptr;
    std::unique_ptr<loom::array3<float>> u, v;
    void once() {
        const auto g = loom::grid(*u); // at(g, di, dj, dk): di along x, dj along y, dk along z
        *v = *u + c * (loom::at(g, -1, 0, 0) + loom::at(g, 1, 0, 0) + loom::at(g, 0, -1, 0) + loom::at(g, 0, 1, 0) +
                       loom::at(g, 0, 0, -1) + loom::at(g, 0, 0, 1) - 6.0f * *u);
        ctx->finish();
    }
};

loom_instance& loom_prepared(bool contract, std::size_t cells) {
    const std::string variant = contract ? "loom_contract" : "loom_expr";
    return bench::prepared<loom_instance>(key(variant, cells), [&] {
        auto p = std::make_unique<loom_instance>();
        const extents g = grid_of(cells);
        try {
            p->ctx = &bench::loom_context(true, contract);
            p->u = std::make_unique<loom::array3<float>>(*p->ctx, g.nz, g.ny, g.nx, host_u(cells));
            p->v = std::make_unique<loom::array3<float>>(*p->ctx, g.nz, g.ny, g.nx);
            loom::copy(bench::poison(cells), *p->v);
            p->once();
            p->error = check(p->v->to_host(), g);
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key(variant, cells) + ": " + p->error;
        return p;
    });
}

void run_loom(benchmark::State& state, bool contract) {
    const std::size_t cells = std::size_t(state.range(0));
    loom_instance& p = loom_prepared(contract, cells);
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    bench::time_loop(state, [&p] { p.once(); });
    set_counters(state, grid_of(cells));
}

// ---- handwritten ---------------------------------------------------------------------------

// Contraction off, as Loom's loom_expr: results agree to the rounding of one order of operations.
// Every kernel takes (u, v, c, nx, ny, nz). The row forms are written once with $W for the
// width of their interior's loads.
const char* common_source = R"(#pragma OPENCL FP_CONTRACT OFF
#define STEP(m, w, e, s, n, b, f) ((m) + c * ((w) + (e) + (s) + (n) + (b) + (f) - 6.0f * (m)))

// One cell at (x, y, z), every read clamped.
inline float clamped_cell(__global const float* restrict u, float c, uint nx, uint ny, uint nz, uint x, uint y,
                          uint z) {
    const uint plane = nx * ny, i = (z * ny + y) * nx + x;
    return STEP(u[i], u[x > 0 ? i - 1 : i], u[x + 1 < nx ? i + 1 : i], u[y > 0 ? i - nx : i],
                u[y + 1 < ny ? i + nx : i], u[z > 0 ? i - plane : i], u[z + 1 < nz ? i + plane : i]);
}

// A work-item per cell, a 1-D range: x, y and z from the index by % and /.
__kernel void cell1d(__global const float* restrict u, __global float* restrict v, float c, uint nx, uint ny,
                     uint nz) {
    const uint i = get_global_id(0);
    if (i >= nx * ny * nz) return;
    const uint x = i % nx, t = i / nx;
    v[i] = clamped_cell(u, c, nx, ny, nz, x, t % ny, t / ny);
}

// A work-item per cell, a 3-D range; interior cells read without selects.
__kernel void cell3d(__global const float* restrict u, __global float* restrict v, float c, uint nx, uint ny,
                     uint nz) {
    const uint x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    if (x >= nx || y >= ny || z >= nz) return;
    const uint plane = nx * ny, i = (z * ny + y) * nx + x;
    if (x > 0 && x + 1 < nx && y > 0 && y + 1 < ny && z > 0 && z + 1 < nz)
        v[i] = STEP(u[i], u[i - 1], u[i + 1], u[i - nx], u[i + nx], u[i - plane], u[i + plane]);
    else
        v[i] = clamped_cell(u, c, nx, ny, nz, x, y, z);
}

// One cell of row r at x, its x neighbours clamped; s, n, b, f start the clamped neighbour rows.
inline void edge_cell(__global const float* restrict u, __global float* restrict v, float c, uint nx, uint row,
                      uint s, uint n, uint b, uint f, uint x) {
    const uint i = row + x;
    v[i] = STEP(u[i], u[x > 0 ? i - 1 : i], u[x + 1 < nx ? i + 1 : i], u[s + x], u[n + x], u[b + x], u[f + x]);
}

// The four neighbour rows of row r = z * ny + y, clamped once per row.
#define ROW_STARTS                                                                  \
    const uint y = r % ny, z = r / ny, plane = nx * ny, row = r * nx;               \
    const uint s = y > 0 ? row - nx : row, n = y + 1 < ny ? row + nx : row;         \
    const uint b = z > 0 ? row - plane : row, f = z + 1 < nz ? row + plane : row;

inline void scalar_row(__global const float* restrict u, __global float* restrict v, float c, uint nx, uint ny,
                       uint nz, uint r) {
    ROW_STARTS
    edge_cell(u, v, c, nx, row, s, n, b, f, 0);
    for (uint x = 1; x + 1 < nx; ++x) {
        const uint i = row + x;
        v[i] = STEP(u[i], u[i - 1], u[i + 1], u[s + x], u[n + x], u[b + x], u[f + x]);
    }
    if (nx > 1) edge_cell(u, v, c, nx, row, s, n, b, f, nx - 1);
}

// A work-item per x-row.
__kernel void row_scalar(__global const float* restrict u, __global float* restrict v, float c, uint nx, uint ny,
                  uint nz) {
    const uint r = get_global_id(0);
    if (r < ny * nz) scalar_row(u, v, c, nx, ny, nz, r);
}

// A contiguous band of rows per work-item.
__kernel void band_scalar(__global const float* restrict u, __global float* restrict v, float c, uint nx, uint ny,
                   uint nz) {
    const uint rows = ny * nz, width = (rows + get_global_size(0) - 1) / get_global_size(0);
    const uint r0 = min((uint)get_global_id(0) * width, rows), r1 = min(r0 + width, rows);
    for (uint r = r0; r < r1; ++r) scalar_row(u, v, c, nx, ny, nz, r);
}

// A band of y per work-item, each walking z one x-row at a time: the rows below and above a row
// were the rows before and after it, still in the cache (the z-march of whole rows).
__kernel void zmarch_rows(__global const float* restrict u, __global float* restrict v, float c, uint nx, uint ny,
                          uint nz) {
    const uint width = (ny + get_global_size(0) - 1) / get_global_size(0);
    const uint y0 = min((uint)get_global_id(0) * width, ny), y1 = min(y0 + width, ny);
    for (uint y = y0; y < y1; ++y)
        for (uint z = 0; z < nz; ++z) scalar_row(u, v, c, nx, ny, nz, z * ny + y);
}

// A work-item per (x, y) column walks z: the cells below, at and above in registers, so each
// plane's centre value is loaded once.
__kernel void zmarch(__global const float* restrict u, __global float* restrict v, float c, uint nx, uint ny,
                     uint nz) {
    const uint x = get_global_id(0), y = get_global_id(1);
    if (x >= nx || y >= ny) return;
    const uint plane = nx * ny, col = y * nx + x;
    const uint dw = x > 0 ? 1 : 0, de = x + 1 < nx ? 1 : 0, ds = y > 0 ? nx : 0, dn = y + 1 < ny ? nx : 0;
    float below = u[col], centre = below;
    for (uint z = 0, i = col; z < nz; ++z, i += plane) {
        const float above = z + 1 < nz ? u[i + plane] : centre;
        v[i] = STEP(centre, u[i - dw], u[i + de], u[i - ds], u[i + dn], below, above);
        below = centre;
        centre = above;
    }
}
)";

const char* vector_forms = R"(
// Row r with its interior in float$W loads and stores, the rest one cell at a time.
inline void row_vec$W_body(__global const float* restrict u, __global float* restrict v, float c, uint nx, uint ny,
                           uint nz, uint r) {
    ROW_STARTS
    edge_cell(u, v, c, nx, row, s, n, b, f, 0);
    uint x = 1;
    for (; x + $W < nx; x += $W) {
        const float$W m = vload$W(0, u + row + x);
        vstore$W(STEP(m, vload$W(0, u + row + x - 1), vload$W(0, u + row + x + 1), vload$W(0, u + s + x),
                      vload$W(0, u + n + x), vload$W(0, u + b + x), vload$W(0, u + f + x)),
                 0, v + row + x);
    }
    for (; x + 1 < nx; ++x) {
        const uint i = row + x;
        v[i] = STEP(u[i], u[i - 1], u[i + 1], u[s + x], u[n + x], u[b + x], u[f + x]);
    }
    if (nx > 1) edge_cell(u, v, c, nx, row, s, n, b, f, nx - 1);
}

__kernel void row_vec$W(__global const float* restrict u, __global float* restrict v, float c, uint nx, uint ny,
                        uint nz) {
    const uint r = get_global_id(0);
    if (r < ny * nz) row_vec$W_body(u, v, c, nx, ny, nz, r);
}

__kernel void band_vec$W(__global const float* restrict u, __global float* restrict v, float c, uint nx, uint ny,
                         uint nz) {
    const uint rows = ny * nz, width = (rows + get_global_size(0) - 1) / get_global_size(0);
    const uint r0 = min((uint)get_global_id(0) * width, rows), r1 = min(r0 + width, rows);
    for (uint r = r0; r < r1; ++r) row_vec$W_body(u, v, c, nx, ny, nz, r);
}
)";

std::string stencil3d_source() { return common_source + bench::ocl::for_widths(vector_forms, {"8", "16"}); }

struct opencl_instance {
    std::string error;
    cl::Buffer u, v;
    bench::ocl::tuned_launches tuned;
    void once() { bench::ocl::run_launch(tuned.best()); }
};

std::vector<bench::ocl::named_launch> stencil3d_launches(opencl_instance& p, const extents& g) {
    using namespace bench::ocl;
    const std::string source = stencil3d_source();
    auto bound = [&](const char* name) {
        cl::Kernel k = kernel(source, name);
        k.setArg(0, p.u);
        k.setArg(1, p.v);
        k.setArg(2, c);
        k.setArg(3, cl_uint(g.nx));
        k.setArg(4, cl_uint(g.ny));
        k.setArg(5, cl_uint(g.nz));
        return k;
    };
    const std::size_t rows = g.ny * g.nz, most = env().max_work_group;
    std::vector<named_launch> out;
    add_group_sizes(out, bound("cell1d"), "cell1d", g.cells());
    {
        const cl::Kernel k = bound("cell3d");
        out.push_back({k, cl::NDRange(g.nx, g.ny, g.nz), cl::NullRange, "cell3d:NULL"});
        const std::size_t shapes[][3] = {{16, 1, 1}, {64, 1, 1}, {256, 1, 1}, {16, 4, 1}, {32, 4, 2}, {16, 16, 1}};
        for (const auto& l : shapes)
            if (l[0] <= g.nx && l[1] <= g.ny && l[2] <= g.nz && l[0] * l[1] * l[2] <= most)
                out.push_back(
                    {k, cl::NDRange(round_up(g.nx, l[0]), round_up(g.ny, l[1]), round_up(g.nz, l[2])),
                     cl::NDRange(l[0], l[1], l[2]),
                     "cell3d:" + std::to_string(l[0]) + "x" + std::to_string(l[1]) + "x" + std::to_string(l[2])});
    }
    for (const char* form : {"row_scalar", "row_vec8", "row_vec16"}) add_group_sizes(out, bound(form), form, rows);
    for (const char* form : {"band_scalar", "band_vec8", "band_vec16"}) add_chunked(out, bound(form), form, rows);
    {
        const cl::Kernel k = bound("zmarch_rows");
        add_chunked(out, k, "zmarch_rows", g.ny);
        out.push_back({k, cl::NDRange(g.ny), cl::NullRange, "zmarch_rows:NULL"}); // a y per work-item
    }
    {
        const cl::Kernel k = bound("zmarch");
        out.push_back({k, cl::NDRange(g.nx, g.ny), cl::NullRange, "zmarch:NULL"});
        const std::size_t shapes[][2] = {{16, 1}, {64, 1}, {256, 1}, {16, 4}, {32, 8}, {64, 4}};
        for (const auto& l : shapes)
            if (l[0] <= g.nx && l[1] <= g.ny && l[0] * l[1] <= most)
                out.push_back({k, cl::NDRange(round_up(g.nx, l[0]), round_up(g.ny, l[1])), cl::NDRange(l[0], l[1]),
                               "zmarch:" + std::to_string(l[0]) + "x" + std::to_string(l[1])});
    }
    return out;
}

opencl_instance& handwritten_prepared(std::size_t cells) {
    return bench::prepared<opencl_instance>(key("handwritten", cells), [&] {
        auto p = std::make_unique<opencl_instance>();
        const extents g = grid_of(cells);
        try {
            p->u = bench::ocl::upload(host_u(cells), cells);
            p->v = bench::ocl::allocate(cells);
            opencl_instance* raw = p.get();
            p->tuned = bench::ocl::check_and_tune(key("handwritten", cells), stencil3d_launches(*p, g),
                                                  [raw, g](const bench::ocl::named_launch& l) {
                                                      bench::ocl::fill_nan(raw->v, g.cells());
                                                      bench::ocl::run_launch(l);
                                                      return check(bench::ocl::download(raw->v, g.cells()), g);
                                                  });
        } catch (const std::exception& e) {
            p->error = key("handwritten", cells) + ": " + e.what();
        }
        return p;
    });
}

void run_handwritten(benchmark::State& state) {
    const std::size_t cells = std::size_t(state.range(0));
    opencl_instance& p = handwritten_prepared(cells);
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    state.SetLabel("-> " + p.tuned.best().name);
    bench::time_loop(state, [&p] { p.once(); });
    set_counters(state, grid_of(cells));
}

// Loom's expression and the tuned kernel, run by run (bench::time_interleaved).
void run_interleaved(benchmark::State& state) {
    const bench::own_instances fresh; // both made anew for the pair
    const std::size_t cells = std::size_t(state.range(0));
    opencl_instance& hand = handwritten_prepared(cells);
    if (!bench::time_interleaved_instances(state, loom_prepared(false, cells), hand)) return;
    state.SetLabel("-> " + hand.tuned.best().name);
    set_counters(state, grid_of(cells));
}

void register_all() {
    // Every grid of at most 2^max_log2 cells (all four by default; 64^3 alone at --max-log2 20).
    std::vector<std::int64_t> cells;
    for (const extents& g : grids())
        if (double(g.cells()) <= std::ldexp(1.0, bench::max_log2())) cells.push_back(std::int64_t(g.cells()));
    if (cells.empty()) return;
    bench::add(
        "stencil3d_7pt/loom_expr", [](benchmark::State& s) { run_loom(s, false); }, cells);
    bench::add(
        "stencil3d_7pt/loom_contract", [](benchmark::State& s) { run_loom(s, true); }, cells);
    bench::add(
        "stencil3d_7pt/handwritten", [](benchmark::State& s) { run_handwritten(s); }, cells);
    bench::add(
        "stencil3d_7pt/interleaved", [](benchmark::State& s) { run_interleaved(s); }, cells, 0.01);
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
