// loom::error: the exception Loom throws, and the kinds of it a program may want to tell
// apart (docs/errors.md). Every message says what went wrong and what the user can do about
// it; catching loom::error catches every kind.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace loom {

class error : public std::runtime_error {
public:
    explicit error(const std::string& what) : std::runtime_error(what) {}
};

// A generated kernel the device's compiler rejected, or its driver could not load. log(): the
// compiler's output; source_path(): the file the kernel's source was saved to, for a bug
// report ("" when it could not be saved).
class build_error : public error {
public:
    build_error(const std::string& what, std::string log, std::string source_path)
        : error(what), log_(std::move(log)), source_path_(std::move(source_path)) {}
    const std::string& log() const noexcept { return log_; }
    const std::string& source_path() const noexcept { return source_path_; }

private:
    std::string log_;
    std::string source_path_;
};

// More device memory than the device has, or a vector larger than its largest allocation.
class out_of_memory : public error {
public:
    explicit out_of_memory(const std::string& what) : error(what) {}
};

// No device to run on: none installed, none behind the backend asked for, or none that
// LOOM_DEVICE (context_options::device) names.
class no_device : public error {
public:
    explicit no_device(const std::string& what) : error(what) {}
};

// Vectors of unequal length in one element-wise statement.
class length_error : public error {
public:
    explicit length_error(const std::string& what) : error(what) {}
};

} // namespace loom
