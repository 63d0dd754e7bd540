// N-Body accelerations, all pairs (float, softening eps^2, positions x, y, z and masses as four
// vectors): a_i = sum_j m_j (p_j - p_i) / (|p_j - p_i|^2 + eps^2)^(3/2). Loom as
// examples/nbody.cpp writes it (one reduction of three values along the rows of an N x N virtual matrix)
// against handwritten OpenCL kernels tuned over shapes and geometry: a body per work-item with
// the j loop in registers, over the four vectors and over positions packed as float4 (x, y, z,
// m; packed once before timing, the layout such a kernel chooses); tiles of a work-group's size
// in local memory; eight or sixteen bodies per work-item as the lanes of a float8 or float16;
// a body per work-item with the other bodies sixteen at a time in float16 lanes (the shape of
// Loom's CPU axis pass). The figure is
// interactions per second (N^2 per evaluation of all three components). Boost.Compute has no
// all-pairs or nested-loop form in its front end: not measured. Every variant and every shape
// is checked against a double host reference first.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "harness.hpp"
#include "opencl_baseline.hpp"
#include "shaped_launches.hpp"

namespace {

constexpr float eps2 = 1e-4f; // softening; it also makes the i == j term 0

// Positions in [-1, 1)^3, masses in [0.5, 1.5) / n, as examples/nbody.cpp.
struct bodies {
    std::vector<float> x, y, z, m;
    std::vector<float> packed; // x, y, z, m of each body: the float4 forms' layout
};

const bodies& host_bodies(std::size_t n) {
    static bodies b;
    if (b.x.size() == n) return b;
    std::mt19937 gen(71);
    std::uniform_real_distribution<float> position(-1.0f, 1.0f), mass(0.5f, 1.5f);
    b = {};
    for (std::size_t i = 0; i < n; ++i) {
        b.x.push_back(position(gen));
        b.y.push_back(position(gen));
        b.z.push_back(position(gen));
        b.m.push_back(mass(gen) / float(n));
        for (float v : {b.x.back(), b.y.back(), b.z.back(), b.m.back()}) b.packed.push_back(v);
    }
    return b;
}

// Per body and component: the acceleration in double, and sum_j |term|, the scale of a float
// fold's error.
struct reference_accelerations {
    std::size_t n = 0;
    std::vector<double> value[3], magnitude[3];
};

const reference_accelerations& reference(std::size_t n) {
    static reference_accelerations r;
    if (r.n == n) return r;
    const bodies& b = host_bodies(n);
    for (int k = 0; k < 3; ++k) {
        r.value[k].assign(n, 0);
        r.magnitude[k].assign(n, 0);
    }
    bench::parallel_for(n * 64, [&](std::size_t begin, std::size_t end) { // 64: parallel_for's threshold
        for (std::size_t i = begin / 64; i < (end + 63) / 64 && i < n; ++i) {
            if (i * 64 < begin) continue;
            double a[3] = {0, 0, 0}, mag[3] = {0, 0, 0};
            for (std::size_t j = 0; j < n; ++j) {
                const double d[3] = {double(b.x[j]) - b.x[i], double(b.y[j]) - b.y[i], double(b.z[j]) - b.z[i]};
                const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
                const double w = b.m[j] / (r2 * std::sqrt(r2));
                for (int k = 0; k < 3; ++k) {
                    a[k] += w * d[k];
                    mag[k] += std::fabs(w * d[k]);
                }
            }
            for (int k = 0; k < 3; ++k) {
                r.value[k][i] = a[k];
                r.magnitude[k][i] = mag[k];
            }
        }
    });
    r.n = n;
    return r;
}

// rsqrt's few ulp, cubed, on every term and any order of a float fold of n terms stay far inside
// 1e-4 of sum |terms| (typical error 1e-6 of it); a missing tile of 16 bodies is 1e-3 of it at
// 16384 bodies, a wrong body far more.
std::string check(const std::vector<float> got[3], std::size_t n) {
    const reference_accelerations& r = reference(n);
    std::size_t bad = 0, first = n;
    int first_k = 0;
    for (int k = 0; k < 3; ++k)
        for (std::size_t i = 0; i < n; ++i)
            if (!std::isfinite(got[k][i]) || std::fabs(got[k][i] - r.value[k][i]) > 1e-4 * r.magnitude[k][i]) {
                if (first == n) {
                    first = i;
                    first_k = k;
                }
                ++bad;
            }
    if (bad == 0) return {};
    char text[220];
    std::snprintf(text, sizeof text,
                  "wrong result: body %zu component %d is %.9g, the host reference says %.9g (%zu of %zu differ)",
                  first, first_k, double(got[first_k][first]), r.value[first_k][first], bad, 3 * n);
    return text;
}

std::string key(const std::string& variant, std::size_t n) { return "nbody/" + variant + "/" + std::to_string(n); }

void set_counters(benchmark::State& state, std::size_t n) {
    state.counters["interactions/s"] =
        benchmark::Counter(double(n) * double(n), benchmark::Counter::kIsIterationInvariantRate);
}

// ---- Loom ----------------------------------------------------------------------------------

struct loom_instance {
    std::string error;
    loom::context* ctx = nullptr;
    std::unique_ptr<loom::vector<float>> px, py, pz, m, ax, ay, az;
    // examples/nbody.cpp's accelerations: the three components in one reduction along the rows.
    void once() {
        const loom::vector<float>&x = *px, &y = *py, &z = *pz;
        const auto dx = loom::as_row(x) - loom::as_column(x);
        const auto dy = loom::as_row(y) - loom::as_column(y);
        const auto dz = loom::as_row(z) - loom::as_column(z);
        const auto inv_r = loom::rsqrt(dx * dx + dy * dy + dz * dz + eps2);
        const auto weight = loom::as_row(*m) * (inv_r * inv_r * inv_r);
        loom::tie(*ax, *ay, *az) = loom::sum(std::make_tuple(weight * dx, weight * dy, weight * dz), loom::axis<1>);
        ctx->finish();
    }
};

loom_instance& loom_prepared(bool contract, std::size_t n) {
    const std::string variant = contract ? "loom_contract" : "loom_expr";
    return bench::prepared<loom_instance>(key(variant, n), [&] {
        auto p = std::make_unique<loom_instance>();
        try {
            const bodies& b = host_bodies(n);
            loom::context& ctx = bench::loom_context(true, contract);
            p->ctx = &ctx;
            p->px = std::make_unique<loom::vector<float>>(ctx, b.x);
            p->py = std::make_unique<loom::vector<float>>(ctx, b.y);
            p->pz = std::make_unique<loom::vector<float>>(ctx, b.z);
            p->m = std::make_unique<loom::vector<float>>(ctx, b.m);
            for (auto* a : {&p->ax, &p->ay, &p->az}) {
                *a = std::make_unique<loom::vector<float>>(ctx, n);
                loom::copy(bench::poison(n), **a);
            }
            p->once();
            const std::vector<float> got[3] = {p->ax->to_host(), p->ay->to_host(), p->az->to_host()};
            p->error = check(got, n);
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key(variant, n) + ": " + p->error;
        return p;
    });
}

void run_loom(benchmark::State& state, bool contract) {
    const std::size_t n = std::size_t(state.range(0));
    loom_instance& p = loom_prepared(contract, n);
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    bench::time_loop(state, [&p] { p.once(); });
    set_counters(state, n);
}

// ---- handwritten ---------------------------------------------------------------------------

// OpenCL's default FP_CONTRACT (on) is left as a programmer gets it. Every kernel writes the
// three components to three vectors, as Loom does.
const char* nbody_source = R"(
// One pair's contribution to body i's acceleration (T: float, or float8 for eight bodies i).
#define INTERACT(T, xj, yj, zj, mj)                                     \
    {                                                                   \
        const T dx = (xj) - xi, dy = (yj) - yi, dz = (zj) - zi;         \
        const T inv_r = rsqrt(dx * dx + dy * dy + dz * dz + eps2);      \
        const T w = (mj) * (inv_r * inv_r * inv_r);                     \
        sx += w * dx;                                                   \
        sy += w * dy;                                                   \
        sz += w * dz;                                                   \
    }

__kernel void body_soa(__global const float* restrict px, __global const float* restrict py,
                       __global const float* restrict pz, __global const float* restrict m,
                       __global const float4* restrict packed, __global float* restrict ax,
                       __global float* restrict ay, __global float* restrict az, uint n, float eps2) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    const float xi = px[i], yi = py[i], zi = pz[i];
    float sx = 0.0f, sy = 0.0f, sz = 0.0f;
    for (uint j = 0; j < n; ++j) INTERACT(float, px[j], py[j], pz[j], m[j])
    ax[i] = sx;
    ay[i] = sy;
    az[i] = sz;
}

__kernel void body_float4(__global const float* restrict px, __global const float* restrict py,
                          __global const float* restrict pz, __global const float* restrict m,
                          __global const float4* restrict packed, __global float* restrict ax,
                          __global float* restrict ay, __global float* restrict az, uint n, float eps2) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    const float4 pi = packed[i];
    const float xi = pi.x, yi = pi.y, zi = pi.z;
    float sx = 0.0f, sy = 0.0f, sz = 0.0f;
    for (uint j = 0; j < n; ++j) {
        const float4 pj = packed[j];
        INTERACT(float, pj.x, pj.y, pj.z, pj.w)
    }
    ax[i] = sx;
    ay[i] = sy;
    az[i] = sz;
}

// Tiles of the group's size in local memory: each work-item loads one body of the tile, then
// every work-item of the group reads the whole tile. A body past n has mass 0: no force.
__kernel void tiled(__global const float* restrict px, __global const float* restrict py,
                    __global const float* restrict pz, __global const float* restrict m,
                    __global const float4* restrict packed, __global float* restrict ax,
                    __global float* restrict ay, __global float* restrict az, uint n, float eps2,
                    __local float4* tile) {
    const uint i = get_global_id(0), lid = get_local_id(0), g = get_local_size(0);
    const float4 pi = i < n ? packed[i] : (float4)(0.0f);
    const float xi = pi.x, yi = pi.y, zi = pi.z;
    float sx = 0.0f, sy = 0.0f, sz = 0.0f;
    for (uint t = 0; t < n; t += g) {
        tile[lid] = t + lid < n ? packed[t + lid] : (float4)(0.0f);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint k = 0; k < g; ++k) {
            const float4 pj = tile[k];
            INTERACT(float, pj.x, pj.y, pj.z, pj.w)
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (i < n) {
        ax[i] = sx;
        ay[i] = sy;
        az[i] = sz;
    }
}

// N bodies per work-item as the lanes of a floatN (n a multiple of N), each other body read once
// as scalars and broadcast to the N: bodies8 (float8) and bodies16 (float16, a whole AVX-512
// register).
#define BODIES(N)                                                                                      \
    __kernel void bodies##N(__global const float* restrict px, __global const float* restrict py,      \
                            __global const float* restrict pz, __global const float* restrict m,       \
                            __global const float4* restrict packed, __global float* restrict ax,       \
                            __global float* restrict ay, __global float* restrict az, uint n,          \
                            float eps2) {                                                              \
        const uint i = get_global_id(0) * N;                                                           \
        if (i >= n) return;                                                                            \
        const float##N xi = vload##N(0, px + i), yi = vload##N(0, py + i), zi = vload##N(0, pz + i);   \
        float##N sx = 0.0f, sy = 0.0f, sz = 0.0f;                                                      \
        for (uint j = 0; j < n; ++j) INTERACT(float##N, px[j], py[j], pz[j], m[j])                     \
        vstore##N(sx, 0, ax + i);                                                                      \
        vstore##N(sy, 0, ay + i);                                                                      \
        vstore##N(sz, 0, az + i);                                                                      \
    }
BODIES(8)
BODIES(16)

// A body per work-item, the other bodies sixteen at a time as the lanes of a float16 (contiguous
// loads; n a multiple of 16), the lanes summed at the end.
float lane_sum(float16 s) {
    const float8 h8 = s.lo + s.hi;
    const float4 h4 = h8.lo + h8.hi;
    const float2 h2 = h4.lo + h4.hi;
    return h2.x + h2.y;
}
__kernel void pairs16(__global const float* restrict px, __global const float* restrict py,
                      __global const float* restrict pz, __global const float* restrict m,
                      __global const float4* restrict packed, __global float* restrict ax,
                      __global float* restrict ay, __global float* restrict az, uint n, float eps2) {
    const uint i = get_global_id(0);
    if (i >= n) return;
    const float xi = px[i], yi = py[i], zi = pz[i];
    float16 sx = 0.0f, sy = 0.0f, sz = 0.0f;
    for (uint j = 0; j < n; j += 16)
        INTERACT(float16, vload16(0, px + j), vload16(0, py + j), vload16(0, pz + j), vload16(0, m + j))
    ax[i] = lane_sum(sx);
    ay[i] = lane_sum(sy);
    az[i] = lane_sum(sz);
}
)";

struct opencl_instance {
    std::string error;
    cl::Buffer px, py, pz, m, packed, ax, ay, az;
    bench::ocl::tuned_launches tuned;
    void once() { bench::ocl::run_launch(tuned.best()); }
};

std::vector<bench::ocl::named_launch> nbody_launches(opencl_instance& p, std::size_t n) {
    using namespace bench::ocl;
    auto bound = [&](const char* name) {
        cl::Kernel k = kernel(nbody_source, name);
        cl_uint a = 0;
        for (const cl::Buffer* b : {&p.px, &p.py, &p.pz, &p.m, &p.packed, &p.ax, &p.ay, &p.az}) k.setArg(a++, *b);
        k.setArg(a++, cl_uint(n));
        k.setArg(a++, eps2);
        return k;
    };
    // Work-group sizes: the runtime's choice and 16 to 1024 (a sweep of every size costs
    // seconds a configuration at 16384 bodies).
    const std::vector<std::size_t> groups{0, 16, 64, 256, 1024};
    std::vector<named_launch> out;
    for (const char* form : {"body_soa", "body_float4"}) {
        const cl::Kernel k = bound(form);
        for (std::size_t g : groups)
            if (g <= n) out.push_back(items_in_groups(k, form, n, g));
    }
    for (std::size_t g : groups) { // a kernel object per size: each binds its own local memory
        if (g == 0 || g > n || g > env().max_work_group) continue;
        cl::Kernel k = bound("tiled");
        k.setArg(10, cl::Local(g * 4 * sizeof(float)));
        out.push_back(items_in_groups(k, "tiled", n, g));
    }
    const std::size_t few[] = {0, 1, 16, 64};
    const cl::Kernel lanes = bound("bodies8");
    for (std::size_t g : few)
        if (g <= n / 8) out.push_back(items_in_groups(lanes, "bodies8", n / 8, g));
    if (n % 16 == 0) {
        const cl::Kernel lanes16 = bound("bodies16"), pairs16 = bound("pairs16");
        for (std::size_t g : few) {
            if (g <= n / 16) out.push_back(items_in_groups(lanes16, "bodies16", n / 16, g));
            if (g <= n) out.push_back(items_in_groups(pairs16, "pairs16", n, g));
        }
    }
    return out;
}

opencl_instance& handwritten_prepared(std::size_t n) {
    return bench::prepared<opencl_instance>(key("handwritten", n), [&] {
        auto p = std::make_unique<opencl_instance>();
        try {
            const bodies& b = host_bodies(n);
            p->px = bench::ocl::upload(b.x.data(), n);
            p->py = bench::ocl::upload(b.y.data(), n);
            p->pz = bench::ocl::upload(b.z.data(), n);
            p->m = bench::ocl::upload(b.m.data(), n);
            p->packed = bench::ocl::upload(b.packed.data(), 4 * n);
            p->ax = bench::ocl::allocate(n);
            p->ay = bench::ocl::allocate(n);
            p->az = bench::ocl::allocate(n);
            opencl_instance* raw = p.get();
            p->tuned = bench::ocl::check_and_tune(
                key("handwritten", n), nbody_launches(*p, n), [raw, n](const bench::ocl::named_launch& l) {
                    for (const cl::Buffer* a : {&raw->ax, &raw->ay, &raw->az}) bench::ocl::fill_nan(*a, n);
                    bench::ocl::run_launch(l);
                    const std::vector<float> got[3] = {bench::ocl::download(raw->ax, n),
                                                       bench::ocl::download(raw->ay, n),
                                                       bench::ocl::download(raw->az, n)};
                    return check(got, n);
                });
        } catch (const std::exception& e) {
            p->error = key("handwritten", n) + ": " + e.what();
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
    state.SetLabel("-> " + p.tuned.best().name);
    bench::time_loop(state, [&p] { p.once(); });
    set_counters(state, n);
}

// Loom and the tuned kernel, run by run (bench::time_interleaved). `contract`: Loom with
// contraction on (loom_contract), rounding as the handwritten kernels do (OpenCL's default
// FP_CONTRACT, on: their multiply-adds are fused), which is the like-for-like comparison;
// without it Loom rounds every product (fused equal to unfused), which the device cannot fuse.
void run_interleaved(benchmark::State& state, bool contract) {
    const bench::own_instances fresh; // both made anew for the pair
    const std::size_t n = std::size_t(state.range(0));
    opencl_instance& hand = handwritten_prepared(n);
    if (!bench::time_interleaved_instances(state, loom_prepared(contract, n), hand)) return;
    state.SetLabel("-> " + hand.tuned.best().name);
    set_counters(state, n);
}

void register_all() {
    // 2^10, 2^12 and 2^14 bodies (multiples of 8, for bodies8), as long as the interactions,
    // n^2, stay within 2^(max_log2 + 2): all three in a full run, 2^10 and 2^11 at --max-log2 20.
    const std::vector<std::int64_t> n = bench::sizes(10, std::min(14, (bench::max_log2() + 2) / 2));
    bench::add(
        "nbody/loom_expr", [](benchmark::State& s) { run_loom(s, false); }, n);
    bench::add(
        "nbody/loom_contract", [](benchmark::State& s) { run_loom(s, true); }, n);
    bench::add(
        "nbody/handwritten", [](benchmark::State& s) { run_handwritten(s); }, n);
    bench::add(
        "nbody/interleaved", [](benchmark::State& s) { run_interleaved(s, false); }, n, 0.01);
    bench::add(
        "nbody/interleaved_contract", [](benchmark::State& s) { run_interleaved(s, true); }, n, 0.01);
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
