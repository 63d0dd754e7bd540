// The backend interface: everything Loom asks of a device. Both backends implement
// all of it; nothing above src/backend sees OpenCL or CUDA headers.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codegen/dialect.hpp"
#include "loom/error.hpp"
#include "loom/interop.hpp"

namespace loom::backend {

struct device_info {
    std::string backend; // "opencl" or "cuda"
    std::string name;
    std::string vendor;
    std::string driver;   // driver version, part of the kernel cache key
    std::string platform; // OpenCL platform, or "CUDA <driver version>"
    bool fp64 = false;
    bool gpu = false;
    unsigned compute_units = 1;
    std::size_t max_work_group = 1;
    std::uint64_t global_memory = 0;
    std::uint64_t max_allocation = ~std::uint64_t(0); // the largest single buffer, in bytes
    // The bytes of arguments one kernel may take (OpenCL guarantees at least 1024).
    std::size_t max_parameter_bytes = 1024;
};

// The device memory live on one physical device, allocated by any context of the process (each
// context opens a backend device of its own on it). device::allocate adds to it, and a memory's
// destructor takes its bytes back once the backend has freed them.
class memory_ledger {
public:
    // Adds `bytes` when the total stays within `limit` (0: no limit); false, adding nothing, when not.
    bool reserve(std::uint64_t bytes, std::uint64_t limit);
    void release(std::uint64_t bytes) { in_use_.fetch_sub(bytes); }
    std::uint64_t in_use() const { return in_use_.load(); }

private:
    std::atomic<std::uint64_t> in_use_{0};
};

// The ledger of the physical device `id` names: the backend with the driver's own handle of the
// device, never its name alone (two boards of one model share a name). Never destroyed: memory
// freed at exit still returns its bytes.
memory_ledger& ledger_of(const std::string& id);

// One device allocation. Owned by a Loom buffer; freed by its destructor.
class memory {
public:
    virtual ~memory() {
        if (ledger_) ledger_->release(bytes_);
    }

private:
    friend class device; // device::allocate records where the bytes were counted
    memory_ledger* ledger_ = nullptr;
    std::uint64_t bytes_ = 0;
};

// The backend's own handles of an open device, as integers (docs/interop.md): OpenCL's
// cl_context, cl_command_queue and cl_device_id; CUDA's CUcontext, CUstream and CUdevice.
struct native_handles {
    backend_kind backend = backend_kind::opencl;
    std::uint64_t context = 0;
    std::uint64_t queue = 0;
    std::uint64_t device = 0;
};

// A point in a device's queue (device::mark): another device's queue may wait for the work
// enqueued before it (device::wait_for), with no wait on the host.
class queue_mark {
public:
    virtual ~queue_mark() = default;
};

// A compiled kernel ready to launch.
class kernel {
public:
    virtual ~kernel() = default;
    // The parameters its entry point declares, where the driver can tell (OpenCL); nullopt where
    // it cannot (CUDA). Asked when a hand-written kernel is made, never on the launch path.
    virtual std::optional<std::size_t> parameter_count() const { return std::nullopt; }
};

// Launch geometry chosen by the skeleton layer (src/launch/policy.hpp).
struct geometry {
    std::uint64_t global_items = 0; // total work-items / threads (along the first dimension)
    std::uint32_t group_size = 0;   // work-group / block size; 0 lets the runtime choose
    // A 2-D launch (a grid kernel, launch::grid_geometry): `rows` work-items along the
    // second dimension, in groups of `group_rows`. 0: a 1-D launch.
    std::uint64_t rows = 0;
    std::uint32_t group_rows = 0;
};

// One kernel argument: a buffer, or the bytes of a scalar.
struct kernel_arg {
    const memory* buffer = nullptr;
    const void* value = nullptr;
    std::size_t size = 0;
};

// The device's own time for the launches it has finished (profiling on): backend/kernel_clock.hpp.
struct kernel_timing {
    std::uint64_t launches = 0;
    std::uint64_t ns = 0;
};

struct build_result {
    std::unique_ptr<kernel> compiled;
    std::vector<unsigned char> binary; // what the disk cache stores
    std::string binary_kind;           // "opencl-binary", "cubin", "ptx"
    std::string log;
};

// A kernel source the device compiler rejected. The runtime adds the path of the saved source.
class build_failure : public error {
public:
    build_failure(const std::string& what, std::string log) : error(what), log(std::move(log)) {}
    std::string log;
};

class device {
public:
    virtual ~device() = default;
    virtual const device_info& info() const = 0;
    virtual const codegen::dialect& dialect() const = 0;
    virtual std::string compile_options() const = 0;

    // Throws loom::error (out of device memory, with the size asked for), before the driver sees
    // the request when the device cannot hold it beside what every context of the process holds
    // on it already: some drivers (PoCL) allocate lazily and abort the process when that fails
    // inside a later command.
    std::unique_ptr<memory> allocate(std::size_t bytes);
    // The bytes live on this physical device, allocated by any context of the process.
    std::uint64_t memory_in_use() const { return ledger().in_use(); }
    // Transfers are ordered with launches on the device's one queue/stream and block until done.
    virtual void write(memory& dst, std::size_t offset, const void* src, std::size_t bytes) = 0;
    virtual void read(const memory& src, std::size_t offset, void* dst, std::size_t bytes) = 0;
    virtual void copy(const memory& src, memory& dst, std::size_t bytes) = 0;

    // Between devices (the parts of a context over several devices, docs/multi-device.md): whether
    // this device's queue can copy memory of `other`'s into its own (OpenCL: the two share a
    // cl_context, as the sub-devices of one device do). Where not, data between them goes through
    // the host.
    virtual bool copies_from(const device& other) const {
        (void)other;
        return false;
    }
    // Enqueues a copy of `bytes` from `src` (this device's memory, or that of a device it
    // copies_from) at src_offset into dst at dst_offset; does not wait. Only where copies_from.
    virtual void copy_between(const memory& src, std::size_t src_offset, memory& dst, std::size_t dst_offset,
                              std::size_t bytes);
    // The work enqueued so far, as a mark another device of the same backend context may wait for
    // (wait_for: the work it enqueues next starts after the marked work). Only where copies_from.
    virtual std::unique_ptr<queue_mark> mark();
    virtual void wait_for(const queue_mark& m);

    // Compiles source whose entry point (the kernel) is named `entry`. Throws build_failure.
    virtual build_result build(const std::string& source, const std::string& entry) = 0;
    // Whether build() may run on several threads at once (the program cache then compiles a
    // flush's new kernels concurrently).
    virtual bool concurrent_builds() const { return false; }
    // Rebuilds the kernel named `entry` from a cached binary; nullptr when the driver rejects it
    // or the binary holds no such kernel.
    virtual std::unique_ptr<kernel> load(const std::vector<unsigned char>& binary, const std::string& binary_kind,
                                         const std::string& entry) = 0;

    // Enqueues the kernel with these arguments; does not wait.
    virtual void launch(kernel& k, const kernel_arg* args, std::size_t count, const geometry& g) = 0;
    virtual void finish() = 0;

    // With profiling on (open_device): the launches finished so far and their device time,
    // without waiting for the rest. Zero when profiling is off.
    virtual kernel_timing timing() = 0;

    // Interop (docs/interop.md): the device's own handles, and the handle (cl_mem, CUdeviceptr)
    // of one of its memories.
    virtual native_handles native() const = 0;
    virtual std::uint64_t native_memory(const memory& m) const = 0;
    // A memory over `handle` (a cl_mem, a CUdeviceptr) that its caller owns: Loom never frees it,
    // and it is not counted in the ledger (allocate() alone counts). Throws loom::error when the
    // backend can tell that it is not memory of this device's context, or is smaller than `bytes`.
    virtual std::unique_ptr<memory> wrap_memory(std::uint64_t handle, std::size_t bytes) = 0;

protected:
    // The backend's allocation, once the ledger has room for it. Throws loom::error.
    virtual std::unique_ptr<memory> allocate_memory(std::size_t bytes) = 0;
    // The ledger of the physical device this one opens (ledger_of).
    virtual memory_ledger& ledger() const = 0;
};

// Chooses a device from LOOM_BACKEND (opencl | cuda | auto) and LOOM_DEVICE (index or
// name substring). Throws loom::error saying what was found and how to fix it (loom::no_device
// when no device matches). With `profiling`, the device times every launch (device::timing).
std::unique_ptr<device> open_device(const std::string& backend, const std::string& device_filter,
                                    bool profiling = false);

// Device `device_filter` split into `parts` equal sub-devices (OpenCL's clCreateSubDevices; the
// auto backend takes OpenCL's devices here), each a device of its own. Throws loom::error when
// the backend or the device cannot split.
std::vector<std::unique_ptr<device>> open_sub_devices(const std::string& backend, const std::string& device_filter,
                                                      unsigned parts, bool profiling = false);

// One backend's devices, in the order a LOOM_DEVICE index counts them, and the one its open
// function would open for a device filter (none: it would throw).
struct device_listing {
    std::vector<device_info> devices;
    std::optional<std::size_t> chosen;
};

// A device of the process's listing (list_devices): its backend's index of it, and whether
// open_device opens it for the backend and filter asked about.
struct listed_device {
    device_info info;
    std::size_t index = 0;
    bool chosen = false;
};

// Every device of every backend built in (CUDA's, then OpenCL's), without opening any, and the
// one open_device(backend, device_filter) would open marked `chosen` (none when it would
// throw). A backend without a driver or device contributes nothing. Serialised with open_device.
std::vector<listed_device> list_devices(const std::string& backend, const std::string& device_filter);

} // namespace loom::backend
