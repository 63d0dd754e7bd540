// The shared benchmark harness: registration with Loom's method (manual host time after a
// finish, the kernels' device time from profiling events beside it, 10 repetitions,
// median/min/max), sizes, random inputs, host references and the
// value checks every timed variant passes before it is timed. Each bench_<area>.cpp is one
// program; a new skeleton's benchmarks are a new file over this harness.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
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

// Registers `workload`/`variant` (bench::time_interleaved; "interleaved" pairs Loom's one
// expression with the handwritten kernel, "interleaved_stmts" its statements form), after
// the workload's handwritten variant, whose tuning it reuses, at 2^12, 2^16, ... up to 2^hi
// (and 2^hi itself): the sizes the summary tables show. Each repetition runs at least
// min_time of Loom's time and as much of the handwritten kernel's, so min_time is half the
// usual: the pair costs what one variant does.
benchmark::internal::Benchmark* add_interleaved(const std::string& workload, std::function<void(benchmark::State&)> fn,
                                                int hi, const char* variant = "interleaved");

// The untimed runs before a prepared instance's first timed one: 0.1 s, or 200 runs when
// those take less. Without them the first instance to work in new memory at 2^24 floats (a
// working set near this machine's L3 size) often ran up to 2x slower, whichever variant it
// was: saxpy, Loom first, Loom's medians 3.3-6.2 ms (five of seven runs above 4.2) against
// 2.7-3.0 handwritten; handwritten first, 2.9-4.3 ms against Loom's 2.9-3.2 (bench/README.md).
constexpr double warm_up_seconds = 0.1;
constexpr int warm_up_runs = 200;
// True once after each new bench::prepared instance.
bool take_warm_up();

// Runs `body` untimed for warm_up_seconds, or warm_up_runs times when those take less.
template <class F> void warm_up(F&& body) {
    const auto start = std::chrono::steady_clock::now();
    for (int run = 0; run < warm_up_runs; ++run) {
        body();
        if (std::chrono::steady_clock::now() - start >= std::chrono::duration<double>(warm_up_seconds)) break;
    }
}

template <class F> double seconds_of(F&& body) {
    const auto start = std::chrono::steady_clock::now();
    body();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// ---- device time ---------------------------------------------------------------------------

// Whether this program reads the device's own time for its kernels beside host time (the
// default). A program that measures the host path (dispatch, phases, the loop's round
// trips) turns it off before run(): with it on, every launch, Loom's and the handwritten
// kernels', carries a profiling event whose cost would be part of what it times.
void set_device_timing(bool on);
bool device_timing();
// A source of device time: nanoseconds of kernel time so far, exact once the kernels have
// run. loom_context() adds each of its contexts (statistics().kernel_ns), the OpenCL
// baselines add their launches' profiling events.
void count_device_time(std::function<std::uint64_t()> clock);
// The sum over every source; called after a finish, so that every kernel has run.
std::uint64_t device_ns();
// Sets `name` to the mean device time of a run in microseconds, when any was measured
// (Boost.Compute's kernels, transfers and host work have none).
void set_device_us(benchmark::State& state, const char* name, std::uint64_t ns);

// Times `body` (which must end with a finish) once per benchmark iteration, host clock,
// after the warm-up when the instance is new. The counter `device_us` is the device time of
// the kernels a run launched (profiling events), read outside the timed span.
template <class F> void time_loop(benchmark::State& state, F&& body) {
    if (take_warm_up()) warm_up(body);
    std::uint64_t device = 0;
    for (auto _ : state) {
        const std::uint64_t before = device_timing() ? device_ns() : 0;
        state.SetIterationTime(seconds_of(body));
        if (device_timing()) device += device_ns() - before;
    }
    set_device_us(state, "device_us", device);
}

// Times Loom's `loom` and the handwritten `handwritten` (each ending with a finish) run by run,
// alternately: L H L H ..., so every run follows one of the other. Variants timed one after
// the other meet the machine at different moments, and on this shared host a kernel's time
// moved by up to 2x between runs of the same code (bench/README.md); run by run, both meet
// the same moments. The warm-up alternates too. Warmed up one after the other, the one warmed
// last kept its vectors in L3 for the whole repetition wherever the pair's vectors together
// came near its size (2^24 floats, two vectors each: 256 MiB, L3 260 MiB): copy 1.35 with the
// handwritten kernel warmed last, 0.63 with Loom's, 1.01 alternating; the same held with the
// handwritten kernel in both places (bench/README.md). The manual time is Loom's. Counters,
// per repetition: `ratio` (Loom's time / the handwritten time, over the same iterations),
// `handwritten_us` (its mean run), and from the device's profiling events `device_ratio`,
// `device_us` and `handwritten_device_us`.
template <class A, class B> void time_interleaved(benchmark::State& state, A&& loom, B&& handwritten) {
    take_warm_up(); // the pair warms both up whether or not its instances are new
    warm_up([&] {
        loom();
        handwritten();
    });
    double loom_total = 0, handwritten_total = 0;
    std::uint64_t loom_device = 0, handwritten_device = 0;
    const bool timed = device_timing();
    for (auto _ : state) {
        const std::uint64_t t0 = timed ? device_ns() : 0;
        const double l = seconds_of(loom);
        const std::uint64_t t1 = timed ? device_ns() : 0;
        handwritten_total += seconds_of(handwritten);
        const std::uint64_t t2 = timed ? device_ns() : 0;
        loom_device += t1 - t0;
        handwritten_device += t2 - t1;
        loom_total += l;
        state.SetIterationTime(l);
    }
    if (handwritten_total > 0) state.counters["ratio"] = loom_total / handwritten_total;
    state.counters["handwritten_us"] = handwritten_total * 1e6 / double(std::max<std::int64_t>(1, state.iterations()));
    set_device_us(state, "device_us", loom_device);
    set_device_us(state, "handwritten_device_us", handwritten_device);
    if (loom_device > 0 && handwritten_device > 0)
        state.counters["device_ratio"] = double(loom_device) / double(handwritten_device);
}

// While one is alive, bench::prepared files instances under keys of their own: an interleaved
// benchmark makes both of its instances anew (the handwritten tuning is kept, see
// ocl::tune), so neither works in older memory than the other (timed apart, an instance in
// new memory at 2^24 ran slower: the saxpy study in bench/README.md).
class own_instances {
public:
    own_instances();
    ~own_instances();
    own_instances(const own_instances&) = delete;
    own_instances& operator=(const own_instances&) = delete;
};

// time_interleaved over two prepared instances, each with an `error` and a `once()` that runs
// it to completion; false (and the benchmark skipped) when either failed its check.
template <class L, class H> bool time_interleaved_instances(benchmark::State& state, L& loom, H& handwritten) {
    for (const std::string* error : {&handwritten.error, &loom.error})
        if (!error->empty()) {
            state.SkipWithError(error->c_str());
            return false;
        }
    time_interleaved(
        state, [&] { loom.once(); }, [&] { handwritten.once(); });
    return true;
}

// One benchmark instance's prepared state (buffers, tuning, the check's verdict), kept across
// the calls Google Benchmark makes for the repetitions of that instance. The two instances
// used last are kept, so that an interleaved benchmark holds Loom's and the handwritten one at
// once; an older one is freed before the next one allocates.
std::shared_ptr<void>& prepared_slot(const std::string& key);
template <class T, class Make> T& prepared(const std::string& key, Make&& make) {
    std::shared_ptr<void>& slot = prepared_slot(key);
    if (!slot) slot = std::shared_ptr<T>(make());
    return *static_cast<T*>(slot.get());
}

// Bytes a kernel must move at the least, per run: reported as "bytes" and "GB/s" counters.
void set_bytes(benchmark::State& state, double bytes_per_run);

// Adds a program's device lines to the JSON context block ("device", "driver", ...) and
// checks that Loom and the handwritten baselines run on one device; false (after saying why
// on stderr) when they do not, or when there is nothing to measure on.
using describe_device = bool (*)();
// The OpenCL suite's: Loom's OpenCL context and the baselines' OpenCL device must agree.
bool describe_opencl();

// The main() of every bench program: strips --max-log2, checks and describes the device,
// adds the rest of the context block (compiler, Loom version, size cap), calls
// `register_all`, runs the benchmarks. Exit status 1 when `describe` fails.
int run(int argc, char** argv, void (*register_all)(), describe_device describe = describe_opencl);

// ---- tuning the handwritten baselines ------------------------------------------------------

struct tuning {
    std::size_t best = 0; // the winner's index (ocl::tune: its work-group size)
    double best_seconds = 0;
    std::string summary; // "cfg chunk:2x1 37.7us chunk:2x8 40.3us ... -> chunk:8x8"
};

// Runs `run(k)` (ending with a finish) for every named configuration of a baseline: one
// warm-up (PoCL compiles a work-group function per local size at its first launch), then
// `reps` timed runs, host time; the best median wins. The summary is printed to stderr, so
// the tuning is visible in every run's log. Once per `what` in a process: asked again, it
// returns the first tuning (an interleaved benchmark makes its handwritten instance anew).
tuning tune_configs(const std::string& what, const std::vector<std::string>& names,
                    const std::function<void(std::size_t)>& run, int reps = 3, const char* kind = "cfg");

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

// The 2-D 5-point diffusion step on an nx by ny grid (rows contiguous), reads clamped at the
// edges, in the order every variant writes it: out = u + c (W + E + S + N - 4 u), S the row
// before, N the row after.
std::vector<float> stencil2d_reference(const float* u, std::size_t nx, std::size_t ny, float c);

// ---- Loom ------------------------------------------------------------------------------------

// One context per setting on the OpenCL backend, made once per process: fusion on or off
// with contraction off whatever LOOM_FP_CONTRACT says, or fusion and contraction on.
// Profiling is on when device_timing() is, and each context counts in device_ns().
loom::context& loom_context(bool fused, bool fp_contract = false);

} // namespace bench
