// Writing kernel sources for LOOM_DUMP_SOURCE (source_dump.hpp).
#include "cache/source_dump.hpp"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <unistd.h>

#include "loom/error.hpp"
#include "support/environment.hpp"
#include "support/log.hpp"

namespace loom::cache {
namespace fs = std::filesystem;

dump_settings dump_settings_from_environment() {
    dump_settings s;
    const std::optional<std::string> value = environment::text("LOOM_DUMP_SOURCE");
    if (!value) return s;
    const std::optional<bool> on = environment::switch_word(*value);
    if (on == false) return s;
    if (on == true || *value == "stderr") {
        s.to = dump_settings::target::standard_error;
        return s;
    }
    if (*value == "stdout")
        throw environment::refusal("LOOM_DUMP_SOURCE", *value, "a place for kernel sources",
                                   "they would mix with the program's output. Use stderr, a directory (./stdout for "
                                   "a directory of that name), or off (the default)");
    s.to = dump_settings::target::directory;
    s.dir = *value;
    return s;
}

namespace {

// Empty on success, else why not. Written under a private name and renamed, so that a reader
// (or a second process dumping the same kernel) never sees half a file.
std::string write_whole(const fs::path& path, const std::string& text) {
    static std::atomic<unsigned long> counter{0};
    const fs::path temp = path.string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    std::FILE* f = std::fopen(temp.c_str(), "wb");
    if (!f) return std::strerror(errno);
    int err = 0;
    if (std::fwrite(text.data(), 1, text.size(), f) != text.size()) err = errno ? errno : EIO;
    if (std::fclose(f) != 0 && err == 0) err = errno;
    std::error_code ec;
    if (err == 0) fs::rename(temp, path, ec);
    if (err != 0 || ec) {
        fs::remove(temp, ec);
        return err != 0 ? std::strerror(err) : ec.message();
    }
    return {};
}

} // namespace

void source_dump::write(const codegen::kernel_source& k, const std::string& extension) {
    if (!enabled()) return;
    const std::string text = k.text();
    if (settings_.to == dump_settings::target::standard_error) {
        // One fwrite: stdio's lock keeps the kernel whole among other threads' output.
        const std::string block =
            "loom source: " + k.name + extension + "\n" + text + (text.empty() || text.back() == '\n' ? "" : "\n");
        std::fwrite(block.data(), 1, block.size(), stderr);
        std::fflush(stderr);
        return;
    }
    std::string problem;
    try {
        std::error_code ec;
        fs::create_directories(settings_.dir, ec);
        if (ec) problem = "cannot create " + settings_.dir.string() + " (" + ec.message() + ")";
        const fs::path file = settings_.dir / (k.name + extension);
        if (problem.empty()) {
            const std::string why = write_whole(file, text);
            if (!why.empty()) problem = "cannot write " + file.string() + " (" + why + ")";
        }
    } catch (const std::exception& e) { // out of memory, a path the file system refuses
        problem = std::string("cannot write in ") + settings_.dir.string() + " (" + e.what() + ")";
    }
    if (!problem.empty() && !failed_.exchange(true))
        logging::warn("LOOM_DUMP_SOURCE: " + problem +
                      "; this context writes no more kernel sources (its kernels build and run as usual)");
}

} // namespace loom::cache
