// Phases measured apart: first-call latency with empty caches (a child process with a fresh
// LOOM_CACHE_DIR and POCL_KERNEL_CACHE=0), the same with the Loom disk cache filled (new
// process, same directory), with PoCL's own cache warm, a handwritten clBuildProgram + launch,
// the in-memory hit (the statement's second run), and host <-> device transfers.
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "harness.hpp"
#include "opencl_baseline.hpp"

namespace {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point start) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

// ---- the child: one cold process ----------------------------------------------------------------

constexpr std::size_t child_n = 1024;

// A handwritten kernel of the same work, spelled differently from Loom's so that no runtime
// could reuse one build for the other.
const char* child_handwritten = R"(__kernel void saxpy(__global const float* restrict x, __global float* restrict y,
                    float a, uint n) {
    const uint i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
)";

// The 20-kernel first run: 20 statements of 20 lengths (so no two fuse), statement k nesting
// k + 1 sin()s (so no two share a kernel), all in one flush with empty caches: what
// LOOM_COMPILE_THREADS changes. Prints first_call_ms, kernels_compiled and the check.
int child_twenty_kernels() {
    loom::context ctx(loom::context_options{"opencl", "", 1});
    std::vector<std::vector<float>> want;
    std::vector<loom::vector<float>> xs, ys;
    for (int k = 0; k < 20; ++k) {
        const std::size_t n = child_n + std::size_t(k);
        std::vector<float> hx(n);
        for (std::size_t i = 0; i < n; ++i) hx[i] = 0.5f + float(i % 97) / 97.0f;
        xs.emplace_back(ctx, hx);
        ys.emplace_back(ctx, n);
        for (float& v : hx)
            for (int d = 0; d <= k; ++d) v = std::sin(v);
        want.push_back(hx);
    }
    ctx.finish();
    const auto t = clock_type::now();
    for (int k = 0; k < 20; ++k) {
        loom::vector<float> v = loom::vector<float>(ctx, xs[std::size_t(k)].size());
        v = loom::sin(xs[std::size_t(k)]);
        for (int d = 1; d <= k; ++d) v = loom::sin(v);
        ys[std::size_t(k)] = v;
    }
    ctx.finish();
    std::printf("first_call_ms %.3f\n", ms_since(t));
    std::printf("kernels_compiled %llu\n", (unsigned long long)ctx.statistics().kernels_compiled);
    bool ok = true;
    for (int k = 0; k < 20; ++k) {
        const std::vector<float> got = ys[std::size_t(k)].to_host();
        ok = ok && bench::compare(got.data(), want[std::size_t(k)].data(), got.size(), {1e-5, 1e-6}).empty();
    }
    std::printf("check %s\n", ok ? "ok" : "wrong");
    return ok ? 0 : 1;
}

// Prints "key value" lines. Loom mode: context_ms, first_call_ms, second_call_ms, steady_us,
// kernels_compiled, disk_hits. Handwritten mode (its own process, so that neither compile
// finds LLVM already warmed up by the other): context_ms, first_call_ms, second_call_ms.
// Both end with "check ok" or "check wrong".
int child_main(bool handwritten) {
    const auto start = clock_type::now();
    std::vector<float> hx(child_n), hy(child_n);
    for (std::size_t i = 0; i < child_n; ++i)
        hx[i] = 0.5f + float(i % 97) / 97.0f, hy[i] = 1.5f - float(i % 89) / 89.0f;
    std::vector<float> want(child_n);
    for (std::size_t i = 0; i < child_n; ++i) want[i] = -2.5f * hx[i] + (2.5f * hx[i] + hy[i]);
    std::vector<float> out;
    if (handwritten) {
        auto& env = bench::ocl::env();
        std::printf("context_ms %.3f\n", ms_since(start));
        cl::Buffer bx = bench::ocl::upload(hx.data(), child_n), by = bench::ocl::upload(hy.data(), child_n);
        auto t = clock_type::now();
        cl::Kernel k = bench::ocl::build_uncached(child_handwritten, "saxpy");
        k.setArg(0, bx);
        k.setArg(1, by);
        k.setArg(2, 2.5f);
        k.setArg(3, cl_uint(child_n));
        bench::ocl::enqueue(k, child_n, 0);
        env.queue.finish();
        std::printf("first_call_ms %.3f\n", ms_since(t));
        t = clock_type::now();
        k.setArg(2, -2.5f);
        bench::ocl::enqueue(k, child_n, 0);
        env.queue.finish();
        std::printf("second_call_ms %.3f\n", ms_since(t));
        out = bench::ocl::download(by, child_n);
    } else {
        loom::context ctx(loom::context_options{"opencl", "", 1});
        std::printf("context_ms %.3f\n", ms_since(start));
        loom::vector<float> x(ctx, hx), y(ctx, hy);
        ctx.finish();
        auto t = clock_type::now();
        y = 2.5f * x + y;
        ctx.finish();
        std::printf("first_call_ms %.3f\n", ms_since(t));
        t = clock_type::now();
        y = -2.5f * x + y;
        ctx.finish();
        std::printf("second_call_ms %.3f\n", ms_since(t));
        out = y.to_host();
        std::vector<double> steady;
        for (int k = 0; k < 101; ++k) {
            t = clock_type::now();
            y = (k % 2 ? 0.5f : -0.5f) * x + y;
            ctx.finish();
            steady.push_back(ms_since(t) * 1e3);
        }
        std::sort(steady.begin(), steady.end());
        std::printf("steady_us %.3f\n", steady[steady.size() / 2]);
        const loom::context_statistics stats = ctx.statistics();
        std::printf("kernels_compiled %llu\ndisk_hits %llu\n", (unsigned long long)stats.kernels_compiled,
                    (unsigned long long)stats.disk_hits);
    }
    const bool ok = bench::compare(out.data(), want.data(), child_n, {}).empty();
    std::printf("check %s\n", ok ? "ok" : "wrong");
    return ok ? 0 : 1;
}

// ---- the parent: spawning children ---------------------------------------------------------------

std::string self_path() { return fs::read_symlink("/proc/self/exe").string(); }

struct child_result {
    std::map<std::string, double> values;
    double process_ms = 0;
    double compile_ms = 0; // from the compile log line, when Loom writes one
    std::string error;
};

// A fresh, empty directory under the system temp dir, removed at exit.
fs::path fresh_dir(const std::string& what) {
    static std::vector<fs::path> made;
    static struct cleanup {
        ~cleanup() {
            std::error_code ec;
            for (const fs::path& p : made) fs::remove_all(p, ec);
        }
    } at_exit;
    std::string templ = (fs::temp_directory_path() / ("loom-bench-" + what + "-XXXXXX")).string();
    if (!mkdtemp(templ.data())) throw std::runtime_error("bench: mkdtemp failed");
    made.push_back(templ);
    return templ;
}

child_result run_child(const std::string& environment, const char* mode = "") {
    child_result r;
    const fs::path log = fresh_dir("log") / "loom.log";
    const std::string command = "env " + environment + " LOOM_LOG=compile,cache LOOM_LOG_FILE=" + log.string() + " '" +
                                self_path() + "' --child " + mode + " 2>&1";
    const auto start = clock_type::now();
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) {
        r.error = "could not start " + command;
        return r;
    }
    char line[512];
    std::string output;
    while (std::fgets(line, sizeof line, pipe)) {
        output += line;
        char key[128];
        double value = 0;
        if (std::sscanf(line, "%127s %lf", key, &value) == 2) r.values[key] = value;
    }
    const int status = pclose(pipe);
    r.process_ms = ms_since(start);
    if (status != 0 || output.find("check ok") == std::string::npos)
        r.error = "child failed: " + command + "\n" + output;
    std::ifstream in(log);
    const std::regex compiled(R"(bytes ([0-9.]+) ms)");
    for (std::string l; std::getline(in, l);) {
        std::smatch m;
        if (std::regex_search(l, m, compiled)) r.compile_ms += std::stod(m[1]);
    }
    return r;
}

enum class phase {
    loom_cold,
    loom_disk_warm,
    loom_cache_off,
    pocl_cache_warm,
    handwritten_cold,
    memory_hit,
    twenty_kernels,
    twenty_kernels_serial // one flush of 20 new kernels, compiled together or one at a time
};

// The cold Loom children's results, which the in-memory hit reads again: the second call of
// the same processes, so that it costs no children of its own.
std::vector<child_result>& cold_runs() {
    static std::vector<child_result> runs;
    return runs;
}

// One child per iteration; the time is the phase's figure as the child measured it.
void run_phase(benchmark::State& state, phase which) {
    std::string filled_loom, filled_pocl;
    try {
        if (which == phase::loom_disk_warm) {
            filled_loom = fresh_dir("cache").string();
            run_child("LOOM_CACHE_DIR=" + filled_loom + " POCL_KERNEL_CACHE=0");
        }
        if (which == phase::pocl_cache_warm) {
            filled_pocl = fresh_dir("pocl").string();
            run_child("LOOM_CACHE_DIR=" + fresh_dir("cache").string() +
                      " POCL_KERNEL_CACHE=1 POCL_CACHE_DIR=" + filled_pocl);
        }
    } catch (const std::exception& e) {
        state.SkipWithError(e.what());
        return;
    }
    double disk_hits = 0, compiled = 0, compile_ms = 0, process_ms = 0, context_ms = 0;
    for (auto _ : state) {
        std::string environment;
        switch (which) {
        case phase::loom_disk_warm: environment = "LOOM_CACHE_DIR=" + filled_loom + " POCL_KERNEL_CACHE=0"; break;
        case phase::loom_cache_off: environment = "LOOM_CACHE=off POCL_KERNEL_CACHE=0"; break;
        case phase::pocl_cache_warm:
            environment =
                "LOOM_CACHE_DIR=" + fresh_dir("cache").string() + " POCL_KERNEL_CACHE=1 POCL_CACHE_DIR=" + filled_pocl;
            break;
        case phase::twenty_kernels_serial: environment = "LOOM_COMPILE_THREADS=1 "; [[fallthrough]];
        default: environment += "LOOM_CACHE_DIR=" + fresh_dir("cache").string() + " POCL_KERNEL_CACHE=0"; break;
        }
        child_result r;
        if (which == phase::memory_hit && !cold_runs().empty()) {
            r = cold_runs().back();
            cold_runs().pop_back();
        } else {
            const bool twenty = which == phase::twenty_kernels || which == phase::twenty_kernels_serial;
            r = run_child(environment, which == phase::handwritten_cold ? "handwritten" : twenty ? "twenty" : "");
            if (which == phase::loom_cold) cold_runs().push_back(r);
        }
        if (!r.error.empty()) {
            state.SkipWithError(r.error.c_str());
            return;
        }
        const char* key = which == phase::memory_hit ? "second_call_ms" : "first_call_ms";
        state.SetIterationTime(r.values.at(key) * 1e-3);
        disk_hits += r.values["disk_hits"];
        context_ms += r.values["context_ms"];
        compiled += r.values["kernels_compiled"];
        compile_ms += r.compile_ms;
        process_ms += r.process_ms;
    }
    const double iterations = double(state.iterations());
    state.counters["disk_hits"] = disk_hits / iterations;
    state.counters["kernels_compiled"] = compiled / iterations;
    state.counters["compile_ms"] = compile_ms / iterations;
    state.counters["process_ms"] = process_ms / iterations;
    state.counters["context_ms"] = context_ms / iterations;
    if (which == phase::loom_disk_warm)
        state.SetLabel(disk_hits > 0 ? "disk cache hit"
                                     : "no disk hit: this build's Loom does not load kernels from disk");
}

// ---- transfers -------------------------------------------------------------------------------------

struct transfer_instance {
    std::string error;
    std::vector<float> host;
    std::unique_ptr<loom::vector<float>> device;
    cl::Buffer buffer;
};

enum class transfer { loom_construct, loom_copy_in, handwritten_write, loom_to_host, loom_copy_out, handwritten_read };

void run_transfer(benchmark::State& state, transfer which, const std::string& name) {
    const std::size_t n = std::size_t(state.range(0));
    loom::context& ctx = bench::loom_context(true);
    auto& env = bench::ocl::env();
    const float* source = bench::random_floats(5, 0.5f, 1.5f, n);
    auto& p = bench::prepared<transfer_instance>(name + "/" + std::to_string(n), [&] {
        auto p = std::make_unique<transfer_instance>();
        p->host.assign(source, source + n);
        p->device = std::make_unique<loom::vector<float>>(ctx, p->host);
        p->buffer = bench::ocl::upload(source, n);
        return p;
    });
    if (!p.error.empty()) {
        state.SkipWithError(p.error.c_str());
        return;
    }
    std::vector<float> out(n);
    switch (which) {
    case transfer::loom_construct:
        bench::time_loop(state, [&] {
            loom::vector<float> v(ctx, p.host);
            ctx.finish();
        });
        break;
    case transfer::loom_copy_in: bench::time_loop(state, [&] { loom::copy(p.host, *p.device); }); break;
    case transfer::handwritten_write:
        bench::time_loop(state,
                         [&] { env.queue.enqueueWriteBuffer(p.buffer, CL_TRUE, 0, n * sizeof(float), p.host.data()); });
        break;
    case transfer::loom_to_host: bench::time_loop(state, [&] { out = p.device->to_host(); }); break;
    case transfer::loom_copy_out: bench::time_loop(state, [&] { loom::copy(*p.device, out); }); break;
    case transfer::handwritten_read:
        bench::time_loop(state,
                         [&] { env.queue.enqueueReadBuffer(p.buffer, CL_TRUE, 0, n * sizeof(float), out.data()); });
        break;
    }
    // Checked after the timed runs too: every byte made the trip.
    if (which == transfer::loom_construct || which == transfer::loom_copy_in) out = p.device->to_host();
    if (which == transfer::handwritten_write) out = bench::ocl::download(p.buffer, n);
    const std::string error = bench::compare(out.data(), source, n, {0, 0});
    if (!error.empty()) {
        state.SkipWithError((name + ": " + error).c_str());
        return;
    }
    bench::set_bytes(state, double(n) * sizeof(float));
}

void register_all() {
    const std::vector<std::int64_t> one{std::int64_t(child_n)};
    const std::pair<const char*, phase> phases[] = {
        {"first_call/loom_cold", phase::loom_cold},
        {"second_call/loom_memory_hit", phase::memory_hit},
        {"first_call/loom_disk_warm", phase::loom_disk_warm},
        {"first_call/loom_cache_off", phase::loom_cache_off},
        {"first_call/loom_pocl_cache_warm", phase::pocl_cache_warm},
        {"first_call/handwritten_cold", phase::handwritten_cold},
        {"first_call_20_kernels/loom_cold", phase::twenty_kernels},
        {"first_call_20_kernels/loom_cold_one_compile_thread", phase::twenty_kernels_serial},
    };
    for (const auto& [name, which] : phases) {
        const phase w = which;
        bench::add(
            name, [w](benchmark::State& s) { run_phase(s, w); }, one, 0)
            ->Iterations(1);
    }
    const std::vector<std::int64_t> n = bench::sizes(10, 26, 4);
    const std::pair<const char*, transfer> transfers[] = {
        {"transfer_h2d/loom_construct", transfer::loom_construct},
        {"transfer_h2d/loom_copy", transfer::loom_copy_in},
        {"transfer_h2d/handwritten", transfer::handwritten_write},
        {"transfer_d2h/loom_to_host", transfer::loom_to_host},
        {"transfer_d2h/loom_copy", transfer::loom_copy_out},
        {"transfer_d2h/handwritten", transfer::handwritten_read},
    };
    for (const auto& [name, which] : transfers) {
        const transfer w = which;
        const std::string label = name;
        bench::add(
            name, [w, label](benchmark::State& s) { run_transfer(s, w, label); }, n);
    }
}

} // namespace

int main(int argc, char** argv) {
    bench::set_device_timing(false); // first calls, cache hits and transfers: host time is the measure
    if (argc > 1 && std::strcmp(argv[1], "--child") == 0) {
        if (argc > 2 && std::strcmp(argv[2], "twenty") == 0) return child_twenty_kernels();
        return child_main(argc > 2 && std::strcmp(argv[2], "handwritten") == 0);
    }
    return bench::run(argc, argv, register_all);
}
