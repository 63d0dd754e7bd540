// In-memory program cache and the compile path (with the build-failure report).
#include "cache/program_cache.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>
#include <filesystem>
#include <fstream>

#include <xxhash.h>

#include "cache/build_turns.hpp"
#include "support/environment.hpp"
#include "support/log.hpp"

namespace loom::cache {
namespace {

std::string short_hash(const std::string& text) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(XXH3_64bits(text.data(), text.size())));
    return hex;
}

// Keeps the rejected source where the user can open it, and says where ("" when it could not).
std::string save_failed_source(const std::string& source, const std::string& extension) {
    std::error_code ec;
    const auto path =
        std::filesystem::temp_directory_path(ec) / ("loom-build-failure-" + short_hash(source) + extension);
    std::ofstream out(path);
    out << source;
    return out ? path.string() : std::string();
}

// What a compiled kernel is found by, in memory and on disk: its entry point and its body.
// Generated kernels name themselves in their body; a hand-written kernel's source may define
// several, and each name asked for is a kernel of its own.
std::string found_by(const codegen::kernel_source& source) { return source.name + '\n' + source.body; }

} // namespace

program_cache::program_cache(backend::device& dev, void (*after_build)())
    : program_cache(dev, settings_from_environment(), after_build) {}
unsigned compile_threads_from_environment() {
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    const std::optional<std::uint64_t> n = environment::whole_number(
        "LOOM_COMPILE_THREADS", 1, 1024, "a thread count",
        "give the most kernels to compile at once, from 1 to 1024 (default: " + std::to_string(hardware) +
            ", the hardware's threads)");
    return n ? unsigned(*n) : hardware;
}

program_cache::program_cache(backend::device& dev, settings disk, void (*after_build)())
    : device_(dev), options_(dev.compile_options()), compile_threads_(compile_threads_from_environment()),
      after_build_(after_build), disk_(std::move(disk)), dump_(dump_settings_from_environment()) {}

// Views into `source` and this cache's members: valid while both are.
kernel_identity program_cache::identity_of(const std::string& source) const {
    const backend::device_info& info = device_.info();
    return {source, info.backend, info.name, info.driver, options_};
}
// A driver may delete a program's temporary files when it is released (PoCL without its own
// kernel cache): each kernel goes in its build turn, so that no other context builds, loads or
// releases the same text meanwhile.
program_cache::~program_cache() {
    for (auto& [text, kept] : kernels_) {
        build_turn turn(kept.k);
        kept.kernel.reset();
    }
}

cached_kernel& program_cache::entry(const codegen::kernel_source& source, const std::string& summary) {
    auto it = kernels_.find(found_by(source));
    if (it != kernels_.end()) {
        ++stats_.memory_hits;
        if (logging::enabled(logging::channel::cache))
            logging::write(logging::channel::cache, "memory hit " + source.name);
        return it->second;
    }
    return compile(source, summary);
}

cached_kernel& program_cache::keep(const codegen::kernel_source& source, const key& k,
                                   std::unique_ptr<backend::kernel> kernel) {
    cached_kernel& slot = kernels_[found_by(source)];
    slot.kernel = std::move(kernel);
    slot.name = source.name;
    slot.k = k;
    slot.tuning = disk_.load_tuning(k);
    return slot;
}

void program_cache::record_tuning(cached_kernel& k, tuning_record r) {
    disk_.store_tuning(k.k, r);
    k.tuning = std::move(r);
}

cached_kernel* program_cache::from_disk(const codegen::kernel_source& source) {
    const std::string text = found_by(source);
    const kernel_identity identity = identity_of(text);
    const key k = make_key(identity);
    std::string kind;
    if (auto binary = disk_.load(k, identity, &kind)) {
        if (auto loaded = device_.load(*binary, kind, source.name)) {
            ++stats_.disk_hits; // disk_cache logs the hit
            return &keep(source, k, std::move(loaded));
        }
        disk_.forget(k); // the driver rejected it: rebuild and store a fresh one
    }
    return nullptr;
}

std::pair<backend::build_result, double> program_cache::build(const codegen::kernel_source& source) const {
    const std::string text = source.text();
    const auto start = std::chrono::steady_clock::now();
    try {
        backend::build_result built = device_.build(text, source.name);
        return {std::move(built),
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count()};
    } catch (const backend::build_failure& failure) {
        const std::string path = save_failed_source(text, device_.dialect().source_extension);
        // A kernel calling the user's own device code most likely fails in it: say so, and whose.
        const std::vector<std::string> functions = codegen::source_functions_in(text);
        std::string whose;
        for (const std::string& f : functions) whose += (whose.empty() ? "'" : ", '") + f + "'";
        const std::string advice = functions.empty() ? "; please report it with the build log."
                                                     : "; the kernel calls loom::function " + whose +
                                                           " from source text: check its body against the build log.";
        throw build_error(std::string(failure.what()) + ".\nBuild log:\n" + failure.log +
                              "\nThe generated source is saved in " + (path.empty() ? "(could not be saved)" : path) +
                              advice,
                          failure.log, path);
    }
}

cached_kernel& program_cache::keep_built(const codegen::kernel_source& source, const std::string& summary,
                                         backend::build_result built, double ms) {
    const std::string text = found_by(source);
    const kernel_identity identity = identity_of(text);
    const key k = make_key(identity);
    ++stats_.compiled;
    if (after_build_) after_build_();
    if (logging::enabled(logging::channel::cache)) logging::write(logging::channel::cache, "miss " + k.hex());
    if (logging::enabled(logging::channel::compile))
        logging::write(logging::channel::compile, device_.info().backend + " " + k.hex() + " " + source.name + " " +
                                                      std::to_string(source.body.size()) + " bytes " +
                                                      std::to_string(ms) + " ms: " + summary);
    if (!built.binary.empty())
        disk_.store(k, identity, built.binary,
                    {summary, ms, built.log, device_.dialect().source_extension, built.binary_kind, source.name,
                     source.header});
    return keep(source, k, std::move(built.compiled));
}

cached_kernel& program_cache::compile(const codegen::kernel_source& source, const std::string& summary) {
    const key k = make_key(identity_of(found_by(source)));
    build_turn turn(k); // no other context builds this text meanwhile
    if (const shared_binary* shared = turn.shared())
        if (auto loaded = device_.load(shared->binary, shared->kind, source.name)) {
            ++stats_.memory_hits; // compiled in this process, by another context
            return keep(source, k, std::move(loaded));
        }
    if (cached_kernel* hit = from_disk(source)) return *hit;
    dump_.write(source, device_.dialect().source_extension);
    auto [built, ms] = build(source);
    turn.share(built.binary, built.binary_kind);
    return keep_built(source, summary, std::move(built), ms);
}

std::vector<cached_kernel*> program_cache::entries(const std::vector<request>& requests) {
    std::vector<cached_kernel*> out(requests.size(), nullptr);
    std::vector<std::size_t> misses; // first request of each source not in memory
    std::vector<std::string> keys(requests.size());
    for (std::size_t r = 0; r < requests.size(); ++r) {
        keys[r] = found_by(requests[r].source);
        auto it = kernels_.find(keys[r]);
        if (it != kernels_.end()) {
            out[r] = &it->second;
            ++stats_.memory_hits;
        } else if (std::none_of(misses.begin(), misses.end(), [&](std::size_t m) { return keys[m] == keys[r]; })) {
            misses.push_back(r);
        }
    }
    // Each miss on a thread of its own where the device allows, in its build turn: a binary
    // another context shared meanwhile, else the disk, else the compiler. Kept afterwards, here.
    struct outcome {
        key k;
        std::unique_ptr<backend::kernel> loaded; // from a shared binary or the disk
        bool from_disk = false;
        std::pair<backend::build_result, double> built;
        std::exception_ptr failed;
    };
    std::vector<outcome> found(misses.size());
    auto find_one = [&](std::size_t m) {
        const codegen::kernel_source& source = requests[misses[m]].source;
        outcome& o = found[m];
        try {
            const std::string text = found_by(source);
            const kernel_identity identity = identity_of(text);
            o.k = make_key(identity);
            build_turn turn(o.k);
            if (const shared_binary* shared = turn.shared())
                if ((o.loaded = device_.load(shared->binary, shared->kind, source.name))) return;
            std::string kind;
            if (auto binary = disk_.load(o.k, identity, &kind)) {
                if ((o.loaded = device_.load(*binary, kind, source.name))) {
                    o.from_disk = true; // disk_cache logs the hit
                    return;
                }
                disk_.forget(o.k); // the driver rejected it: rebuild and store a fresh one
            }
            dump_.write(source, device_.dialect().source_extension);
            o.built = build(source);
            turn.share(o.built.first.binary, o.built.first.binary_kind);
        } catch (...) {
            o.failed = std::current_exception();
        }
    };
    const std::size_t workers =
        device_.concurrent_builds() ? std::min<std::size_t>(misses.size(), compile_threads_) : 1;
    if (workers > 1) {
        std::atomic<std::size_t> next{0};
        std::vector<std::thread> threads;
        const std::uint64_t context = logging::context_scope::current(); // what the builders log names it
        for (std::size_t w = 0; w < workers; ++w)
            threads.emplace_back([&] {
                logging::context_scope scope(context);
                for (std::size_t m; (m = next.fetch_add(1)) < misses.size();) find_one(m);
            });
        for (std::thread& t : threads) t.join();
    } else {
        for (std::size_t m = 0; m < misses.size(); ++m) find_one(m);
    }
    std::exception_ptr first_failure;
    for (std::size_t m = 0; m < misses.size(); ++m) {
        outcome& o = found[m];
        const request& req = requests[misses[m]];
        if (o.failed) {
            if (!first_failure) first_failure = o.failed;
        } else if (o.loaded) {
            ++(o.from_disk ? stats_.disk_hits : stats_.memory_hits);
            keep(req.source, o.k, std::move(o.loaded));
        } else {
            keep_built(req.source, req.summary, std::move(o.built.first), o.built.second);
        }
    }
    if (first_failure) std::rethrow_exception(first_failure);
    for (std::size_t r = 0; r < requests.size(); ++r)
        if (!out[r]) out[r] = &kernels_.at(keys[r]);
    return out;
}

} // namespace loom::cache
