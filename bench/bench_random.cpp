// Random numbers (issue 36, docs/random.md). Two workloads:
// - normal: y = 1 + 2 * N(0, 1) for n elements, as Loom writes it (one statement with a
//   loom::random_normal<float> draw), as a handwritten OpenCL kernel with the same Philox4x32-10
//   and Box-Muller (tuned over shapes: one work-item per element in each work-group size, and
//   contiguous chunks), and as Boost.Compute (its default_random_engine, a Mersenne Twister, and
//   normal_distribution with mean 1 and standard deviation 2): what a Boost.Compute user writes.
// - pi: the count of n points of the unit square inside the quarter circle (examples/
//   monte_carlo_pi.cpp), Loom's one fused reduction over loom::index(ctx, n) against a
//   handwritten kernel that counts per work-item and adds with atomics.
// Loom and the handwritten kernel compute the same numbers and are checked against each other
// and against a host Philox; Boost.Compute's numbers differ (another generator), so its
// output is checked by its mean and variance.
#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/container/vector.hpp>
#include <boost/compute/random/default_random_engine.hpp>
#include <boost/compute/random/normal_distribution.hpp>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness.hpp"
#include "opencl_baseline.hpp"
#include "shaped_launches.hpp"

namespace {

namespace bc = boost::compute;
constexpr std::uint64_t seed = 20261128;

std::string key(const std::string& workload, const std::string& variant, std::size_t n) {
    return "random/" + workload + "/" + variant + "/" + std::to_string(n);
}

// ---- the generator, written once for the handwritten kernels and the host --------------------

// Philox4x32-10 of the counter (i, 0, stream, 0) under the key (seed lo, seed hi), in OpenCL C,
// written on four scalar words as Loom's generator is; host_philox is the same on the host.
const char* philox_source = R"(
#define M0 0xD2511F53u
#define M1 0xCD9E8D57u
// The first two words, which the float draws use; the rounds on four scalars.
inline uint2 philox(uint i, uint stream, uint k0, uint k1) {
    uint w0 = i, w1 = 0u, w2 = stream, w3 = 0u;
    for (int round = 0; round < 10; ++round) {
        if (round > 0) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
        const uint hi0 = mul_hi(M0, w0), lo0 = M0 * w0, hi1 = mul_hi(M1, w2), lo1 = M1 * w2;
        w0 = hi1 ^ w1 ^ k0; w1 = lo1; w2 = hi0 ^ w3 ^ k1; w3 = lo0;
    }
    return (uint2)(w0, w1);
}
inline float normal_of(uint2 w) {
    const float u1 = (float)((w.x >> 8) + 1u) * 5.9604644775390625e-8f, u2 = (float)(w.y >> 8) * 5.9604644775390625e-8f;
    return sqrt(-2.0f * log(u1)) * cos(6.28318548f * u2);
}
inline float uniform_of(uint2 w) { return (float)(w.x >> 8) * 5.9604644775390625e-8f; }
)";

struct words {
    std::uint32_t w[4];
};
words host_philox(std::uint32_t i, std::uint32_t stream) {
    std::uint32_t w0 = i, w1 = 0, w2 = stream, w3 = 0, k0 = std::uint32_t(seed), k1 = std::uint32_t(seed >> 32);
    for (int round = 0; round < 10; ++round) {
        if (round > 0) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        const std::uint64_t p0 = std::uint64_t(0xD2511F53u) * w0, p1 = std::uint64_t(0xCD9E8D57u) * w2;
        const std::uint32_t n0 = std::uint32_t(p1 >> 32) ^ w1 ^ k0, n2 = std::uint32_t(p0 >> 32) ^ w3 ^ k1;
        w1 = std::uint32_t(p1);
        w3 = std::uint32_t(p0);
        w0 = n0;
        w2 = n2;
    }
    return {{w0, w1, w2, w3}};
}
float host_normal(std::uint32_t i) {
    const words w = host_philox(i, 0);
    const float u1 = float((w.w[0] >> 8) + 1u) * 0x1p-24f, u2 = float(w.w[1] >> 8) * 0x1p-24f;
    return 1.0f + 2.0f * (std::sqrt(-2.0f * std::log(u1)) * std::cos(6.28318548f * u2));
}
// The host's count for n points, computed once per n.
std::uint64_t host_inside(std::size_t n) {
    static std::map<std::size_t, std::uint64_t> counted;
    if (auto it = counted.find(n); it != counted.end()) return it->second;
    std::atomic<std::uint64_t> count{0};
    bench::parallel_for(n, [&](std::size_t b, std::size_t e) {
        std::uint64_t part = 0;
        for (std::size_t i = b; i < e; ++i) {
            const float x = float(host_philox(std::uint32_t(i), 0).w[0] >> 8) * 0x1p-24f;
            const float y = float(host_philox(std::uint32_t(i), 1).w[0] >> 8) * 0x1p-24f;
            part += x * x + y * y <= 1.0f;
        }
        count += part;
    });
    return counted[n] = count.load();
}

// Element by element against the host, within the device's log and cos (a few ulps of 1 + 2z).
std::string check_normal(const std::vector<float>& got) {
    std::atomic<std::size_t> bad{0};
    bench::parallel_for(got.size(), [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) {
            const float want = host_normal(std::uint32_t(i));
            if (!(std::fabs(got[i] - want) <= 1e-5f * std::max(1.0f, std::fabs(want)))) ++bad;
        }
    });
    return bad ? std::to_string(bad.load()) + " of " + std::to_string(got.size()) + " normals differ from the host's"
               : "";
}

// A sample of another generator: its mean and variance within five standard errors of 1 and 4.
std::string check_moments(const std::vector<float>& got) {
    double sum = 0, squares = 0;
    for (float v : got) sum += v;
    const double mean = sum / double(got.size());
    for (float v : got) squares += (v - mean) * (v - mean);
    const double variance = squares / double(got.size());
    const double se = 2.0 / std::sqrt(double(got.size()));
    if (std::fabs(mean - 1.0) <= 5 * se && std::fabs(variance - 4.0) <= 5 * 4.0 * std::sqrt(2.0 / double(got.size())))
        return {};
    return "mean " + std::to_string(mean) + " and variance " + std::to_string(variance) + " are not N(1, 4)'s";
}

// ---- normal --------------------------------------------------------------------------------

struct loom_normal {
    std::string error;
    loom::context* ctx = nullptr;
    std::unique_ptr<loom::vector<float>> y;
    void once() {
        *y = 1.0f + 2.0f * loom::random_normal<float>(seed);
        ctx->finish();
    }
};

loom_normal& prepare_loom_normal(std::size_t n) {
    return bench::prepared<loom_normal>(key("normal", "loom", n), [&] {
        auto p = std::make_unique<loom_normal>();
        try {
            p->ctx = &bench::loom_context(true);
            p->y = std::make_unique<loom::vector<float>>(*p->ctx, bench::poison(n));
            p->once();
            p->error = check_normal(p->y->to_host());
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key("normal", "loom", n) + ": " + p->error;
        return p;
    });
}

const char* normal_kernel = R"(
__kernel void k(__global float* restrict y, uint stream, uint k0, uint k1, uint n) {
    LOOM_EACH_ELEMENT(i) y[i] = 1.0f + 2.0f * normal_of(philox(i, stream, k0, k1));
}
)";

struct handwritten_normal {
    std::string error;
    cl::Buffer y;
    bench::ocl::tuned_launches tuned;
    void once() { bench::ocl::run_launch(tuned.best()); }
};

// One launch per shape: per element in each work-group size, and chunked.
std::vector<bench::ocl::named_launch> shaped(const std::string& body, const std::function<void(cl::Kernel&)>& bind,
                                             std::size_t n) {
    std::vector<bench::ocl::named_launch> launches;
    for (bench::ocl::shape s : {bench::ocl::shape::per_element, bench::ocl::shape::chunked}) {
        cl::Kernel k = bench::ocl::kernel(bench::ocl::shaped_source(philox_source + body, s), "k");
        bind(k);
        if (s == bench::ocl::shape::per_element)
            bench::ocl::add_group_sizes(launches, k, "elem", n);
        else
            bench::ocl::add_chunked(launches, k, "chunk", n);
    }
    return launches;
}

handwritten_normal& prepare_handwritten_normal(std::size_t n) {
    return bench::prepared<handwritten_normal>(key("normal", "handwritten", n), [&] {
        auto p = std::make_unique<handwritten_normal>();
        try {
            p->y = bench::ocl::allocate(n);
            const auto bind = [&](cl::Kernel& k) {
                k.setArg(0, p->y);
                k.setArg(1, cl_uint(0));
                k.setArg(2, cl_uint(std::uint32_t(seed)));
                k.setArg(3, cl_uint(std::uint32_t(seed >> 32)));
                k.setArg(4, cl_uint(n));
            };
            p->tuned = bench::ocl::check_and_tune(
                key("normal", "handwritten", n), shaped(normal_kernel, bind, n), [&](const bench::ocl::named_launch& l) {
                    bench::ocl::fill_nan(p->y, n);
                    bench::ocl::run_launch(l);
                    return check_normal(bench::ocl::download(p->y, n));
                });
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key("normal", "handwritten", n) + ": " + p->error;
        return p;
    });
}

struct boost_normal {
    std::string error;
    bc::command_queue queue{bench::ocl::env().queue()};
    std::unique_ptr<bc::default_random_engine> engine;
    std::unique_ptr<bc::vector<float>> y;
    void once() {
        bc::normal_distribution<float> distribution(1.0f, 2.0f);
        distribution.generate(y->begin(), y->end(), *engine, queue);
        queue.finish();
    }
};

boost_normal& prepare_boost_normal(std::size_t n) {
    return bench::prepared<boost_normal>(key("normal", "boost_compute", n), [&] {
        auto p = std::make_unique<boost_normal>();
        try {
            p->engine = std::make_unique<bc::default_random_engine>(p->queue, std::uint32_t(seed));
            p->y = std::make_unique<bc::vector<float>>(n, p->queue.get_context());
            p->once();
            std::vector<float> host(n);
            bc::copy(p->y->begin(), p->y->end(), host.begin(), p->queue);
            p->error = check_moments(host);
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key("normal", "boost_compute", n) + ": " + p->error;
        return p;
    });
}

// ---- pi ------------------------------------------------------------------------------------

struct loom_pi {
    std::string error;
    loom::context* ctx = nullptr;
    std::size_t n = 0;
    std::uint64_t inside = 0;
    void once() {
        const auto i = loom::index(*ctx, n);
        const auto x = loom::random_uniform<float>(i, seed, 0), y = loom::random_uniform<float>(i, seed, 1);
        inside = loom::count(x * x + y * y <= 1.0f); // reads the count back: the finish
    }
};

loom_pi& prepare_loom_pi(std::size_t n) {
    return bench::prepared<loom_pi>(key("pi", "loom", n), [&] {
        auto p = std::make_unique<loom_pi>();
        try {
            p->ctx = &bench::loom_context(true);
            p->n = n;
            p->once();
            if (p->inside != host_inside(n))
                p->error = "counted " + std::to_string(p->inside) + ", the host " + std::to_string(host_inside(n));
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key("pi", "loom", n) + ": " + p->error;
        return p;
    });
}

// Each work-item counts its points, then adds its count to the total with one atomic.
const char* pi_kernel = R"(
__kernel void k(__global uint* restrict total, uint k0, uint k1, uint n) {
    uint count = 0;
    LOOM_EACH_ELEMENT(i) {
        const float x = uniform_of(philox(i, 0u, k0, k1)), y = uniform_of(philox(i, 1u, k0, k1));
        count += x * x + y * y <= 1.0f;
    }
    if (count) atomic_add(total, count);
}
)";

// Zeroes the total, runs the launch and reads the count back.
std::uint32_t count_with(const cl::Buffer& total, const bench::ocl::named_launch& l) {
    const cl_uint zero = 0;
    cl_uint inside = 0;
    bench::ocl::env().queue.enqueueWriteBuffer(total, CL_FALSE, 0, sizeof zero, &zero);
    bench::ocl::launch(l.kernel, l.global, l.local);
    bench::ocl::env().queue.enqueueReadBuffer(total, CL_TRUE, 0, sizeof inside, &inside);
    return inside;
}

struct handwritten_pi {
    std::string error;
    cl::Buffer total;
    bench::ocl::tuned_launches tuned;
    std::uint32_t inside = 0;
    void once() { inside = count_with(total, tuned.best()); }
};

handwritten_pi& prepare_handwritten_pi(std::size_t n) {
    return bench::prepared<handwritten_pi>(key("pi", "handwritten", n), [&] {
        auto p = std::make_unique<handwritten_pi>();
        try {
            p->total = cl::Buffer(bench::ocl::env().context, CL_MEM_READ_WRITE, sizeof(cl_uint));
            const auto bind = [&](cl::Kernel& k) {
                k.setArg(0, p->total);
                k.setArg(1, cl_uint(std::uint32_t(seed)));
                k.setArg(2, cl_uint(std::uint32_t(seed >> 32)));
                k.setArg(3, cl_uint(n));
            };
            const std::uint64_t want = host_inside(n);
            p->tuned = bench::ocl::check_and_tune(
                key("pi", "handwritten", n), shaped(pi_kernel, bind, n), [&](const bench::ocl::named_launch& l) {
                    const std::uint32_t inside = count_with(p->total, l);
                    return inside == want ? std::string() : "counted " + std::to_string(inside);
                });
        } catch (const std::exception& e) {
            p->error = e.what();
        }
        if (!p->error.empty()) p->error = key("pi", "handwritten", n) + ": " + p->error;
        return p;
    });
}

// ---- registration --------------------------------------------------------------------------

template <class Instance> void timed(benchmark::State& state, Instance& p) {
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    bench::time_loop(state, [&] { p.once(); });
    state.counters["draws/s"] = benchmark::Counter(double(state.range(0)), benchmark::Counter::kIsIterationInvariantRate);
}

void register_all() {
    const std::vector<std::int64_t> n = bench::sizes(16, 24, 4);
    bench::add(
        "random/normal/loom", [](benchmark::State& s) { timed(s, prepare_loom_normal(std::size_t(s.range(0)))); }, n);
    bench::add(
        "random/normal/handwritten",
        [](benchmark::State& s) { timed(s, prepare_handwritten_normal(std::size_t(s.range(0)))); }, n);
    bench::add(
        "random/normal/boost_compute",
        [](benchmark::State& s) { timed(s, prepare_boost_normal(std::size_t(s.range(0)))); }, n);
    bench::add(
        "random/pi/loom", [](benchmark::State& s) { timed(s, prepare_loom_pi(std::size_t(s.range(0)))); }, n);
    bench::add(
        "random/pi/handwritten", [](benchmark::State& s) { timed(s, prepare_handwritten_pi(std::size_t(s.range(0)))); },
        n);
    for (const char* workload : {"normal", "pi"}) {
        const bool normal = std::string(workload) == "normal";
        bench::add_interleaved(
            std::string("random/") + workload,
            [normal](benchmark::State& s) {
                const bench::own_instances own;
                const std::size_t size = std::size_t(s.range(0));
                if (normal)
                    bench::time_interleaved_instances(s, prepare_loom_normal(size), prepare_handwritten_normal(size));
                else
                    bench::time_interleaved_instances(s, prepare_loom_pi(size), prepare_handwritten_pi(size));
            },
            24);
    }
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
