// The shared benchmark harness (see harness.hpp).
#include "harness.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>

#include "opencl_baseline.hpp"

#ifndef LOOM_BENCH_VERSION
#define LOOM_BENCH_VERSION "unknown"
#endif
#ifndef LOOM_BENCH_COMPILER
#define LOOM_BENCH_COMPILER "unknown"
#endif

namespace bench {
namespace {

int max_log2_value = -1;

double statistic_min(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }
double statistic_max(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

// splitmix64: a fast, well-mixed stream; each block of the pool starts from its own state.
std::uint64_t splitmix(std::uint64_t& s) {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

} // namespace

int max_log2() {
    if (max_log2_value < 0) {
        const char* v = std::getenv("LOOM_BENCH_MAX_LOG2");
        max_log2_value = v && *v ? std::atoi(v) : 26;
    }
    return max_log2_value;
}

std::vector<std::int64_t> sizes(int lo, int hi, int step) {
    std::vector<std::int64_t> out;
    const int top = std::min(hi, max_log2());
    for (int l = lo; l <= top; l += step) out.push_back(std::int64_t(1) << l);
    // The cap itself is always measured, so a quick run still reaches its largest size.
    if (top >= lo && (top - lo) % step != 0) out.push_back(std::int64_t(1) << top);
    return out;
}

benchmark::internal::Benchmark* add(const std::string& name, std::function<void(benchmark::State&)> fn,
                                    const std::vector<std::int64_t>& args, double min_time) {
    auto* b = benchmark::RegisterBenchmark(name.c_str(), [fn](benchmark::State& s) { fn(s); });
    b->UseManualTime()
        ->Repetitions(10)
        ->ReportAggregatesOnly(true)
        ->ComputeStatistics("min", statistic_min)
        ->ComputeStatistics("max", statistic_max)
        ->Unit(benchmark::kMicrosecond);
    if (min_time > 0) b->MinTime(min_time);
    for (std::int64_t a : args) b->Arg(a);
    return b;
}

benchmark::internal::Benchmark* add_interleaved(const std::string& workload, std::function<void(benchmark::State&)> fn,
                                                int hi, const char* variant) {
    return add(workload + "/" + variant, std::move(fn), sizes(12, hi, 4), 0.01);
}

namespace {
bool warm_up_due = false; // set for each new prepared instance, cleared by its first time_loop
}

namespace {
const char* key_prefix = ""; // "pair:" while an own_instances is alive
} // namespace

own_instances::own_instances() { key_prefix = "pair:"; }
own_instances::~own_instances() { key_prefix = ""; }

std::shared_ptr<void>& prepared_slot(const std::string& instance) {
    const std::string key = key_prefix + instance;
    struct entry {
        std::string key;
        std::shared_ptr<void> state;
    };
    static entry kept[2];
    static int latest = 0;
    for (int e = 0; e < 2; ++e)
        if (kept[e].key == key && kept[e].state) {
            latest = e;
            return kept[e].state;
        }
    latest = 1 - latest;        // the older of the two
    kept[latest].state.reset(); // free its memory before the next instance allocates
    kept[latest].key = key;
    warm_up_due = true;
    return kept[latest].state;
}

bool take_warm_up() {
    const bool due = warm_up_due;
    warm_up_due = false;
    return due;
}

void set_bytes(benchmark::State& state, double bytes_per_run) {
    state.counters["bytes"] = bytes_per_run;
    state.counters["GB/s"] = benchmark::Counter(bytes_per_run * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

bool describe_opencl() {
    loom::context& ctx = loom_context(true);
    ocl::environment& e = ocl::env();
    if (e.name != ctx.device_name()) {
        std::fprintf(stderr, "bench: Loom runs on '%s' but the handwritten baselines on '%s'; set LOOM_DEVICE\n",
                     ctx.device_name().c_str(), e.name.c_str());
        return false;
    }
    benchmark::AddCustomContext("device", ctx.device_name());
    benchmark::AddCustomContext("driver", ctx.driver_version());
    benchmark::AddCustomContext("opencl_platform", e.platform_name);
    benchmark::AddCustomContext("compute_units", std::to_string(e.compute_units));
    return true;
}

int run(int argc, char** argv, void (*register_all)(), describe_device describe) {
    std::vector<char*> args;
    for (int i = 0; i < argc; ++i) {
        if (std::strncmp(argv[i], "--max-log2=", 11) == 0) {
            max_log2_value = std::atoi(argv[i] + 11);
            continue;
        }
        args.push_back(argv[i]);
    }
    int count = int(args.size());
    benchmark::Initialize(&count, args.data());
    if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;

    if (!describe()) return 1;
    benchmark::AddCustomContext("compiler", LOOM_BENCH_COMPILER);
    benchmark::AddCustomContext("loom_version", LOOM_BENCH_VERSION);
    benchmark::AddCustomContext("max_log2", std::to_string(max_log2()));
    register_all();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

tuning tune_configs(const std::string& what, const std::vector<std::string>& names,
                    const std::function<void(std::size_t)>& run, int reps, const char* kind) {
    static std::map<std::string, tuning> tuned;
    if (auto it = tuned.find(what); it != tuned.end()) return it->second;
    tuning t;
    t.best_seconds = std::numeric_limits<double>::infinity();
    t.summary = kind;
    for (std::size_t k = 0; k < names.size(); ++k) {
        run(k); // warm-up
        std::vector<double> times;
        for (int r = 0; r < reps; ++r) times.push_back(seconds_of([&] { run(k); }));
        std::sort(times.begin(), times.end());
        const double m = times[times.size() / 2];
        char text[96];
        std::snprintf(text, sizeof text, " %s %.3gus", names[k].c_str(), m * 1e6);
        t.summary += text;
        if (m < t.best_seconds) {
            t.best_seconds = m;
            t.best = k;
        }
    }
    t.summary += " -> " + names[t.best];
    std::fprintf(stderr, "tuning %s: %s\n", what.c_str(), t.summary.c_str());
    return tuned[what] = t;
}

const float* random_floats(unsigned seed, float lo, float hi, std::size_t n) {
    static std::mutex lock;
    static std::map<std::tuple<unsigned, float, float>, std::unique_ptr<std::vector<float>>> pools;
    std::lock_guard<std::mutex> guard(lock);
    auto& pool = pools[{seed, lo, hi}];
    if (!pool || pool->size() < n) {
        // Always the largest size this process may ask for, so every prefix is stable.
        const std::size_t size = std::max<std::size_t>(n, std::size_t(1) << max_log2());
        pool = std::make_unique<std::vector<float>>(size);
        float* out = pool->data();
        parallel_for(size, [&](std::size_t begin, std::size_t end) {
            constexpr std::size_t block = 4096;
            for (std::size_t b = begin / block * block; b < end; b += block) {
                std::uint64_t state = (std::uint64_t(seed) << 40) ^ (b / block);
                for (std::size_t i = std::max(b, begin); i < std::min(b + block, end); ++i) {
                    const double u = double(splitmix(state) >> 11) * 0x1.0p-53;
                    out[i] = float(lo + (hi - lo) * u);
                }
            }
        });
    }
    return pool->data();
}

void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& fn) {
    const std::size_t threads = std::max(1u, std::thread::hardware_concurrency());
    if (n < 65536 || threads == 1) {
        fn(0, n);
        return;
    }
    std::vector<std::thread> pool;
    const std::size_t chunk = (n + threads - 1) / threads;
    for (std::size_t t = 0; t < threads; ++t) {
        const std::size_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
        pool.emplace_back([&fn, begin, end] { fn(begin, end); });
    }
    for (std::thread& t : pool) t.join();
}

std::string compare(const float* got, const float* want, std::size_t n, tolerance tol) {
    std::size_t bad = 0, first = n;
    for (std::size_t i = 0; i < n; ++i) {
        const double g = got[i], w = want[i];
        const bool ok = std::isfinite(g) && std::fabs(g - w) <= tol.abs + tol.rel * std::fabs(w);
        if (!ok) {
            if (first == n) first = i;
            ++bad;
        }
    }
    if (bad == 0) return {};
    char text[256];
    std::snprintf(text, sizeof text,
                  "wrong result: element %zu is %.9g, the host reference says %.9g (%zu of %zu differ)", first,
                  double(got[first]), double(want[first]), bad, n);
    return text;
}

const std::vector<float>& poison(std::size_t n) {
    static std::vector<float> nan;
    if (nan.size() != n) nan.assign(n, std::numeric_limits<float>::quiet_NaN());
    return nan;
}

std::vector<float> stencil2d_reference(const float* u, std::size_t nx, std::size_t ny, float c) {
    std::vector<float> out(nx * ny);
    for (std::size_t j = 0; j < ny; ++j)
        for (std::size_t i = 0; i < nx; ++i) {
            const std::size_t k = j * nx + i;
            const float m = u[k], west = u[i == 0 ? k : k - 1], east = u[i + 1 < nx ? k + 1 : k];
            const float south = u[j == 0 ? k : k - nx], north = u[j + 1 < ny ? k + nx : k];
            out[k] = m + c * (west + east + south + north - 4.0f * m);
        }
    return out;
}

namespace {
bool device_timing_on = true;

std::vector<std::function<std::uint64_t()>>& device_clocks() {
    static std::vector<std::function<std::uint64_t()>> clocks;
    return clocks;
}

// Each made at its first use, so a program that never asks for one has no such context.
loom::context& counted_context(int fusion, int fp_contract) {
    auto* ctx = new loom::context(loom::context_options{"opencl", "", fusion, fp_contract, device_timing_on ? 1 : 0});
    if (device_timing_on) count_device_time([ctx] { return ctx->statistics().kernel_ns; });
    return *ctx; // never destroyed: device_clocks() keeps its address to the end of the process
}
} // namespace

void set_device_timing(bool on) { device_timing_on = on; }
bool device_timing() { return device_timing_on; }
void count_device_time(std::function<std::uint64_t()> clock) { device_clocks().push_back(std::move(clock)); }

std::uint64_t device_ns() {
    std::uint64_t total = 0;
    for (const auto& clock : device_clocks()) total += clock();
    return total;
}

void set_device_us(benchmark::State& state, const char* name, std::uint64_t ns) {
    if (ns == 0) return;
    state.counters[name] = double(ns) * 1e-3 / double(std::max<std::int64_t>(1, state.iterations()));
}

loom::context& loom_context(bool fused, bool fp_contract) {
    static loom::context& on = counted_context(1, 0);
    static loom::context& off = counted_context(0, 0);
    static loom::context& contracting = counted_context(1, 1);
    if (fp_contract) return contracting;
    return fused ? on : off;
}

} // namespace bench
