// Shared by the cache tests: a scratch directory per test, a stand-in kernel with a
// deterministic identity and binary, stderr capture, and environment variables set for a scope.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include "cache/disk_cache.hpp"

namespace loom::cache::test {

namespace fs = std::filesystem;

// A fresh directory under the system temp dir, removed with everything in it at scope exit.
class scratch_dir {
public:
    scratch_dir() {
        static std::atomic<unsigned> counter{0};
        std::random_device random;
        path_ = fs::temp_directory_path() / ("loom-cache-test-" + std::to_string(::getpid()) + "-" +
                                             std::to_string(counter++) + "-" + std::to_string(random()));
        fs::create_directories(path_);
    }
    ~scratch_dir() {
        std::error_code ec;
        fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
        fs::remove_all(path_, ec);
    }
    scratch_dir(const scratch_dir&) = delete;
    scratch_dir& operator=(const scratch_dir&) = delete;
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

// A kernel as the runtime would hand it over; `n` picks the source text, `writer` the binary's
// last bytes (two compilers of one kernel need not produce identical binaries).
struct sample_kernel {
    std::string source, backend = "opencl", device = "pthread-Test CPU", driver = "PoCL 5.0 test",
                        options = "-cl-std=CL1.2";
    std::vector<unsigned char> binary;
    entry_details details;

    kernel_identity identity() const { return {source, backend, device, driver, options}; }
    cache::key key() const { return make_key(identity()); }
};

inline std::vector<unsigned char> sample_binary(int n, std::size_t bytes, unsigned writer = 0) {
    std::vector<unsigned char> binary(bytes);
    for (std::size_t i = 0; i < bytes; ++i) binary[i] = static_cast<unsigned char>((i * 31 + unsigned(n) * 7) & 0xFF);
    for (std::size_t i = 0; i < 4 && i < bytes; ++i)
        binary[bytes - 1 - i] = static_cast<unsigned char>(writer >> (8 * i));
    return binary;
}

inline sample_kernel make_sample(int n, std::size_t binary_bytes = 256, unsigned writer = 0) {
    sample_kernel k;
    k.source = "__kernel void loom_kernel_" + std::to_string(n) +
               "(__global float* y, __global const float* x, float a, ulong n) {\n"
               "    size_t i = get_global_id(0);\n    if (i < n) y[i] = a * x[i] + " +
               std::to_string(n) + ".0f;\n}\n";
    k.binary = sample_binary(n, binary_bytes, writer);
    k.details.summary = "y = a * x + " + std::to_string(n);
    k.details.compile_ms = 12.5;
    k.details.build_log = "build of kernel " + std::to_string(n) + ": ok\n";
    k.details.source_extension = ".cl";
    k.details.binary_kind = "opencl-binary";
    char name[24];
    std::snprintf(name, sizeof name, "loom_%016x", unsigned(n) * 0x1001u);
    k.details.name = name;
    k.details.header = "// Loom: statement " + std::to_string(n) + " of a flush\n//   " + std::to_string(n) +
                       ": b1 = b0 * p0 + " + std::to_string(n) + "\n";
    return k;
}

inline sample_kernel make_cuda_sample(int n, std::size_t binary_bytes = 256) {
    sample_kernel k = make_sample(n, binary_bytes);
    k.source = "extern \"C\" __global__ void loom_kernel_" + std::to_string(n) +
               "(float* y, const float* x, float a, unsigned long long n) {\n"
               "    unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x;\n"
               "    if (i < n) y[i] = a * x[i];\n}\n";
    k.backend = "cuda";
    k.device = "NVIDIA H100 80GB HBM3";
    k.driver = "12.4";
    k.options = "--gpu-architecture=sm_90";
    k.details.source_extension = ".cu";
    k.details.binary_kind = "cubin";
    return k;
}

inline void store(disk_cache& cache, const sample_kernel& k) {
    cache.store(k.key(), k.identity(), k.binary, k.details);
}

inline std::optional<std::vector<unsigned char>> load(disk_cache& cache, const sample_kernel& k,
                                                      std::string* kind = nullptr) {
    return cache.load(k.key(), k.identity(), kind);
}

inline settings settings_for(const fs::path& dir, mode access = mode::readwrite, std::uint64_t max_bytes = 0) {
    settings s;
    s.dir = dir;
    s.access = access;
    s.max_bytes = max_bytes;
    return s;
}

inline std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

inline void write_text(const fs::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

// Names in a directory (sorted), so a test can say exactly what a cache directory holds.
inline std::vector<std::string> names_in(const fs::path& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        names.push_back(it->path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

inline std::size_t count_of(const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
    return n;
}

// Redirects file descriptor 2 into a file for the object's lifetime; text() reads it back.
class captured_stderr {
public:
    explicit captured_stderr(const fs::path& file) : file_(file) {
        std::fflush(stderr);
        saved_ = ::dup(2);
        const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ::dup2(fd, 2);
        ::close(fd);
    }
    ~captured_stderr() { restore(); }
    std::string text() {
        restore();
        return read_text(file_);
    }

private:
    void restore() {
        if (saved_ < 0) return;
        std::fflush(stderr);
        ::dup2(saved_, 2);
        ::close(saved_);
        saved_ = -1;
    }
    fs::path file_;
    int saved_ = -1;
};

// Sets (or, with nullopt, unsets) an environment variable until scope exit.
class scoped_env {
public:
    scoped_env(const char* name, std::optional<std::string> value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value)
            ::setenv(name, value->c_str(), 1);
        else
            ::unsetenv(name);
    }
    ~scoped_env() {
        if (old_)
            ::setenv(name_.c_str(), old_->c_str(), 1);
        else
            ::unsetenv(name_.c_str());
    }
    scoped_env(const scoped_env&) = delete;
    scoped_env& operator=(const scoped_env&) = delete;

private:
    std::string name_;
    std::optional<std::string> old_;
};

} // namespace loom::cache::test
