// Compiled kernels by source text, for one device. Only a plan-cache miss reaches this
// cache, so hashing source text here is off the dispatch path by construction.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include "backend/device.hpp"

namespace loom::cache {

struct program_stats {
    std::uint64_t compiled = 0;    // device compiler runs
    std::uint64_t memory_hits = 0; // source already compiled in this process
    std::uint64_t disk_hits = 0;   // binary loaded from the disk cache
};

class program_cache {
public:
    explicit program_cache(backend::device& dev);
    ~program_cache();

    // The kernel for this source, compiled at most once per process (and, with the disk
    // cache, once per machine). `summary` describes the statements for logs and metadata.
    // Throws loom::error with the build log and the path of the saved source on failure.
    backend::kernel& get(const std::string& source, const std::string& summary);

    const program_stats& stats() const { return stats_; }

private:
    backend::kernel& compile(const std::string& source, const std::string& summary);

    backend::device& device_;
    std::unordered_map<std::string, std::unique_ptr<backend::kernel>> kernels_;
    program_stats stats_;
};

} // namespace loom::cache
