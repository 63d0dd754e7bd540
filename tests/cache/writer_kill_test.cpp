// Processes storing real kernels into one cache directory are killed at random moments, and the
// entries left are then damaged in the ways a disk, a crash or a person can damage them: a fresh
// process still computes every value right, loading the entries that are whole and rebuilding
// the others, and leaves behind only whole entries (never a staging directory counted as one).
// The seed is printed and LOOM_TEST_SEED replays it: the same kill times, orders and damage (where
// in its work a kill finds a writer still varies with scheduling).
#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <random>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <xxhash.h>

#include "cache/cache_inventory.hpp"
#include "cache/cache_test_support.hpp"

using namespace loom::cache;
using namespace loom::cache::test;

namespace {

using clock_type = std::chrono::steady_clock;

constexpr int kernel_count = 10;
constexpr std::size_t damaged_count = 8; // the rest stay whole
constexpr std::size_t elements = 4096;

std::uint64_t campaign_seed() {
    static const std::uint64_t s = [] {
        const char* env = std::getenv("LOOM_TEST_SEED");
        const std::uint64_t v = env ? std::strtoull(env, nullptr, 10) : std::random_device{}();
        std::printf("writer_kill_test: seed %llu (set LOOM_TEST_SEED to replay)\n", (unsigned long long)v);
        std::fflush(stdout);
        return v;
    }();
    return s;
}

// Kernel k of the program, as the host computes it and as Loom records it: each its own source.
float host_value(int k, float x) {
    switch (k) {
    case 0: return x * 2.0f + 1.0f;
    case 1: return std::sqrt(x) + x;
    case 2: return std::sin(x) * std::cos(x);
    case 3: return std::exp(-x) + 0.5f;
    case 4: return x * x - 3.0f;
    case 5: return std::fabs(x - 2.0f) * 4.0f;
    case 6: return (x + 1.0f) / (x + 2.0f);
    case 7: return std::fmax(x, 1.5f) - std::fmin(x, 0.5f);
    case 8: return std::tanh(x) * 3.0f;
    default: return (x - 1.0f) * (x + 1.0f) * 0.25f;
    }
}

void record(int k, loom::vector<float>& y, const loom::vector<float>& x) {
    switch (k) {
    case 0: y = x * 2.0f + 1.0f; break;
    case 1: y = loom::sqrt(x) + x; break;
    case 2: y = loom::sin(x) * loom::cos(x); break;
    case 3: y = loom::exp(-x) + 0.5f; break;
    case 4: y = x * x - 3.0f; break;
    case 5: y = loom::fabs(x - 2.0f) * 4.0f; break;
    case 6: y = (x + 1.0f) / (x + 2.0f); break;
    case 7: y = loom::fmax(x, 1.5f) - loom::fmin(x, 0.5f); break;
    case 8: y = loom::tanh(x) * 3.0f; break;
    default: y = (x - 1.0f) * (x + 1.0f) * 0.25f; break;
    }
}

// The device's math functions are within a few ulp of the host's, not equal to them.
bool agrees(float device, float host) { return std::fabs(device - host) <= 1e-5f * std::fmax(1.0f, std::fabs(host)); }

// What a program run reports through its exit status: bits of what went wrong (0: nothing).
enum run_failure : int { wrong_value = 1, threw = 2 };

// Points the disk cache of contexts made from now on at `dir`, and PoCL's own kernel cache at a
// directory of this process's alone: Loom's cache is what is under test, and PoCL trusts whatever
// its own directory holds (with that cache switched off, a process cleaning up removed the files
// another one was linking, and PoCL aborted).
void use_cache_dir(const fs::path& dir) {
    ::setenv("LOOM_CACHE_DIR", dir.c_str(), 1);
    ::unsetenv("LOOM_CACHE");
    ::unsetenv("LOOM_CACHE_MAX_BYTES");
    const fs::path pocl = dir.parent_path() / ("pocl-" + std::to_string(::getpid()));
    ::setenv("POCL_CACHE_DIR", pocl.c_str(), 1);
    ::unsetenv("POCL_KERNEL_CACHE");
}

// One run of the program in a fresh context: every kernel, in `order`, checked against the host.
// Writes "kernels_compiled disk_hits" to `stats` when it is given.
int run_program(const fs::path& dir, const std::vector<int>& order, const fs::path& stats = {}) {
    use_cache_dir(dir);
    int failures = 0;
    try {
        loom::context_options options;
        options.backend = "opencl";
        loom::context ctx(options);
        std::vector<float> hx(elements);
        for (std::size_t i = 0; i < elements; ++i) hx[i] = 0.1f + float(i % 97) * 0.04f;
        const loom::vector<float> x(ctx, hx);
        for (int k : order) {
            loom::vector<float> y(ctx, elements);
            record(k, y, x);
            const std::vector<float> hy = y.to_host();
            for (std::size_t i = 0; i < elements; ++i)
                if (!agrees(hy[i], host_value(k, hx[i]))) {
                    std::fprintf(stderr, "kernel %d, element %zu: %.9g, the host says %.9g\n", k, i, double(hy[i]),
                                 double(host_value(k, hx[i])));
                    failures |= wrong_value;
                    break;
                }
        }
        if (!stats.empty()) {
            const loom::context_statistics s = ctx.statistics();
            write_text(stats, std::to_string(s.kernels_compiled) + " " + std::to_string(s.disk_hits) + "\n");
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "a program run threw: %s\n", e.what());
        failures |= threw;
    }
    return failures;
}

// A child process running body(); it never returns into doctest.
template <class Body> pid_t spawn(Body body) {
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t child = ::fork();
    if (child == 0) {
        int status = 126;
        try {
            status = body();
        } catch (...) {
        }
        ::_exit(status);
    }
    return child;
}

// How a child ended, in words; empty when it exited 0, or was killed by `expected_signal`.
std::string unexpected_end(int status, int expected_signal) {
    if (WIFEXITED(status))
        return WEXITSTATUS(status) == 0 ? std::string() : "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        return WTERMSIG(status) == expected_signal ? std::string()
                                                   : "died of signal " + std::to_string(WTERMSIG(status));
    return "ended oddly";
}

int wait_for(pid_t child) {
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

// The kernels a program run stored, read back whole from its cache directory, to be stored again
// by writers that do nothing else (their stores are where a kill lands most often).
std::vector<sample_kernel> stored_kernels(const fs::path& dir) {
    std::vector<sample_kernel> kernels;
    for (const inventory::good_entry& e : take_inventory(dir).good) {
        entry_check check = read_entry(e.files.path);
        REQUIRE(check.entry);
        sample_kernel k;
        k.source = read_text(e.files.path / e.meta.source_file);
        k.backend = e.meta.backend;
        k.device = e.meta.device;
        k.driver = e.meta.driver;
        k.options = e.meta.options;
        k.binary = std::move(check.binary);
        k.details.summary = e.meta.summary;
        k.details.compile_ms = e.meta.compile_ms;
        k.details.build_log = read_text(e.files.path / build_log_file_name);
        k.details.source_extension = e.meta.source_file.substr(e.meta.source_file.find('.'));
        k.details.binary_kind = e.meta.binary_kind;
        REQUIRE(k.key().hex() == e.files.hex); // the identity read back is the one stored
        kernels.push_back(std::move(k));
    }
    return kernels;
}

// A writer that stores the given kernels over and over (dropping each first now and then, as a
// driver rejecting a binary does) and loads them back, until it is killed.
int store_until_killed(const fs::path& dir, const std::vector<sample_kernel>& kernels, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    const auto give_up = clock_type::now() + std::chrono::minutes(1); // the parent kills it long before
    while (clock_type::now() < give_up) {
        disk_cache cache(settings_for(dir));
        const sample_kernel& k = kernels[rng() % kernels.size()];
        if (rng() % 2 == 0) cache.forget(k.key());
        store(cache, k);
        load(cache, k);
    }
    return 0;
}

// Rounds of writers started at once, each killed at a random moment within `window`: program runs
// (which may finish first, and must then have computed right) and writers that only store.
void kill_writers_at_random(const fs::path& dir, const std::vector<sample_kernel>& kernels,
                            std::chrono::milliseconds window, std::mt19937_64& rng) {
    constexpr int rounds = 2, programs = 2, storers = 3;
    for (int round = 0; round < rounds; ++round) {
        int start[2];
        REQUIRE(::pipe(start) == 0);
        struct writer {
            pid_t pid;
            std::chrono::milliseconds kill_at;
            std::string role;
        };
        std::vector<writer> writers;
        for (int w = 0; w < programs + storers; ++w) {
            std::vector<int> order(kernel_count);
            for (int k = 0; k < kernel_count; ++k) order[std::size_t(k)] = k;
            std::shuffle(order.begin(), order.end(), rng);
            const std::uint64_t writer_seed = rng();
            const bool program = w < programs;
            const pid_t pid = spawn([&] {
                ::close(start[1]);
                char go;
                if (::read(start[0], &go, 1) != 0) return 64;
                return program ? run_program(dir, order) : store_until_killed(dir, kernels, writer_seed);
            });
            REQUIRE(pid > 0);
            const auto kill_at = std::chrono::milliseconds(std::uniform_int_distribution<long>(0, window.count())(rng));
            writers.push_back({pid, kill_at, program ? "a program run" : "a storing writer"});
        }
        ::close(start[0]);
        ::close(start[1]); // end of file: every writer starts now
        const auto started = clock_type::now();
        std::vector<writer> by_kill_time = writers;
        std::sort(by_kill_time.begin(), by_kill_time.end(),
                  [](const writer& a, const writer& b) { return a.kill_at < b.kill_at; });
        for (const writer& w : by_kill_time) {
            std::this_thread::sleep_until(started + w.kill_at);
            ::kill(w.pid, SIGKILL); // not yet reaped: the pid is still this writer's
        }
        for (const writer& w : writers) {
            const std::string end = unexpected_end(wait_for(w.pid), SIGKILL);
            INFO("round " << round << ", " << w.role << " killed at " << w.kill_at.count() << " ms: " << end);
            CHECK(end.empty());
        }
    }
}

std::string hex_of(const std::string& bytes) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx",
                  static_cast<unsigned long long>(XXH3_64bits(bytes.data(), bytes.size())));
    return text;
}

// Rewrites binary.bin and meta.json's record of it so that the two agree: the entry's own
// checksums then hold, and only what the binary says about itself can tell.
void replace_binary_consistently(const fs::path& entry, const std::string& bytes) {
    const fs::path meta_path = entry / metadata_file_name;
    nlohmann::ordered_json meta = nlohmann::ordered_json::parse(read_text(meta_path));
    const fs::path binary_path = entry / meta["binary"]["file"].get<std::string>();
    write_text(binary_path, bytes);
    meta["binary"]["bytes"] = bytes.size();
    meta["binary"]["xxh3_64"] = hex_of(bytes);
    write_text(meta_path, meta.dump(2) + "\n");
}

// The damage of damage_entries() that is not damage to an entry Loom wrote: a person's file
// under an entry's name, which Loom leaves as it is (and so compiles that kernel every run).
constexpr std::size_t file_at_entry = 5;

// Damages entries of `dir` in every way below, each its own entry; returns the keys damaged.
std::vector<std::string> damage_entries(const fs::path& dir, std::mt19937_64& rng) {
    std::vector<std::string> names;
    for (const entry_on_disk& e : list_entries(dir)) names.push_back(e.hex);
    REQUIRE(names.size() > damaged_count);
    std::shuffle(names.begin(), names.end(), rng);

    // What writers killed between their steps leave: a whole entry staged but never renamed into
    // place, a half-written one, and one being removed. None of them is an entry.
    const fs::path staged = dir / (".tmp-" + names[0] + "-1-0");
    fs::copy(dir / names[0], staged);
    fs::create_directories(dir / (".tmp-" + names[1] + "-1-1"));
    write_text(dir / (".tmp-" + names[1] + "-1-1") / "source.cl", "__kernel void");
    fs::copy(dir / names[2], dir / (".trash-" + names[2] + "-1-2"));

    names.resize(damaged_count);
    auto binary_of = [&](const std::string& hex) { return read_text(dir / hex / "binary.bin"); };

    // Bytes flipped inside the binary, meta.json rewritten to agree.
    std::string flipped = binary_of(names[0]);
    for (int i = 0; i < 16; ++i) flipped[std::size_t(rng() % flipped.size())] ^= char(0x5A);
    replace_binary_consistently(dir / names[0], flipped);
    // The binary cut short, meta.json rewritten to agree.
    const std::string whole = binary_of(names[1]);
    replace_binary_consistently(dir / names[1], whole.substr(0, whole.size() / 2));
    // Two entries' binaries swapped, each meta.json rewritten to agree with its new binary.
    const std::string third = binary_of(names[2]), fourth = binary_of(names[3]);
    replace_binary_consistently(dir / names[2], fourth);
    replace_binary_consistently(dir / names[3], third);
    // meta.json cut short.
    const std::string meta = read_text(dir / names[4] / metadata_file_name);
    write_text(dir / names[4] / metadata_file_name, meta.substr(0, meta.size() / 2));
    // The entry's directory replaced by a file of somebody else's under its name.
    fs::remove_all(dir / names[file_at_entry]);
    write_text(dir / names[file_at_entry], "not an entry\n");
    // An empty binary, meta.json rewritten to agree.
    replace_binary_consistently(dir / names[6], std::string());
    // meta.json naming another driver, as an entry of an older driver left under this key would.
    nlohmann::ordered_json other = nlohmann::ordered_json::parse(read_text(dir / names[7] / metadata_file_name));
    other["driver"] = other["driver"].get<std::string>() + " (an older one)";
    write_text(dir / names[7] / metadata_file_name, other.dump(2) + "\n");
    return names;
}

std::pair<std::uint64_t, std::uint64_t> read_stats(const fs::path& stats) {
    std::uint64_t compiled = ~0ull, disk_hits = ~0ull;
    std::istringstream(read_text(stats)) >> compiled >> disk_hits;
    return {compiled, disk_hits};
}

// Runs the program once in a fresh process that nobody kills; its statistics.
std::pair<std::uint64_t, std::uint64_t> fresh_run(const fs::path& dir, const fs::path& stats) {
    std::vector<int> order(kernel_count);
    for (int k = 0; k < kernel_count; ++k) order[std::size_t(k)] = k;
    const pid_t pid = spawn([&] { return run_program(dir, order, stats); });
    REQUIRE(pid > 0);
    const std::string end = unexpected_end(wait_for(pid), 0);
    INFO("the fresh process " << end);
    REQUIRE(end.empty());
    return read_stats(stats);
}

bool has_key_name(const std::string& name) { return key_from_hex(name).has_value(); }

} // namespace

TEST_CASE("writers killed at random and entries damaged every way: a fresh process computes right and rebuilds") {
    std::mt19937_64 rng(campaign_seed());
    scratch_dir tmp;
    const fs::path seed_dir = tmp.path() / "seed", dir = tmp.path() / "cache";

    // One undisturbed run stores every kernel of the program, and says how long a run takes.
    const auto seed_started = clock_type::now();
    const auto [seed_compiled, seed_hits] = fresh_run(seed_dir, tmp.path() / "seed-stats.txt");
    const auto run_time = std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - seed_started);
    CHECK(seed_compiled == kernel_count);
    CHECK(seed_hits == 0);
    const std::vector<sample_kernel> kernels = stored_kernels(seed_dir);
    REQUIRE(kernels.size() == std::size_t(kernel_count)); // PoCL's binaries are all storable

    // Killed anywhere (before, inside or after a store), writers leave only whole entries.
    kill_writers_at_random(dir, kernels, run_time, rng);
    {
        const inventory inv = take_inventory(dir);
        for (const auto& bad : inv.bad) FAIL_CHECK("a killed writer left a damaged entry: " << bad.problem);
        CHECK(inv.foreign.empty());
    }

    // A writer that is not killed stores what is missing; then the damage.
    const pid_t filler = spawn([&] {
        disk_cache cache(settings_for(dir));
        for (const sample_kernel& k : kernels)
            if (!load(cache, k)) store(cache, k);
        return 0;
    });
    REQUIRE(filler > 0);
    REQUIRE(unexpected_end(wait_for(filler), 0).empty());
    REQUIRE(list_entries(dir).size() == std::size_t(kernel_count));
    const std::vector<std::string> damaged = damage_entries(dir, rng);
    // The inventory sees every damage but the other driver's (that entry is whole, and only a load
    // under this key, which asks for this driver, refuses it) and the file, which is not Loom's.
    CHECK(take_inventory(dir).bad.size() == damaged.size() - 2);

    // A fresh process loads every whole entry, rebuilds every damaged one, compiles the kernel
    // whose path holds somebody's file (leaving the file), and computes right.
    const auto [compiled, disk_hits] = fresh_run(dir, tmp.path() / "stats.txt");
    CHECK(compiled == damaged.size());
    CHECK(disk_hits == kernel_count - damaged.size());

    // What it leaves: every entry whole, one per kernel but the file's, the damaged ones rebuilt,
    // the file as it was, and nothing else counted as an entry (staging and removal areas are
    // not, by their names).
    const inventory inv = take_inventory(dir);
    CHECK(inv.bad.empty());
    REQUIRE(inv.foreign.size() == 1);
    CHECK(inv.foreign[0].path == dir / damaged[file_at_entry]);
    CHECK(read_text(dir / damaged[file_at_entry]) == "not an entry\n");
    CHECK(inv.good.size() == std::size_t(kernel_count) - 1);
    CHECK(list_entries(dir).size() == std::size_t(kernel_count) - 1);
    std::size_t key_names = 0;
    for (const std::string& name : names_in(dir)) {
        key_names += has_key_name(name);
        CHECK((has_key_name(name) || name.rfind(".tmp-", 0) == 0 || name.rfind(".trash-", 0) == 0));
    }
    CHECK(key_names == std::size_t(kernel_count));
    for (const std::string& hex : damaged) {
        INFO("damaged entry " << hex);
        if (hex != damaged[file_at_entry]) CHECK(read_entry(dir / hex).entry);
    }
#ifdef LOOM_CACHE_TOOL
    {
        const std::string command = "'" LOOM_CACHE_TOOL "' --dir '" + dir.string() + "' verify 2>&1";
        std::FILE* pipe = ::popen(command.c_str(), "r");
        REQUIRE(pipe);
        std::string output;
        char buffer[4096];
        for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
        const int status = ::pclose(pipe);
        INFO(output);
        CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
        CHECK(output.find(": " + std::to_string(kernel_count - 1) + " good, 0 bad") != std::string::npos);
    }
#endif

    // And the next process finds every kernel on disk but the one whose path is not Loom's.
    const auto [compiled_again, hits_again] = fresh_run(dir, tmp.path() / "stats-again.txt");
    CHECK(compiled_again == 1);
    CHECK(hits_again == kernel_count - 1);
}
