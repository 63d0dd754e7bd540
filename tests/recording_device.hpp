// A test double of backend::device: memory is host bytes, builds always succeed, and every
// allocation, build and launch (its kernel, the bytes or buffer of each argument, its geometry)
// is recorded, so the planners and the executor are tested without OpenCL or CUDA. Nothing
// runs: a test checks what would have been launched.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backend/device.hpp"
#include "codegen/dialect.hpp"
#include "loom/error.hpp"

namespace loom::testing {

class recording_device final : public backend::device {
public:
    struct host_memory final : backend::memory {
        explicit host_memory(std::size_t n) : bytes(n) {}
        std::vector<unsigned char> bytes;
    };
    struct named_kernel final : backend::kernel {
        explicit named_kernel(std::string n) : name(std::move(n)) {}
        std::string name;
    };
    // One argument as launched: the buffer it names, or the bytes of its value.
    struct recorded_arg {
        const backend::memory* buffer = nullptr;
        std::vector<unsigned char> value;

        std::uint64_t as_u64() const {
            std::uint64_t v = 0;
            std::memcpy(&v, value.data(), std::min(value.size(), sizeof v));
            return v;
        }
    };
    struct recorded_launch {
        const backend::kernel* kernel = nullptr;
        std::vector<recorded_arg> args;
        backend::geometry geometry;
    };

    explicit recording_device(backend::device_info info) : info_(std::move(info)) {}

    const backend::device_info& info() const override { return info_; }
    const codegen::dialect& dialect() const override { return codegen::opencl_dialect(); }
    std::string compile_options() const override { return {}; }

    void write(backend::memory& dst, std::size_t offset, const void* src, std::size_t bytes) override {
        std::memcpy(static_cast<host_memory&>(dst).bytes.data() + offset, src, bytes);
    }
    void read(const backend::memory& src, std::size_t offset, void* dst, std::size_t bytes) override {
        std::memcpy(dst, static_cast<const host_memory&>(src).bytes.data() + offset, bytes);
    }
    void copy(const backend::memory& src, backend::memory& dst, std::size_t bytes) override {
        std::memcpy(static_cast<host_memory&>(dst).bytes.data(), static_cast<const host_memory&>(src).bytes.data(),
                    bytes);
    }
    backend::build_result build(const std::string& source, const std::string& entry) override {
        builds.push_back(source);
        backend::build_result r;
        r.compiled = std::make_unique<named_kernel>(entry);
        return r;
    }
    std::unique_ptr<backend::kernel> load(const std::vector<unsigned char>&, const std::string&,
                                          const std::string&) override {
        return nullptr;
    }
    void launch(backend::kernel& k, const backend::kernel_arg* args, std::size_t count,
                const backend::geometry& g) override {
        recorded_launch l{&k, {}, g};
        for (std::size_t a = 0; a < count; ++a) {
            recorded_arg r;
            r.buffer = args[a].buffer;
            if (args[a].value) {
                const auto* bytes = static_cast<const unsigned char*>(args[a].value);
                r.value.assign(bytes, bytes + args[a].size);
            }
            l.args.push_back(std::move(r));
        }
        launches.push_back(std::move(l));
    }
    void finish() override {}
    backend::kernel_timing timing() override { return {}; }
    backend::native_handles native() const override { return {}; }
    std::uint64_t native_memory(const backend::memory&) const override { return 0; }
    std::unique_ptr<backend::memory> wrap_memory(std::uint64_t, std::size_t) override {
        throw error("loom: the recording device wraps no memory");
    }

    std::vector<std::size_t> allocations; // bytes of each allocation, in order
    std::vector<std::string> builds;      // sources built, in order
    std::vector<recorded_launch> launches;

protected:
    std::unique_ptr<backend::memory> allocate_memory(std::size_t bytes) override {
        allocations.push_back(bytes);
        return std::make_unique<host_memory>(bytes);
    }
    backend::memory_ledger& ledger() const override { return ledger_; }

private:
    backend::device_info info_;
    mutable backend::memory_ledger ledger_;
};

} // namespace loom::testing
