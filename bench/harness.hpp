// The shared benchmark harness: registration with Loom's method (manual host time after a
// finish, 10 repetitions, median/min/max), sizes, random inputs, host references and the
// value checks every timed variant passes before it is timed. Each bench_<area>.cpp is one
// program; a new skeleton's benchmarks are a new file over this harness.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <loom/loom.hpp>

namespace bench {

// ---- sizes -------------------------------------------------------------------------------

// The largest log2 size any benchmark may use: --max-log2=N or LOOM_BENCH_MAX_LOG2, default 26.
int max_log2();
// 2^lo, 2^(lo+step), ... up to 2^min(hi, max_log2()).
std::vector<std::int64_t> sizes(int lo, int hi, int step = 2);

// ---- registration ---------------------------------------------------------------------------

// Registers `name` (area/workload/variant) with the method of bench/README.md: manual time,
// 10 repetitions, aggregates only (mean, median, stddev, cv, min, max), one Arg per size, each
// repetition at least min_time seconds of manual time (0: leave it to the caller, who then
// sets Iterations).
benchmark::internal::Benchmark* add(const std::string& name, std::function<void(benchmark::State&)> fn,
                                    const std::vector<std::int64_t>& args, double min_time = 0.02);

// The untimed runs before a prepared instance's first timed one: 0.1 s, or 200 runs when
// those take less. Without them the first instance to work in new memory at 2^24 floats (a
// working set near this machine's L3 size) often ran up to 2x slower, whichever variant it
// was: saxpy, Loom first, Loom's medians 3.3-6.2 ms (five of seven runs above 4.2) against
// 2.7-3.0 handwritten; handwritten first, 2.9-4.3 ms against Loom's 2.9-3.2 (bench/README.md).
constexpr double warm_up_seconds = 0.1;
constexpr int warm_up_runs = 200;
// True once after each new bench::prepared instance.
bool take_warm_up();

// Times `body` (which must end with a finish) once per benchmark iteration, host clock,
// after the warm-up when the instance is new.
template <class F> void time_loop(benchmark::State& state, F&& body) {
    if (take_warm_up()) {
        const auto start = std::chrono::steady_clock::now();
        for (int run = 0; run < warm_up_runs; ++run) {
            body();
            if (std::chrono::steady_clock::now() - start >= std::chrono::duration<double>(warm_up_seconds)) break;
        }
    }
    for (auto _ : state) {
        const auto start = std::chrono::steady_clock::now();
        body();
        state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
}

// One benchmark instance's prepared state (buffers, tuning, the check's verdict), kept across
// the calls Google Benchmark makes for the repetitions of that instance and freed when the
// next instance starts: uploads, tuning and checks run once per instance, not per repetition.
std::shared_ptr<void>& prepared_slot(const std::string& key);
template <class T, class Make> T& prepared(const std::string& key, Make&& make) {
    std::shared_ptr<void>& slot = prepared_slot(key);
    if (!slot) slot = std::shared_ptr<T>(make());
    return *static_cast<T*>(slot.get());
}

// Bytes a kernel must move at the least, per run: reported as "bytes" and "GB/s" counters.
void set_bytes(benchmark::State& state, double bytes_per_run);

// The main() of every bench program: strips --max-log2, calls `register_all`, adds the context
// block (device, driver, compiler, Loom version), runs the benchmarks.
int run(int argc, char** argv, void (*register_all)());

// ---- inputs and references -----------------------------------------------------------------

// At least n random floats in [lo, hi), the same for every caller asking with the same seed:
// a prefix of one pool, so a reference computed at a large size serves every smaller one.
const float* random_floats(unsigned seed, float lo, float hi, std::size_t n);

// Runs fn(begin, end) over [0, n) on every host core (for host references).
void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& fn);

struct tolerance {
    double rel = 1e-5; // FP contraction in a handwritten kernel may round a*b+c differently
    double abs = 0;
};

// Empty when got matches want within tol at every element; otherwise a message naming the
// first bad element, its values, and how many elements differ.
std::string compare(const float* got, const float* want, std::size_t n, tolerance tol);

// A host vector of exactly n quiet NaNs, to poison outputs before a check.
const std::vector<float>& poison(std::size_t n);

// ---- Loom ------------------------------------------------------------------------------------

// One context per setting on the OpenCL backend, made once per process: fusion on or off
// with contraction off whatever LOOM_FP_CONTRACT says, or fusion and contraction on.
loom::context& loom_context(bool fused, bool fp_contract = false);

} // namespace bench
