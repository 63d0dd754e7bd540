// Compiled kernels by source text, for one device: in memory, then on disk (disk_cache),
// then the device compiler. Only a plan-cache miss reaches this cache, so hashing source
// text here is off the dispatch path by construction.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include "backend/device.hpp"
#include "cache/disk_cache.hpp"

namespace loom::cache {

struct program_stats {
    std::uint64_t compiled = 0;    // device compiler runs
    std::uint64_t memory_hits = 0; // source already compiled in this process
    std::uint64_t disk_hits = 0;   // binary loaded from the disk cache
};

class program_cache {
public:
    // Reads the disk cache's settings from the environment (throws loom::error on a bad value).
    explicit program_cache(backend::device& dev);
    program_cache(backend::device& dev, settings disk);
    ~program_cache();

    // The kernel for this source, compiled at most once per process (and, with the disk
    // cache, once per machine). `summary` describes the statements for logs and metadata.
    // Throws loom::error with the build log and the path of the saved source on failure.
    backend::kernel& get(const std::string& source, const std::string& summary);

    const program_stats& stats() const { return stats_; }

private:
    backend::kernel& compile(const std::string& source, const std::string& summary);
    backend::kernel& keep(const std::string& source, std::unique_ptr<backend::kernel> k);

    backend::device& device_;
    disk_cache disk_;
    std::unordered_map<std::string, std::unique_ptr<backend::kernel>> kernels_;
    program_stats stats_;
};

} // namespace loom::cache
