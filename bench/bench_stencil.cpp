// Stencils: a 1-D 3-point diffusion step y = x + c (x[i-1] - 2 x[i] + x[i+1]) and a 2-D
// 5-point step v = u + c (u[W] + u[E] + u[N] + u[S] - 4 u) on a square grid, both clamped at
// the edges. Loom as one expression, as separate statements fused, with fusion off, and a
// tuned handwritten OpenCL kernel. Boost.Compute has no neighbour access in its lambda front
// end (a stencil there is a zip of offset iterators plus separate edge handling, which is not
// the same work): not measured. Every variant is checked against a host reference first.
#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "harness.hpp"
#include "opencl_baseline.hpp"

namespace {

constexpr float c = 0.2f;

struct workload {
    std::string name;
    bool two_d;
    const char* opencl;
};

// Four forms each, all tuned over the geometry, the fastest one timed. 1-D: "clamped" clamps
// every index; "interior" takes the edges apart per element; "grouped" takes them apart per
// work-group (one test for the whole group), so an interior group's loads are contiguous, which
// is what a vectorising compiler needs; "chunked" gives each work-item a contiguous chunk whose
// interior loop has no test at all. 2-D: "flat" is a 1-D range that splits the index with % and
// /; "range2d" is a 2-D range (no division), rows along dimension 0, its edges taken apart per
// element; "grouped2d" is range2d with the per-group test; "rows" gives each work-item a band
// of rows, each row an untested loop over its inner columns and its two edge columns apart.
const char* source_1d = R"(#pragma OPENCL FP_CONTRACT OFF
__kernel void clamped(__global const float* restrict x, __global float* restrict y, float c, uint n) {
    const uint i = get_global_id(0);
    if (i < n) {
        const float l = x[i == 0 ? 0 : i - 1], m = x[i], r = x[i + 1 < n ? i + 1 : n - 1];
        y[i] = m + c * (l - 2.0f * m + r);
    }
}

__kernel void interior(__global const float* restrict x, __global float* restrict y, float c, uint n) {
    const uint i = get_global_id(0);
    if (i > 0 && i + 1 < n) {
        const float m = x[i];
        y[i] = m + c * (x[i - 1] - 2.0f * m + x[i + 1]);
    } else if (i < n) {
        const float l = x[i == 0 ? 0 : i - 1], m = x[i], r = x[i + 1 < n ? i + 1 : n - 1];
        y[i] = m + c * (l - 2.0f * m + r);
    }
}

__kernel void grouped(__global const float* restrict x, __global float* restrict y, float c, uint n) {
    const uint i = get_global_id(0), first = i - get_local_id(0);
    if (first > 0 && first + get_local_size(0) < n) { // every element of the group has both neighbours
        const float m = x[i];
        y[i] = m + c * (x[i - 1] - 2.0f * m + x[i + 1]);
    } else if (i < n) {
        const float l = x[i == 0 ? 0 : i - 1], m = x[i], r = x[i + 1 < n ? i + 1 : n - 1];
        y[i] = m + c * (l - 2.0f * m + r);
    }
}

__kernel void chunked(__global const float* restrict x, __global float* restrict y, float c, uint n) {
    const uint chunk = ((n + get_global_size(0) - 1) / get_global_size(0) + 15) & ~15u;
    const uint b = min((uint)get_global_id(0) * chunk, n), e = min(b + chunk, n);
    const uint lo = min(max(b, 1u), e), hi = max(min(e, n - 1), lo); // [lo, hi): both neighbours inside
    for (uint i = b; i < lo; ++i) {
        const float l = x[i == 0 ? 0 : i - 1], m = x[i], r = x[i + 1 < n ? i + 1 : n - 1];
        y[i] = m + c * (l - 2.0f * m + r);
    }
    for (uint i = lo; i < hi; ++i) {
        const float m = x[i];
        y[i] = m + c * (x[i - 1] - 2.0f * m + x[i + 1]);
    }
    for (uint i = hi; i < e; ++i) {
        const float l = x[i == 0 ? 0 : i - 1], m = x[i], r = x[i + 1 < n ? i + 1 : n - 1];
        y[i] = m + c * (l - 2.0f * m + r);
    }
}
)";

const char* source_2d = R"(#pragma OPENCL FP_CONTRACT OFF
__kernel void flat(__global const float* restrict u, __global float* restrict v, float c, uint nx, uint n) {
    const uint i = get_global_id(0);
    if (i < n) {
        const uint x = i % nx, y = i / nx, ny = n / nx;
        const float m = u[i];
        const float w = u[x == 0 ? i : i - 1], e = u[x + 1 < nx ? i + 1 : i];
        const float s = u[y == 0 ? i : i - nx], nn = u[y + 1 < ny ? i + nx : i];
        v[i] = m + c * (w + e + s + nn - 4.0f * m);
    }
}

__kernel void range2d(__global const float* restrict u, __global float* restrict v, float c, uint nx, uint n) {
    const uint x = get_global_id(0), y = get_global_id(1), ny = n / nx;
    if (x < nx && y < ny) {
        const uint i = y * nx + x;
        const float m = u[i];
        const float s = u[y == 0 ? i : i - nx], nn = u[y + 1 < ny ? i + nx : i];
        float w, e;
        if (x > 0 && x + 1 < nx) {
            w = u[i - 1];
            e = u[i + 1];
        } else {
            w = u[x == 0 ? i : i - 1];
            e = u[x + 1 < nx ? i + 1 : i];
        }
        v[i] = m + c * (w + e + s + nn - 4.0f * m);
    }
}

__kernel void grouped2d(__global const float* restrict u, __global float* restrict v, float c, uint nx, uint n) {
    const uint x = get_global_id(0), y = get_global_id(1), ny = n / nx;
    const uint x0 = x - get_local_id(0), y0 = y - get_local_id(1); // the group's first column and row
    if (x0 > 0 && x0 + get_local_size(0) < nx && y0 > 0 && y0 + get_local_size(1) < ny) {
        const uint i = y * nx + x;
        const float m = u[i];
        v[i] = m + c * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - 4.0f * m);
    } else if (x < nx && y < ny) {
        const uint i = y * nx + x;
        const float m = u[i];
        const float w = u[x == 0 ? i : i - 1], e = u[x + 1 < nx ? i + 1 : i];
        const float s = u[y == 0 ? i : i - nx], nn = u[y + 1 < ny ? i + nx : i];
        v[i] = m + c * (w + e + s + nn - 4.0f * m);
    }
}

// One clamped element of the 5-point stencil at (x, y); `up` and `down` start the rows above and below.
inline void edge5(__global const float* restrict u, __global float* restrict v, float c, uint nx, uint x, uint row,
                  uint up, uint down) {
    const uint i = row + x;
    const float m = u[i];
    const float w = u[x == 0 ? i : i - 1], e = u[x + 1 < nx ? i + 1 : i];
    v[i] = m + c * (w + e + u[up + x] + u[down + x] - 4.0f * m);
}

__kernel void rows(__global const float* restrict u, __global float* restrict v, float c, uint nx, uint n) {
    const uint ny = n / nx, band = (ny + get_global_size(0) - 1) / get_global_size(0);
    const uint y0 = min((uint)get_global_id(0) * band, ny), y1 = min(y0 + band, ny);
    for (uint y = y0; y < y1; ++y) {
        const uint row = y * nx, up = y == 0 ? row : row - nx, down = y + 1 < ny ? row + nx : row;
        edge5(u, v, c, nx, 0, row, up, down);
        for (uint x = 1; x + 1 < nx; ++x) {
            const uint i = row + x;
            const float m = u[i];
            v[i] = m + c * (u[i - 1] + u[i + 1] + u[up + x] + u[down + x] - 4.0f * m);
        }
        if (nx > 1) edge5(u, v, c, nx, nx - 1, row, up, down);
    }
}
)";

const std::vector<workload>& workloads() {
    static const std::vector<workload> all = {{"stencil1d_3pt", false, source_1d}, {"stencil2d_5pt", true, source_2d}};
    return all;
}

const float* host_x(std::size_t n) { return bench::random_floats(41, 0.5f, 1.5f, n); }

std::size_t width(std::size_t n) { return std::size_t(std::llround(std::sqrt(double(n)))); } // sizes are 4^k

std::vector<float> reference(const workload& w, std::size_t n) {
    const float* x = host_x(n);
    if (w.two_d) return bench::stencil2d_reference(x, width(n), n / width(n), c);
    std::vector<float> y(n);
    for (std::size_t i = 0; i < n; ++i) {
        const float l = x[i == 0 ? 0 : i - 1], m = x[i], r = x[i + 1 < n ? i + 1 : n - 1];
        y[i] = m + c * (l - 2.0f * m + r);
    }
    return y;
}

// The Loom forms never fuse contraction; the handwritten kernels turn it off too, so results
// agree to rounding of the order of operations.
const bench::tolerance stencil_tolerance{1e-5, 1e-6};

std::string key(const workload& w, const std::string& variant, std::size_t n) {
    return w.name + "/" + variant + "/" + std::to_string(n);
}

// ---- Loom ----------------------------------------------------------------------------------

enum class form { expr, stmts, unfused };

struct loom_instance {
    std::string error;
    loom::context* ctx = nullptr;
    std::unique_ptr<loom::vector<float>> x, y, t;
    std::function<void()> once;
};

// The statement forms: the sum of the neighbours into `sides`, then the update. With fusion on,
// `sides` is a temporary that dies at the end of the step (Loom keeps it in registers); with
// fusion off it is a persistent vector, one kernel per statement.
void loom_statements(const workload& w, loom::vector<float>& x, loom::vector<float>& y, loom::vector<float>& sides) {
    const std::size_t n = x.size();
    if (!w.two_d) {
        sides = loom::shift(x, -1) + loom::shift(x, 1);
        y = x + c * (sides - 2.0f * x);
        return;
    }
    auto g = loom::grid(x, width(n), n / width(n));
    sides = loom::at(g, -1, 0) + loom::at(g, 1, 0);
    sides = sides + loom::at(g, 0, -1) + loom::at(g, 0, 1);
    y = x + c * (sides - 4.0f * x);
}

void loom_step(const workload& w, form f, loom::context& ctx, loom::vector<float>& x, loom::vector<float>& y,
               loom::vector<float>* t) {
    const std::size_t n = x.size();
    if (f == form::unfused) {
        loom_statements(w, x, y, *t);
    } else if (f == form::stmts) {
        loom::vector<float> sides(ctx, n);
        loom_statements(w, x, y, sides);
    } else if (!w.two_d) {
        y = x + c * (loom::shift(x, -1) - 2.0f * x + loom::shift(x, 1));
    } else {
        auto g = loom::grid(x, width(n), n / width(n));
        y = x + c * (loom::at(g, -1, 0) + loom::at(g, 1, 0) + loom::at(g, 0, -1) + loom::at(g, 0, 1) - 4.0f * x);
    }
}

// The prepared instance's run (one step and a finish), or an empty function after reporting
// why the instance failed its check.
std::function<void()> loom_run(benchmark::State& state, const workload& w, form f, const std::string& variant) {
    const std::size_t n = std::size_t(state.range(0));
    auto& p = bench::prepared<loom_instance>(key(w, variant, n), [&] {
        auto p = std::make_unique<loom_instance>();
        try {
            loom::context& ctx = bench::loom_context(f != form::unfused);
            p->ctx = &ctx;
            p->x = std::make_unique<loom::vector<float>>(ctx, host_x(n), host_x(n) + n);
            p->y = std::make_unique<loom::vector<float>>(ctx, n);
            if (f == form::unfused) p->t = std::make_unique<loom::vector<float>>(ctx, n);
            loom::copy(bench::poison(n), *p->y);
            loom_instance* raw = p.get();
            const workload* pw = &w;
            p->once = [raw, pw, f] {
                loom_step(*pw, f, *raw->ctx, *raw->x, *raw->y, raw->t.get());
                raw->ctx->finish();
            };
            p->once();
            const std::vector<float> got = p->y->to_host();
            p->error = bench::compare(got.data(), reference(w, n).data(), n, stencil_tolerance);
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key(w, variant, n) + ": " + p->error;
        return p;
    });
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return {};
    }
    return p.once;
}

void run_loom(benchmark::State& state, const workload& w, form f, const std::string& variant) {
    const std::function<void()> run = loom_run(state, w, f, variant);
    if (!run) return;
    bench::time_loop(state, run);
    bench::set_bytes(state, 8.0 * double(state.range(0)));
}

// ---- handwritten ---------------------------------------------------------------------------

struct launch {
    cl::Kernel kernel;
    cl::NDRange global, local;
    std::string name;
};

struct opencl_instance {
    std::string error;
    cl::Buffer x, y;
    std::vector<launch> launches;
    bench::tuning tuning;
};

std::vector<launch> launches(const workload& w, std::size_t n, const cl::Buffer& x, const cl::Buffer& y) {
    std::vector<launch> out;
    using bench::ocl::round_up;
    const auto forms = w.two_d ? std::vector<const char*>{"flat", "range2d", "grouped2d", "rows"}
                               : std::vector<const char*>{"clamped", "interior", "grouped", "chunked"};
    for (const char* name : forms) {
        cl::Kernel k = bench::ocl::kernel(w.opencl, name);
        cl_uint a = 0;
        k.setArg(a++, x);
        k.setArg(a++, y);
        k.setArg(a++, c);
        if (w.two_d) k.setArg(a++, cl_uint(width(n)));
        k.setArg(a++, cl_uint(n));
        const std::string form = name;
        if (form == "chunked" || form == "rows") { // a few work-items in groups of one
            for (std::size_t per_unit : {1, 2, 4, 8, 16, 32}) {
                const std::size_t items = bench::ocl::env().compute_units * per_unit;
                out.push_back({k, cl::NDRange(items), cl::NDRange(1), form + ":" + std::to_string(items)});
            }
            continue;
        }
        if (form == "range2d" || form == "grouped2d") {
            const std::size_t nx = width(n), ny = n / nx;
            out.push_back({k, cl::NDRange(nx, ny), cl::NullRange, form + ":NULL"});
            for (auto [gx, gy] : {std::pair<std::size_t, std::size_t>{16, 16}, {64, 1}, {256, 1}, {1024, 1}, {64, 4}})
                if (gx <= nx && gy <= ny && gx * gy <= bench::ocl::env().max_work_group)
                    out.push_back({k, cl::NDRange(round_up(nx, gx), round_up(ny, gy)), cl::NDRange(gx, gy),
                                   form + ":" + std::to_string(gx) + "x" + std::to_string(gy)});
            continue;
        }
        for (std::size_t g : bench::ocl::candidate_groups(k))
            out.push_back({k, cl::NDRange(g ? round_up(n, g) : n), g ? cl::NDRange(g) : cl::NullRange,
                           form + ":" + bench::ocl::group_name(g)});
    }
    return out;
}

// The tuned kernel's run (launch and finish), as loom_run.
std::function<void()> handwritten_run(benchmark::State& state, const workload& w) {
    const std::size_t n = std::size_t(state.range(0));
    auto& env = bench::ocl::env();
    auto& p = bench::prepared<opencl_instance>(key(w, "handwritten", n), [&] {
        auto p = std::make_unique<opencl_instance>();
        try {
            p->x = bench::ocl::upload(host_x(n), n);
            p->y = bench::ocl::allocate(n);
            p->launches = launches(w, n, p->x, p->y);
            const std::vector<float> ref = reference(w, n);
            std::vector<std::string> names;
            for (const launch& l : p->launches) { // every form and geometry is checked
                names.push_back(l.name);
                bench::ocl::fill_nan(p->y, n);
                bench::ocl::launch(l.kernel, l.global, l.local);
                const std::vector<float> got = bench::ocl::download(p->y, n);
                const std::string e = bench::compare(got.data(), ref.data(), n, stencil_tolerance);
                if (!e.empty()) throw std::runtime_error(l.name + ": " + e);
            }
            opencl_instance* raw = p.get();
            p->tuning = bench::tune_configs(key(w, "handwritten", n), names, [raw, &env](std::size_t k) {
                const launch& l = raw->launches[k];
                bench::ocl::launch(l.kernel, l.global, l.local);
                env.queue.finish();
            });
        } catch (const std::exception& e) {
            p->error = key(w, "handwritten", n) + ": " + e.what();
        }
        return p;
    });
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return {};
    }
    const launch* l = &p.launches[p.tuning.best];
    state.SetLabel("-> " + l->name);
    return [l, &env] {
        bench::ocl::launch(l->kernel, l->global, l->local);
        env.queue.finish();
    };
}

void run_handwritten(benchmark::State& state, const workload& w) {
    const std::function<void()> run = handwritten_run(state, w);
    if (!run) return;
    bench::time_loop(state, run);
    bench::set_bytes(state, 8.0 * double(state.range(0)));
}

// One of Loom's forms and the tuned kernel, run by run (bench::time_interleaved). The
// statements form has a pair of its own: its kernel is the expression's, yet timed apart the
// 2-D statements form took 1.27 and 1.37 of the handwritten time in two runs (bench/README.md).
void run_interleaved(benchmark::State& state, const workload& w, form f) {
    const bench::own_instances fresh; // both made anew for the pair
    const std::function<void()> hand = handwritten_run(state, w),
                                loom = loom_run(state, w, f, f == form::expr ? "loom_expr" : "loom_stmts");
    if (!hand || !loom) return;
    bench::time_interleaved(state, loom, hand);
    bench::set_bytes(state, 8.0 * double(state.range(0)));
}

void register_all() {
    // Up to 2^22: Loom's 2-D form takes about a second per run at 2^24 on PoCL (see
    // bench/README.md), 30 s of the full run's 15 minutes for one point.
    const std::vector<std::int64_t> n = bench::sizes(10, 22);
    for (const workload& w : workloads()) {
        const workload* p = &w;
        bench::add(
            w.name + "/loom_expr", [p](benchmark::State& s) { run_loom(s, *p, form::expr, "loom_expr"); }, n);
        bench::add(
            w.name + "/loom_stmts", [p](benchmark::State& s) { run_loom(s, *p, form::stmts, "loom_stmts"); }, n);
        bench::add(
            w.name + "/loom_unfused", [p](benchmark::State& s) { run_loom(s, *p, form::unfused, "loom_unfused"); }, n);
        bench::add(
            w.name + "/handwritten", [p](benchmark::State& s) { run_handwritten(s, *p); }, n);
        bench::add_interleaved(
            w.name, [p](benchmark::State& s) { run_interleaved(s, *p, form::expr); }, 22);
        bench::add_interleaved(
            w.name, [p](benchmark::State& s) { run_interleaved(s, *p, form::stmts); }, 22, "interleaved_stmts");
    }
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
