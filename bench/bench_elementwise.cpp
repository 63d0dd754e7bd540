// The element-wise suite: copy, scale, saxpy, triad; chains of depth 1, 2, 4 and 8; the
// issue 4 chains; a transcendental-heavy map; Black-Scholes. Each workload runs as Loom
// (one expression; separate statements with fusion on; fusion off), as a tuned handwritten
// OpenCL kernel and, where it can express the work, as Boost.Compute. Every variant is
// checked against a host reference before it is timed.
#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/transform.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/container/vector.hpp>
#include <boost/compute/iterator/zip_iterator.hpp>
#include <boost/compute/lambda.hpp>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"
#include "opencl_baseline.hpp"

namespace {

namespace bc = boost::compute;
using vectors = std::vector<loom::vector<float>>;
using scalars = std::vector<float>;

// v: the workload's vectors (inputs, then outputs); tmp: the fusion-off form's persistent
// temporaries (the forms with fusion on make temporaries that die at the end of the call).
using loom_form = void (*)(vectors& v, vectors& tmp, const scalars& s, loom::context& ctx);
using boost_form = void (*)(std::vector<bc::vector<float>>& v, const scalars& s, bc::command_queue& q);
// Fills out[c] (one per checked vector) over [begin, end) from in[v] (the inputs' host data).
using reference_form = void (*)(std::size_t begin, std::size_t end, const float* const* in, float* const* out,
                                const scalars& s);

struct input {
    unsigned seed;
    float lo, hi;
};

struct workload {
    std::string name;
    int max_log2 = 26;            // compute-bound workloads stop earlier (time budget)
    std::vector<input> inputs;    // vectors 0 .. inputs-1, random, never zero
    int outputs = 1;              // vectors after the inputs, poisoned before each check
    int inplace = -1;             // >= 0: the result is written into this input (saxpy's y)
    int temps = 0;                // temporaries of the fusion-off form
    int iterations = 1;           // launches of the handwritten kernel per run (a stream's iterations)
    scalars s;                    // values with short decimal forms: Boost.Compute prints them in its source
    double bytes_per_element = 0; // the least a kernel must move
    bench::tolerance tol;
    reference_form reference = nullptr;
    std::string opencl; // __kernel k(vectors..., scalars..., uint n)
    loom_form expr = nullptr, stmts = nullptr, unfused = nullptr;
    // A stream: its statements with a finish after every iteration ("loom_finish_each").
    loom_form finish_each = nullptr;
    // The expression has multiply-adds: it also runs with fp_contract on ("loom_contract"),
    // the rounding the handwritten kernel gets from OpenCL's default FP_CONTRACT ON.
    bool multiply_adds = false;
    boost_form boost_compute = nullptr;

    int vector_count() const { return int(inputs.size()) + outputs; }
    std::vector<int> checked() const {
        if (inplace >= 0) return {inplace};
        std::vector<int> c;
        for (int o = 0; o < outputs; ++o) c.push_back(int(inputs.size()) + o);
        return c;
    }
    const float* host_input(int i, std::size_t n) const {
        return bench::random_floats(inputs[i].seed, inputs[i].lo, inputs[i].hi, n);
    }
};

// ---- the workloads -------------------------------------------------------------------------

const input x_in{1, 0.5f, 1.5f}, y_in{2, 0.5f, 1.5f}, b_in{3, 0.5f, 1.5f}, c_in{4, 0.5f, 1.5f};
const scalars chain_c{0.75f, 1.25f, 0.5f, 1.5f, 0.875f, 1.125f, 0.625f, 1.375f};

std::string chain_opencl(int depth) {
    std::string s = "__kernel void k(__global const float* restrict x, __global float* restrict z";
    for (int k = 0; k < depth; ++k) s += ", float c" + std::to_string(k);
    s += ", uint n) {\n    LOOM_EACH_ELEMENT(i) {\n"
         "        const float xi = x[i];\n        float t = xi;\n";
    for (int k = 0; k < depth; ++k) s += "        t = t * c" + std::to_string(k) + " + xi;\n";
    return s + "        z[i] = t;\n    }\n}\n";
}

template <int Depth>
void chain_reference(std::size_t b, std::size_t e, const float* const* in, float* const* out, const scalars& s) {
    for (std::size_t i = b; i < e; ++i) {
        float t = in[0][i];
        for (int k = 0; k < Depth; ++k) t = t * s[k] + in[0][i];
        out[0][i] = t;
    }
}

// Separate statements, t_k = t_{k-1} * c_k + x, each temporary dying as the next is made.
template <int Depth> void chain_stmts(vectors& v, vectors&, const scalars& s, loom::context& ctx) {
    loom::vector<float>&x = v[0], &z = v[1];
    if (Depth == 1) {
        z = x * s[0] + x;
        return;
    }
    loom::vector<float> t(ctx, x.size());
    t = x * s[0] + x;
    for (int k = 1; k < Depth - 1; ++k) {
        loom::vector<float> next(ctx, x.size());
        next = t * s[k] + x;
        t = std::move(next);
    }
    z = t * s[Depth - 1] + x;
}

// The same statements with persistent temporaries: what an eager library runs, one kernel each.
template <int Depth> void chain_unfused(vectors& v, vectors& tmp, const scalars& s, loom::context&) {
    loom::vector<float>&x = v[0], &z = v[1];
    if (Depth == 1) {
        z = x * s[0] + x;
        return;
    }
    tmp[0] = x * s[0] + x;
    for (int k = 1; k < Depth - 1; ++k) tmp[k] = tmp[k - 1] * s[k] + x;
    z = tmp[Depth - 2] * s[Depth - 1] + x;
}

template <int Depth> void chain_expr(vectors& v, vectors&, const scalars& c, loom::context&) {
    loom::vector<float>&x = v[0], &z = v[1];
    if constexpr (Depth == 1) z = x * c[0] + x;
    if constexpr (Depth == 2) z = (x * c[0] + x) * c[1] + x;
    if constexpr (Depth == 4) z = (((x * c[0] + x) * c[1] + x) * c[2] + x) * c[3] + x;
    if constexpr (Depth == 8)
        z = (((((((x * c[0] + x) * c[1] + x) * c[2] + x) * c[3] + x) * c[4] + x) * c[5] + x) * c[6] + x) * c[7] + x;
}

template <int Depth> void chain_boost(std::vector<bc::vector<float>>& v, const scalars& c, bc::command_queue& q) {
    using bc::lambda::_1;
    auto first = v[0].begin(), last = v[0].end(), out = v[1].begin();
    if constexpr (Depth == 1) bc::transform(first, last, out, _1 * c[0] + _1, q);
    if constexpr (Depth == 2) bc::transform(first, last, out, (_1 * c[0] + _1) * c[1] + _1, q);
    if constexpr (Depth == 4)
        bc::transform(first, last, out, (((_1 * c[0] + _1) * c[1] + _1) * c[2] + _1) * c[3] + _1, q);
    if constexpr (Depth == 8)
        bc::transform(first, last, out,
                      (((((((_1 * c[0] + _1) * c[1] + _1) * c[2] + _1) * c[3] + _1) * c[4] + _1) * c[5] + _1) * c[6] +
                       _1) * c[7] +
                          _1,
                      q);
}

template <int Depth> workload chain() {
    workload w;
    w.name = "chain" + std::to_string(Depth);
    w.multiply_adds = true;
    w.max_log2 = 24; // the 2^26 point of every chain would cost a minute of the full run's 15
    w.inputs = {x_in};
    w.temps = Depth - 1;
    w.s = scalars(chain_c.begin(), chain_c.begin() + Depth);
    w.bytes_per_element = 8;
    w.reference = chain_reference<Depth>;
    w.opencl = chain_opencl(Depth);
    w.expr = chain_expr<Depth>;
    w.stmts = chain_stmts<Depth>;
    w.unfused = chain_unfused<Depth>;
    w.boost_compute = chain_boost<Depth>;
    return w;
}

// Issue 4's chain: t1 = a*x; t2 = t1 + y; t3 = t2*t2; z = t3 - x. The 8-statement one goes on:
// t4 = t3 - x; t5 = b*t4; t6 = t5 + y; t7 = t6*t6; z = t7 - x.
template <int Statements> workload issue4_chain() {
    workload w;
    w.name = "issue4_chain" + std::to_string(Statements);
    w.multiply_adds = true;
    w.max_log2 = 24; // issue 4's targets are at 2^24
    w.inputs = {x_in, y_in};
    w.temps = Statements - 1;
    w.s = {2.5f, 0.5f};
    w.bytes_per_element = 12;
    w.reference = [](std::size_t b, std::size_t e, const float* const* in, float* const* out, const scalars& s) {
        for (std::size_t i = b; i < e; ++i) {
            const float x = in[0][i], y = in[1][i];
            const float t1 = s[0] * x, t2 = t1 + y, t3 = t2 * t2;
            if (Statements == 4) {
                out[0][i] = t3 - x;
            } else {
                const float t4 = t3 - x, t5 = s[1] * t4, t6 = t5 + y, t7 = t6 * t6;
                out[0][i] = t7 - x;
            }
        }
    };
    w.opencl = Statements == 4 ? R"(__kernel void k(__global const float* restrict x, __global const float* restrict y,
                __global float* restrict z, float a, float b, uint n) {
    LOOM_EACH_ELEMENT(i) {
        const float xi = x[i];
        const float t = a * xi + y[i];
        z[i] = t * t - xi;
    }
}
)"
                               : R"(__kernel void k(__global const float* restrict x, __global const float* restrict y,
                __global float* restrict z, float a, float b, uint n) {
    LOOM_EACH_ELEMENT(i) {
        const float xi = x[i], yi = y[i];
        const float t = a * xi + yi;
        const float u = b * (t * t - xi) + yi;
        z[i] = u * u - xi;
    }
}
)";
    w.expr = [](vectors& v, vectors&, const scalars& s, loom::context&) {
        loom::vector<float>&x = v[0], &y = v[1], &z = v[2];
        const float a = s[0], b = s[1];
        if (Statements == 4)
            z = (a * x + y) * (a * x + y) - x;
        else
            z = (b * ((a * x + y) * (a * x + y) - x) + y) * (b * ((a * x + y) * (a * x + y) - x) + y) - x;
    };
    w.stmts = [](vectors& v, vectors&, const scalars& s, loom::context& ctx) {
        loom::vector<float>&x = v[0], &y = v[1], &z = v[2];
        const std::size_t n = x.size();
        loom::vector<float> t1(ctx, n), t2(ctx, n), t3(ctx, n);
        t1 = s[0] * x;
        t2 = t1 + y;
        t3 = t2 * t2;
        if (Statements == 4) {
            z = t3 - x;
            return;
        }
        loom::vector<float> t4(ctx, n), t5(ctx, n), t6(ctx, n), t7(ctx, n);
        t4 = t3 - x;
        t5 = s[1] * t4;
        t6 = t5 + y;
        t7 = t6 * t6;
        z = t7 - x;
    };
    w.unfused = [](vectors& v, vectors& t, const scalars& s, loom::context&) {
        loom::vector<float>&x = v[0], &y = v[1], &z = v[2];
        t[0] = s[0] * x;
        t[1] = t[0] + y;
        t[2] = t[1] * t[1];
        if (Statements == 4) {
            z = t[2] - x;
            return;
        }
        t[3] = t[2] - x;
        t[4] = s[1] * t[3];
        t[5] = t[4] + y;
        t[6] = t[5] * t[5];
        z = t[6] - x;
    };
    w.boost_compute = [](std::vector<bc::vector<float>>& v, const scalars& s, bc::command_queue& q) {
        using bc::lambda::_1;
        using bc::lambda::_2;
        const float a = s[0], b = s[1];
        if (Statements == 4)
            bc::transform(v[0].begin(), v[0].end(), v[1].begin(), v[2].begin(), (a * _1 + _2) * (a * _1 + _2) - _1, q);
        else
            bc::transform(
                v[0].begin(), v[0].end(), v[1].begin(), v[2].begin(),
                (b * ((a * _1 + _2) * (a * _1 + _2) - _1) + _2) * (b * ((a * _1 + _2) * (a * _1 + _2) - _1) + _2) - _1,
                q);
    };
    return w;
}

// Issue 19's stream: ten iterations of issue 4's chain, each feeding the next through y
// (t1 = a*x; t2 = t1 + y; t3 = t2*t2; y = t3 - x), its temporaries made and dropped in the
// loop body. "loom_stmts" records all ten and finishes once: a flush limit that cuts the
// stream mid-iteration stores live temporaries. "loom_finish_each" finishes every iteration.
// The handwritten kernel is the fused iteration, launched ten times. Inputs keep y in [-1, 1].
constexpr int stream_iterations = 10;
template <bool FinishEach> void stream_stmts(vectors& v, vectors&, const scalars& s, loom::context& ctx) {
    loom::vector<float>&x = v[0], &y = v[1];
    for (int it = 0; it < stream_iterations; ++it) {
        {
            loom::vector<float> t1(ctx, x.size()), t2(ctx, x.size()), t3(ctx, x.size());
            t1 = s[0] * x;
            t2 = t1 + y;
            t3 = t2 * t2;
            y = t3 - x;
        }
        if (FinishEach) ctx.finish(); // the temporaries have died: none is stored
    }
}

workload stream_workload() {
    workload w;
    w.name = "issue19_stream";
    w.max_log2 = 24;
    w.inputs = {{5, 0.5f, 1.0f}, {6, -0.5f, 0.0f}};
    w.outputs = 0;
    w.inplace = 1;
    w.temps = 3;
    w.iterations = stream_iterations;
    w.s = {0.25f};
    w.bytes_per_element = 12 * stream_iterations;
    w.tol = {1e-4, 1e-5}; // ten rounds of the handwritten kernel's contracted a*x+y
    w.reference = [](std::size_t b, std::size_t e, const float* const* in, float* const* out, const scalars& s) {
        for (std::size_t i = b; i < e; ++i) {
            float y = in[1][i];
            for (int it = 0; it < stream_iterations; ++it) {
                const float t = s[0] * in[0][i] + y;
                y = t * t - in[0][i];
            }
            out[0][i] = y;
        }
    };
    w.opencl = R"(__kernel void k(__global const float* restrict x, __global float* restrict y, float a, uint n) {
    LOOM_EACH_ELEMENT(i) {
        const float xi = x[i];
        const float t = a * xi + y[i];
        y[i] = t * t - xi;
    }
}
)";
    w.stmts = stream_stmts<false>;
    w.finish_each = stream_stmts<true>;
    w.unfused = [](vectors& v, vectors& t, const scalars& s, loom::context&) {
        loom::vector<float>&x = v[0], &y = v[1];
        for (int it = 0; it < stream_iterations; ++it) {
            t[0] = s[0] * x;
            t[1] = t[0] + y;
            t[2] = t[1] * t[1];
            y = t[2] - x;
        }
    };
    return w;
}

workload copy_workload() {
    workload w;
    w.name = "copy";
    w.inputs = {x_in};
    w.bytes_per_element = 8;
    w.reference = [](std::size_t b, std::size_t e, const float* const* in, float* const* out, const scalars&) {
        for (std::size_t i = b; i < e; ++i) out[0][i] = in[0][i];
    };
    w.opencl = R"(__kernel void k(__global const float* restrict x, __global float* restrict y, uint n) {
    LOOM_EACH_ELEMENT(i) y[i] = x[i];
}
)";
    w.expr = [](vectors& v, vectors&, const scalars&, loom::context&) { v[1] = v[0]; };
    w.boost_compute = [](std::vector<bc::vector<float>>& v, const scalars&, bc::command_queue& q) {
        bc::copy(v[0].begin(), v[0].end(), v[1].begin(), q);
    };
    return w;
}

workload scale_workload() {
    workload w;
    w.name = "scale";
    w.inputs = {x_in};
    w.s = {2.5f};
    w.bytes_per_element = 8;
    w.reference = [](std::size_t b, std::size_t e, const float* const* in, float* const* out, const scalars& s) {
        for (std::size_t i = b; i < e; ++i) out[0][i] = s[0] * in[0][i];
    };
    w.opencl = R"(__kernel void k(__global const float* restrict x, __global float* restrict y, float a, uint n) {
    LOOM_EACH_ELEMENT(i) y[i] = a * x[i];
}
)";
    w.expr = [](vectors& v, vectors&, const scalars& s, loom::context&) { v[1] = s[0] * v[0]; };
    w.boost_compute = [](std::vector<bc::vector<float>>& v, const scalars& s, bc::command_queue& q) {
        using bc::lambda::_1;
        bc::transform(v[0].begin(), v[0].end(), v[1].begin(), s[0] * _1, q);
    };
    return w;
}

workload saxpy_workload() {
    workload w;
    w.name = "saxpy";
    w.multiply_adds = true;
    w.inputs = {x_in, y_in};
    w.outputs = 0;
    w.inplace = 1;
    w.s = {2.5f};
    w.bytes_per_element = 12;
    w.reference = [](std::size_t b, std::size_t e, const float* const* in, float* const* out, const scalars& s) {
        for (std::size_t i = b; i < e; ++i) out[0][i] = s[0] * in[0][i] + in[1][i];
    };
    w.opencl = R"(__kernel void k(__global const float* restrict x, __global float* restrict y, float a, uint n) {
    LOOM_EACH_ELEMENT(i) y[i] = a * x[i] + y[i];
}
)";
    w.expr = [](vectors& v, vectors&, const scalars& s, loom::context&) { v[1] = s[0] * v[0] + v[1]; };
    w.boost_compute = [](std::vector<bc::vector<float>>& v, const scalars& s, bc::command_queue& q) {
        using bc::lambda::_1;
        using bc::lambda::_2;
        bc::transform(v[0].begin(), v[0].end(), v[1].begin(), v[1].begin(), s[0] * _1 + _2, q);
    };
    return w;
}

workload triad_workload() {
    workload w;
    w.name = "triad";
    w.multiply_adds = true;
    w.inputs = {b_in, c_in};
    w.s = {2.5f};
    w.bytes_per_element = 12;
    w.reference = [](std::size_t b, std::size_t e, const float* const* in, float* const* out, const scalars& s) {
        for (std::size_t i = b; i < e; ++i) out[0][i] = in[0][i] + s[0] * in[1][i];
    };
    w.opencl = R"(__kernel void k(__global const float* restrict b, __global const float* restrict c,
                __global float* restrict a, float s, uint n) {
    LOOM_EACH_ELEMENT(i) a[i] = b[i] + s * c[i];
}
)";
    w.expr = [](vectors& v, vectors&, const scalars& s, loom::context&) { v[2] = v[0] + s[0] * v[1]; };
    w.boost_compute = [](std::vector<bc::vector<float>>& v, const scalars& s, bc::command_queue& q) {
        using bc::lambda::_1;
        using bc::lambda::_2;
        bc::transform(v[0].begin(), v[0].end(), v[1].begin(), v[2].begin(), _1 + s[0] * _2, q);
    };
    return w;
}

// Compute-bound: five transcendental calls per element, 8 bytes moved.
workload transcendental_workload() {
    workload w;
    w.name = "transcendental";
    // Compute-bound: 2^22 already fills the device (a run took 0.13 s at 7af0012); at 2^24 a
    // run took 0.5 s, and every variant ten of them and more.
    w.max_log2 = 22;
    w.inputs = {x_in};
    w.temps = 2;
    w.s = {0.5f};
    w.bytes_per_element = 8;
    w.tol = {5e-5, 1e-6};
    w.reference = [](std::size_t b, std::size_t e, const float* const* in, float* const* out, const scalars& s) {
        for (std::size_t i = b; i < e; ++i) {
            const float x = in[0][i];
            out[0][i] = std::sin(x) * std::exp(s[0] * x) + std::log(x) * std::sqrt(x) + std::cos(x);
        }
    };
    w.opencl = R"(__kernel void k(__global const float* restrict x, __global float* restrict y, float h, uint n) {
    LOOM_EACH_ELEMENT(i) {
        const float v = x[i];
        y[i] = sin(v) * exp(h * v) + log(v) * sqrt(v) + cos(v);
    }
}
)";
    w.expr = [](vectors& v, vectors&, const scalars& s, loom::context&) {
        loom::vector<float>&x = v[0], &y = v[1];
        y = loom::sin(x) * loom::exp(s[0] * x) + loom::log(x) * loom::sqrt(x) + loom::cos(x);
    };
    w.stmts = [](vectors& v, vectors&, const scalars& s, loom::context& ctx) {
        loom::vector<float>&x = v[0], &y = v[1];
        loom::vector<float> t0(ctx, x.size()), t1(ctx, x.size());
        t0 = loom::sin(x) * loom::exp(s[0] * x);
        t1 = loom::log(x) * loom::sqrt(x);
        y = t0 + t1 + loom::cos(x);
    };
    w.unfused = [](vectors& v, vectors& t, const scalars& s, loom::context&) {
        loom::vector<float>&x = v[0], &y = v[1];
        t[0] = loom::sin(x) * loom::exp(s[0] * x);
        t[1] = loom::log(x) * loom::sqrt(x);
        y = t[0] + t[1] + loom::cos(x);
    };
    w.boost_compute = [](std::vector<bc::vector<float>>& v, const scalars& s, bc::command_queue& q) {
        using bc::lambda::_1;
        namespace l = bc::lambda;
        bc::transform(v[0].begin(), v[0].end(), v[1].begin(),
                      l::sin(_1) * l::exp(s[0] * _1) + l::log(_1) * l::sqrt(_1) + l::cos(_1), q);
    };
    return w;
}

// Black-Scholes call and put from S, X, T (float, CND through erf). Scalars: -r, sigma,
// r + sigma^2/2, 1/sqrt(2).
workload black_scholes_workload() {
    workload w;
    w.name = "blackscholes";
    w.multiply_adds = true;
    w.max_log2 = 22; // compute-bound, as transcendental: a run took 0.29 s at 2^22, 1.1 s at 2^24
    w.inputs = {{10, 5.0f, 30.0f}, {11, 1.0f, 100.0f}, {12, 0.25f, 10.0f}};
    w.outputs = 2;
    w.temps = 6;
    w.s = {-0.02f, 0.3f, 0.065f, 0.70710678f};
    w.bytes_per_element = 20;
    w.tol = {1e-4, 2e-3};
    w.reference = [](std::size_t b, std::size_t e, const float* const* in, float* const* out, const scalars& s) {
        const float nr = s[0], vol = s[1], mu = s[2], k = s[3];
        for (std::size_t i = b; i < e; ++i) {
            const float S = in[0][i], X = in[1][i], T = in[2][i];
            const float sqrtT = std::sqrt(T);
            const float d1 = (std::log(S / X) + mu * T) / (vol * sqrtT);
            const float d2 = d1 - vol * sqrtT;
            const float ertx = X * std::exp(nr * T);
            const float nd1 = 0.5f + 0.5f * std::erf(d1 * k), nd2 = 0.5f + 0.5f * std::erf(d2 * k);
            out[0][i] = S * nd1 - ertx * nd2;
            out[1][i] = ertx * (1.0f - nd2) - S * (1.0f - nd1);
        }
    };
    w.opencl = R"(__kernel void k(__global const float* restrict S, __global const float* restrict X,
                __global const float* restrict T, __global float* restrict call, __global float* restrict put,
                float nr, float vol, float mu, float k, uint n) {
    LOOM_EACH_ELEMENT(i) {
        const float s = S[i], x = X[i], t = T[i];
        const float sqrtT = sqrt(t);
        const float d1 = (log(s / x) + mu * t) / (vol * sqrtT);
        const float d2 = d1 - vol * sqrtT;
        const float ertx = x * exp(nr * t);
        const float nd1 = 0.5f + 0.5f * erf(d1 * k), nd2 = 0.5f + 0.5f * erf(d2 * k);
        call[i] = s * nd1 - ertx * nd2;
        put[i] = ertx * (1.0f - nd2) - s * (1.0f - nd1);
    }
}
)";
    w.expr = [](vectors& v, vectors&, const scalars& s, loom::context&) {
        loom::vector<float>&S = v[0], &X = v[1], &T = v[2];
        const float nr = s[0], vol = s[1], mu = s[2], k = s[3];
        // One expression per output; the shared terms are common sub-expressions.
        v[3] = S * (0.5f + 0.5f * loom::erf((loom::log(S / X) + mu * T) / (vol * loom::sqrt(T)) * k)) -
               X * loom::exp(nr * T) *
                   (0.5f +
                    0.5f * loom::erf(((loom::log(S / X) + mu * T) / (vol * loom::sqrt(T)) - vol * loom::sqrt(T)) * k));
        v[4] =
            X * loom::exp(nr * T) *
                (1.0f -
                 (0.5f +
                  0.5f * loom::erf(((loom::log(S / X) + mu * T) / (vol * loom::sqrt(T)) - vol * loom::sqrt(T)) * k))) -
            S * (1.0f - (0.5f + 0.5f * loom::erf((loom::log(S / X) + mu * T) / (vol * loom::sqrt(T)) * k)));
    };
    w.stmts = [](vectors& v, vectors&, const scalars& s, loom::context& ctx) {
        loom::vector<float>&S = v[0], &X = v[1], &T = v[2];
        const float nr = s[0], vol = s[1], mu = s[2], k = s[3];
        const std::size_t n = S.size();
        loom::vector<float> sqrtT(ctx, n), d1(ctx, n), d2(ctx, n), ertx(ctx, n), nd1(ctx, n), nd2(ctx, n);
        sqrtT = loom::sqrt(T);
        d1 = (loom::log(S / X) + mu * T) / (vol * sqrtT);
        d2 = d1 - vol * sqrtT;
        ertx = X * loom::exp(nr * T);
        nd1 = 0.5f + 0.5f * loom::erf(d1 * k);
        nd2 = 0.5f + 0.5f * loom::erf(d2 * k);
        v[3] = S * nd1 - ertx * nd2;
        v[4] = ertx * (1.0f - nd2) - S * (1.0f - nd1);
    };
    w.unfused = [](vectors& v, vectors& t, const scalars& s, loom::context&) {
        loom::vector<float>&S = v[0], &X = v[1], &T = v[2];
        const float nr = s[0], vol = s[1], mu = s[2], k = s[3];
        t[0] = loom::sqrt(T);
        t[1] = (loom::log(S / X) + mu * T) / (vol * t[0]);
        t[2] = t[1] - vol * t[0];
        t[3] = X * loom::exp(nr * T);
        t[4] = 0.5f + 0.5f * loom::erf(t[1] * k);
        t[5] = 0.5f + 0.5f * loom::erf(t[2] * k);
        v[3] = S * t[4] - t[3] * t[5];
        v[4] = t[3] * (1.0f - t[5]) - S * (1.0f - t[4]);
    };
    // Boost.Compute's transform takes at most two input ranges; three inputs and two outputs
    // need a zip iterator and a function written as source text, which is not its lambda
    // front end any more: not measured.
    return w;
}

const std::vector<workload>& workloads() {
    static const std::vector<workload> all = {
        copy_workload(),
        scale_workload(),
        saxpy_workload(),
        triad_workload(),
        chain<1>(),
        chain<2>(),
        chain<4>(),
        chain<8>(),
        issue4_chain<4>(),
        issue4_chain<8>(),
        transcendental_workload(),
        black_scholes_workload(),
        stream_workload(),
    };
    return all;
}

// ---- references and checks -------------------------------------------------------------------

// The host reference of the current workload at its largest size; smaller sizes use a prefix
// (inputs are prefixes of one random pool). One workload's reference is kept at a time.
const std::vector<std::vector<float>>& reference(const workload& w) {
    static std::string name;
    static std::vector<std::vector<float>> ref;
    if (name != w.name) {
        ref.clear();
        const std::size_t n = std::size_t(1) << std::min(w.max_log2, bench::max_log2());
        std::vector<const float*> in(w.vector_count(), nullptr);
        for (std::size_t i = 0; i < w.inputs.size(); ++i) in[i] = w.host_input(int(i), n);
        const std::vector<int> checked = w.checked();
        ref.assign(checked.size(), std::vector<float>(n));
        std::vector<float*> out;
        for (auto& r : ref) out.push_back(r.data());
        bench::parallel_for(n, [&](std::size_t b, std::size_t e) { w.reference(b, e, in.data(), out.data(), w.s); });
        name = w.name;
    }
    return ref;
}

// Compares every checked vector; `read(v)` returns vector v's contents.
template <class Read> std::string check_outputs(const workload& w, std::size_t n, Read&& read) {
    const auto& ref = reference(w);
    const std::vector<int> checked = w.checked();
    for (std::size_t c = 0; c < checked.size(); ++c) {
        const std::vector<float> got = read(checked[c]);
        std::string message = bench::compare(got.data(), ref[c].data(), n, w.tol);
        if (!message.empty()) return "output " + std::to_string(checked[c]) + ": " + message;
    }
    return {};
}

std::string instance_key(const workload& w, const std::string& variant, std::size_t n) {
    return w.name + "/" + variant + "/" + std::to_string(n);
}

// ---- the variants -------------------------------------------------------------------------------

struct loom_instance {
    std::string error;
    loom::context* ctx = nullptr;
    vectors v, tmp;
};

// The prepared instance's run (the form's statements and a finish), or an empty function after
// reporting why the instance failed its check.
std::function<void()> loom_run(benchmark::State& state, const workload& w, loom_form form, bool fused,
                               const std::string& variant, bool fp_contract = false) {
    const std::size_t n = std::size_t(state.range(0));
    auto& p = bench::prepared<loom_instance>(instance_key(w, variant, n), [&] {
        auto p = std::make_unique<loom_instance>();
        try {
            loom::context& ctx = bench::loom_context(fused, fp_contract);
            p->ctx = &ctx;
            for (std::size_t i = 0; i < w.inputs.size(); ++i) {
                const float* host = w.host_input(int(i), n);
                p->v.emplace_back(ctx, host, host + n);
            }
            for (int o = 0; o < w.outputs; ++o) {
                p->v.emplace_back(ctx, n);
                loom::copy(bench::poison(n), p->v.back());
            }
            for (int t = 0; t < w.temps && !fused; ++t) p->tmp.emplace_back(ctx, n);
            form(p->v, p->tmp, w.s, ctx);
            ctx.finish();
            p->error = check_outputs(w, n, [&](int v) { return p->v[v].to_host(); });
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = instance_key(w, variant, n) + ": " + p->error;
        return p;
    });
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return {};
    }
    return [pp = &p, form, s = &w.s] {
        form(pp->v, pp->tmp, *s, *pp->ctx);
        pp->ctx->finish();
    };
}

void run_loom(benchmark::State& state, const workload& w, loom_form form, bool fused, const std::string& variant,
              bool fp_contract = false) {
    const std::function<void()> run = loom_run(state, w, form, fused, variant, fp_contract);
    if (!run) return;
    bench::time_loop(state, run);
    bench::set_bytes(state, w.bytes_per_element * double(state.range(0)));
}

struct opencl_instance {
    std::string error;
    std::vector<cl::Buffer> buffers;
    bench::ocl::shaped_kernel tuned; // the fastest shape and geometry
};

// The tuned kernel's run (launch and finish), as loom_run.
std::function<void()> handwritten_run(benchmark::State& state, const workload& w) {
    const std::size_t n = std::size_t(state.range(0));
    auto& env = bench::ocl::env();
    auto& p = bench::prepared<opencl_instance>(instance_key(w, "handwritten", n), [&] {
        auto p = std::make_unique<opencl_instance>();
        try {
            for (std::size_t i = 0; i < w.inputs.size(); ++i)
                p->buffers.push_back(bench::ocl::upload(w.host_input(int(i), n), n));
            for (int o = 0; o < w.outputs; ++o) p->buffers.push_back(bench::ocl::allocate(n));
            p->tuned = bench::ocl::tune_shapes(instance_key(w, "handwritten", n), w.opencl, "k", n, [&](cl::Kernel& k) {
                cl_uint a = 0;
                for (const cl::Buffer& b : p->buffers) k.setArg(a++, b);
                for (float s : w.s) k.setArg(a++, s);
                k.setArg(a++, cl_uint(n));
            });
            // The check runs the tuned shape on fresh inputs and poisoned outputs.
            if (w.inplace >= 0)
                env.queue.enqueueWriteBuffer(p->buffers[w.inplace], CL_TRUE, 0, n * sizeof(float),
                                             w.host_input(w.inplace, n));
            for (int o = 0; o < w.outputs; ++o) bench::ocl::fill_nan(p->buffers[w.inputs.size() + o], n);
            for (int it = 0; it < w.iterations; ++it) bench::ocl::enqueue(p->tuned.kernel, n, p->tuned.launch);
            env.queue.finish();
            p->error = check_outputs(w, n, [&](int v) { return bench::ocl::download(p->buffers[v], n); });
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = instance_key(w, "handwritten", n) + ": " + p->error;
        return p;
    });
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return {};
    }
    state.SetLabel(p.tuned.tuned.summary);
    state.counters["wg"] = double(p.tuned.launch.group);
    state.counters["chunked"] = p.tuned.launch.form == bench::ocl::shape::chunked ? 1.0 : 0.0;
    return [kernel = p.tuned.kernel, n, launch = p.tuned.launch, iterations = w.iterations, &env] {
        for (int it = 0; it < iterations; ++it) bench::ocl::enqueue(kernel, n, launch);
        env.queue.finish();
    };
}

void run_handwritten(benchmark::State& state, const workload& w) {
    const std::function<void()> run = handwritten_run(state, w);
    if (!run) return;
    bench::time_loop(state, run);
    bench::set_bytes(state, w.bytes_per_element * double(state.range(0)));
}

// One of Loom's forms (the expression, or the statements fused) and the tuned kernel, run by
// run (bench::time_interleaved). Issue 4 compares the two forms: timed apart, their ratio at
// 2^24 moved between 0.86 and 1.14 over two runs of identical kernels.
void run_interleaved(benchmark::State& state, const workload& w, loom_form form, const char* variant,
                     bool fp_contract = false) {
    const bench::own_instances fresh; // both made anew for the pair
    const std::function<void()> hand = handwritten_run(state, w),
                                loom = loom_run(state, w, form, true, variant, fp_contract);
    if (!hand || !loom) return;
    bench::time_interleaved(state, loom, hand);
    bench::set_bytes(state, w.bytes_per_element * double(state.range(0)));
}

// The device copy bandwidth: clEnqueueCopyBuffer, the reference line of the throughput plots.
void run_copybuffer(benchmark::State& state, const workload& w) {
    const std::size_t n = std::size_t(state.range(0));
    auto& env = bench::ocl::env();
    auto& p = bench::prepared<opencl_instance>(instance_key(w, "copybuffer", n), [&] {
        auto p = std::make_unique<opencl_instance>();
        p->buffers.push_back(bench::ocl::upload(w.host_input(0, n), n));
        p->buffers.push_back(bench::ocl::allocate(n));
        bench::ocl::fill_nan(p->buffers[1], n);
        bench::ocl::copy_buffer(p->buffers[0], p->buffers[1], n);
        env.queue.finish();
        p->error = check_outputs(w, n, [&](int v) { return bench::ocl::download(p->buffers[v], n); });
        return p;
    });
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    bench::time_loop(state, [&] {
        bench::ocl::copy_buffer(p.buffers[0], p.buffers[1], n);
        env.queue.finish();
    });
    bench::set_bytes(state, w.bytes_per_element * double(n));
}

struct boost_instance {
    std::string error;
    bc::command_queue queue;
    std::vector<bc::vector<float>> v;
};

void run_boost(benchmark::State& state, const workload& w) {
    const std::size_t n = std::size_t(state.range(0));
    auto& p = bench::prepared<boost_instance>(instance_key(w, "boost_compute", n), [&] {
        auto p = std::make_unique<boost_instance>();
        try {
            auto& env = bench::ocl::env();
            p->queue = bc::command_queue(env.queue());
            const bc::context context(env.context());
            for (std::size_t i = 0; i < w.inputs.size(); ++i) {
                const float* host = w.host_input(int(i), n);
                p->v.emplace_back(n, context);
                bc::copy(host, host + n, p->v.back().begin(), p->queue);
            }
            for (int o = 0; o < w.outputs; ++o) {
                p->v.emplace_back(n, context);
                bc::copy(bench::poison(n).begin(), bench::poison(n).end(), p->v.back().begin(), p->queue);
            }
            w.boost_compute(p->v, w.s, p->queue);
            p->queue.finish();
            p->error = check_outputs(w, n, [&](int v) {
                std::vector<float> host(n);
                bc::copy(p->v[v].begin(), p->v[v].end(), host.begin(), p->queue);
                return host;
            });
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = instance_key(w, "boost_compute", n) + ": " + p->error;
        return p;
    });
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    bench::time_loop(state, [&] {
        w.boost_compute(p.v, w.s, p.queue);
        p.queue.finish();
    });
    bench::set_bytes(state, w.bytes_per_element * double(n));
}

void register_all() {
    for (const workload& w : workloads()) {
        const std::vector<std::int64_t> n = bench::sizes(10, w.max_log2);
        const workload* p = &w;
        if (w.expr)
            bench::add(
                w.name + "/loom_expr", [p](benchmark::State& s) { run_loom(s, *p, p->expr, true, "loom_expr"); }, n);
        if (w.expr && w.multiply_adds)
            bench::add(
                w.name + "/loom_contract",
                [p](benchmark::State& s) { run_loom(s, *p, p->expr, true, "loom_contract", true); }, n);
        if (w.stmts)
            bench::add(
                w.name + "/loom_stmts", [p](benchmark::State& s) { run_loom(s, *p, p->stmts, true, "loom_stmts"); }, n);
        if (w.finish_each)
            bench::add(
                w.name + "/loom_finish_each",
                [p](benchmark::State& s) { run_loom(s, *p, p->finish_each, true, "loom_finish_each"); }, n);
        if (w.unfused)
            bench::add(
                w.name + "/loom_unfused",
                [p](benchmark::State& s) { run_loom(s, *p, p->unfused, false, "loom_unfused"); }, n);
        bench::add(
            w.name + "/handwritten", [p](benchmark::State& s) { run_handwritten(s, *p); }, n);
        if (w.expr)
            bench::add_interleaved(
                w.name, [p](benchmark::State& s) { run_interleaved(s, *p, p->expr, "loom_expr"); }, w.max_log2);
        if (w.stmts)
            bench::add_interleaved(
                w.name, [p](benchmark::State& s) { run_interleaved(s, *p, p->stmts, "loom_stmts"); }, w.max_log2,
                "interleaved_stmts");
        // The rounding the handwritten kernel has (OpenCL's default FP_CONTRACT ON), run by run.
        if (w.expr && w.multiply_adds)
            bench::add_interleaved(
                w.name, [p](benchmark::State& s) { run_interleaved(s, *p, p->expr, "loom_contract", true); },
                w.max_log2, "interleaved_contract");
        if (w.name == "copy")
            bench::add(
                "copy/copybuffer", [p](benchmark::State& s) { run_copybuffer(s, *p); }, n);
        if (w.boost_compute)
            bench::add(
                w.name + "/boost_compute", [p](benchmark::State& s) { run_boost(s, *p); }, n);
    }
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
