// In-memory program cache and the compile path (with the build-failure report).
#include "cache/program_cache.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>

#include <xxhash.h>

#include "support/log.hpp"

namespace loom::cache {
namespace {

std::string short_hash(const std::string& text) {
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(XXH3_64bits(text.data(), text.size())));
    return hex;
}

// Keeps the rejected source where the user can open it, and says where.
std::string save_failed_source(const std::string& source, const std::string& extension) {
    std::error_code ec;
    const auto path = std::filesystem::temp_directory_path(ec) / ("loom-build-failure-" + short_hash(source) + extension);
    std::ofstream out(path);
    out << source;
    return out ? path.string() : std::string("(could not be saved)");
}

} // namespace

program_cache::program_cache(backend::device& dev) : program_cache(dev, settings_from_environment()) {}
program_cache::program_cache(backend::device& dev, settings disk) : device_(dev), disk_(std::move(disk)) {}
program_cache::~program_cache() = default;

cached_kernel& program_cache::entry(const std::string& source, const std::string& summary) {
    auto it = kernels_.find(source);
    if (it != kernels_.end()) {
        ++stats_.memory_hits;
        if (logging::enabled(logging::channel::cache)) logging::write(logging::channel::cache, "memory hit " + short_hash(source));
        return it->second;
    }
    return compile(source, summary);
}

cached_kernel& program_cache::keep(const std::string& source, const key& k, std::unique_ptr<backend::kernel> kernel) {
    cached_kernel& slot = kernels_[source];
    slot.kernel = std::move(kernel);
    slot.k = k;
    slot.tuning = disk_.load_tuning(k);
    return slot;
}

void program_cache::record_tuning(cached_kernel& k, tuning_record r) {
    disk_.store_tuning(k.k, r);
    k.tuning = std::move(r);
}

cached_kernel& program_cache::compile(const std::string& source, const std::string& summary) {
    const backend::device_info& info = device_.info();
    const std::string options = device_.compile_options();
    const kernel_identity identity{source, info.backend, info.name, info.driver, options};
    const key k = make_key(identity);
    std::string kind;
    if (auto binary = disk_.load(k, identity, &kind)) {
        if (auto loaded = device_.load(*binary, kind)) {
            ++stats_.disk_hits; // disk_cache logs the hit
            return keep(source, k, std::move(loaded));
        }
        disk_.forget(k); // the driver rejected it: rebuild and store a fresh one
    }
    const auto start = std::chrono::steady_clock::now();
    backend::build_result built;
    try {
        built = device_.build(source);
    } catch (const backend::build_failure& failure) {
        const std::string path = save_failed_source(source, device_.dialect().source_extension);
        throw error(std::string(failure.what()) + ".\nBuild log:\n" + failure.log + "\nThe generated source is saved in " +
                    path + "; please report it with the build log.");
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    ++stats_.compiled;
    if (logging::enabled(logging::channel::cache)) logging::write(logging::channel::cache, "miss " + k.hex());
    if (logging::enabled(logging::channel::compile))
        logging::write(logging::channel::compile, info.backend + " " + k.hex() + " " + std::to_string(source.size()) +
                                                      " bytes " + std::to_string(ms) + " ms: " + summary);
    if (!built.binary.empty())
        disk_.store(k, identity, built.binary,
                    {summary, ms, built.log, device_.dialect().source_extension, built.binary_kind});
    return keep(source, k, std::move(built.compiled));
}

} // namespace loom::cache
