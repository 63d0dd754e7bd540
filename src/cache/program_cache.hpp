// Compiled kernels by source text, for one device: in memory, then on disk (disk_cache),
// then the device compiler. Only a plan-cache miss reaches this cache, so hashing source
// text here is off the dispatch path by construction. A kernel is found by its entry point's
// name and its body (a hand-written source may define several kernels); its comment header goes
// to the compiler, the disk entry and LOOM_DUMP_SOURCE, but does not tell kernels apart.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backend/device.hpp"
#include "cache/disk_cache.hpp"
#include "cache/source_dump.hpp"
#include "codegen/kernel_source.hpp"

namespace loom::cache {

struct program_stats {
    std::uint64_t compiled = 0;    // device compiler runs
    std::uint64_t memory_hits = 0; // source already compiled in this process
    std::uint64_t disk_hits = 0;   // binary loaded from the disk cache
};

// One compiled kernel, its name (the entry point profilers show), its cache key, and its tuned
// geometry (loaded with the entry, or measured in this process: see runtime/map_tuning.cpp).
struct cached_kernel {
    std::unique_ptr<backend::kernel> kernel;
    std::string name;
    key k;
    std::optional<tuning_record> tuning;
};

class program_cache {
public:
    // Reads the disk cache's settings, LOOM_COMPILE_THREADS (the most kernels compiled at once;
    // default: the hardware's threads) and LOOM_DUMP_SOURCE from the environment (throws
    // loom::error on a bad value).
    // `after_build`, when given, is called after every kernel the device compiler builds.
    explicit program_cache(backend::device& dev, void (*after_build)() = nullptr);
    program_cache(backend::device& dev, settings disk, void (*after_build)() = nullptr);
    ~program_cache();

    // The kernel for this source, compiled at most once per process (and, with the disk
    // cache, once per machine). `summary` describes the statements for logs and metadata.
    // Throws loom::error with the build log and the path of the saved source on failure.
    backend::kernel& get(const codegen::kernel_source& source, const std::string& summary) {
        return *entry(source, summary).kernel;
    }
    // The same, with its name, key and tuning.
    cached_kernel& entry(const codegen::kernel_source& source, const std::string& summary);
    // The kernels for several sources at once (one flush's new kernels): those neither in memory
    // nor on disk are compiled concurrently where the device allows it. All are compiled before
    // the first failure is thrown, so that the cache keeps what did compile.
    struct request {
        codegen::kernel_source source;
        std::string summary;
    };
    std::vector<cached_kernel*> entries(const std::vector<request>& requests);
    // Keeps a tuning measured in this process with the kernel, in memory and on disk.
    void record_tuning(cached_kernel& k, tuning_record r);

    const program_stats& stats() const { return stats_; }

private:
    cached_kernel& compile(const codegen::kernel_source& source, const std::string& summary);
    // The kernel from the disk cache, kept in memory; null on a miss.
    cached_kernel* from_disk(const codegen::kernel_source& source);
    // Builds the source (any thread, where the device allows) and times it; throws loom::error
    // with the build log and the saved source.
    std::pair<backend::build_result, double> build(const codegen::kernel_source& source) const;
    // Logs, stores on disk and keeps a kernel build() made.
    cached_kernel& keep_built(const codegen::kernel_source& source, const std::string& summary,
                              backend::build_result built, double ms);
    cached_kernel& keep(const codegen::kernel_source& source, const key& k, std::unique_ptr<backend::kernel> kernel);

    kernel_identity identity_of(const std::string& source) const;

    backend::device& device_;
    const std::string options_; // the device's compile options, part of every identity
    unsigned compile_threads_;  // LOOM_COMPILE_THREADS, else the hardware's threads
    void (*after_build_)();
    disk_cache disk_;
    source_dump dump_;
    std::unordered_map<std::string, cached_kernel> kernels_; // by found_by(); node-based: entries never move
    program_stats stats_;
};

} // namespace loom::cache
