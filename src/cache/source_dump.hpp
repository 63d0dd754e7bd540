// LOOM_DUMP_SOURCE: the source of each kernel the device compiler builds, written just before
// it builds it (so a compiler that crashes leaves the source behind), to stderr or as
// <dir>/<kernel name>.cl|.cu. Kernels found in memory or in the disk cache are not new and are
// not written. docs/debugging.md.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>

#include "codegen/kernel_source.hpp"

namespace loom::cache {

struct dump_settings {
    enum class target { none, standard_error, directory } to = target::none;
    std::filesystem::path dir; // target::directory
};

// LOOM_DUMP_SOURCE: unset, empty or a switch's off (off, 0, false, in any case): none; stderr
// or a switch's on (on, 1, true): standard error; anything else: a directory (created when
// first written). Throws loom::error for stdout, which would mix kernels into the program's output.
dump_settings dump_settings_from_environment();

class source_dump {
public:
    explicit source_dump(dump_settings s) : settings_(std::move(s)) {}

    bool enabled() const { return settings_.to != dump_settings::target::none && !failed_.load(); }
    // Writes k.text() (`extension`: the dialect's ".cl" or ".cu"). Never throws: a directory that
    // cannot be created or written gives one warning and ends dumping into it; the kernel is
    // built all the same.
    void write(const codegen::kernel_source& k, const std::string& extension);

private:
    dump_settings settings_;
    std::atomic<bool> failed_{false};
};

} // namespace loom::cache
