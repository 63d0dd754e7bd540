// CUDA implementation of backend::device over the driver API: the device's primary
// context, one non-blocking stream that every transfer and launch goes to, device
// memory from cuMemAlloc, kernels compiled by NVRTC and loaded as modules.
#include "backend/cuda/cuda_device.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backend/cuda/driver_api.hpp"
#include "backend/cuda/nvrtc_compile.hpp"
#include "backend/kernel_clock.hpp"
#include "support/log.hpp"

namespace loom::backend {
namespace {

using cuda::driver_api;

// ---- the driver, once per process ------------------------------------------------

struct driver_state {
    const driver_api* api = nullptr; // null when libcuda.so.1 is unusable
    int devices = 0;
    std::string version; // "CUDA 12.4"
    std::string problem; // why there is no device, as a phrase; empty when there is one
    std::string remedy;
};

std::string version_text(int v) { return "CUDA " + std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// Built once, and never destroyed: contexts destroyed at exit still ask it.
const driver_state& driver() {
    static const driver_state& state = *[] {
        auto* heap = new driver_state;
        driver_state& s = *heap;
        std::string why;
        const driver_api* api = cuda::try_driver(&why);
        if (!api) {
            s.problem = why;
            s.remedy = "Install the NVIDIA driver (it provides libcuda.so.1) to use CUDA";
            return heap;
        }
        int version = 0;
        if (api->cuDriverGetVersion(&version) == CUDA_SUCCESS) s.version = version_text(version);
        const std::string which =
            "the NVIDIA driver (" + api->library + (s.version.empty() ? "" : ", " + s.version) + ")";
        const CUresult init = api->cuInit(0);
        if (init == CUDA_ERROR_STUB_LIBRARY) {
            s.problem = "the library loaded as " + api->library + " is the CUDA toolkit's stub, not an NVIDIA driver";
            s.remedy = "Remove the stub from the library path and install the NVIDIA driver";
        } else if (init == CUDA_ERROR_NO_DEVICE) {
            s.problem = which + " is loaded but reports 0 CUDA devices (cuInit: CUDA_ERROR_NO_DEVICE)";
            s.remedy = "Check nvidia-smi and CUDA_VISIBLE_DEVICES";
        } else if (init != CUDA_SUCCESS) {
            s.problem = which + " is loaded but failed to initialise: " + cuda::result_text(*api, init);
            s.remedy = "Check nvidia-smi; the driver may be older than the CUDA toolkit Loom was built with";
        } else if (api->cuDeviceGetCount(&s.devices) != CUDA_SUCCESS || s.devices <= 0) {
            s.devices = 0;
            s.problem = which + " is loaded but reports 0 CUDA devices";
            s.remedy = "Check nvidia-smi and CUDA_VISIBLE_DEVICES";
        } else {
            s.api = api;
        }
        return heap;
    }();
    return state;
}

// ---- errors -----------------------------------------------------------------------

[[noreturn]] void fail(const driver_api& api, CUresult r, const std::string& doing, const std::string& device) {
    const std::string what = "loom: CUDA error " + cuda::result_text(api, r) + " while " + doing + " on " + device;
    if (r == CUDA_ERROR_OUT_OF_MEMORY)
        throw out_of_memory(what + ". The device is out of memory; free vectors you no longer need");
    std::string hint;
    if (r == CUDA_ERROR_ILLEGAL_ADDRESS || r == CUDA_ERROR_LAUNCH_FAILED || r == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
        r == CUDA_ERROR_MISALIGNED_ADDRESS || r == CUDA_ERROR_HARDWARE_STACK_ERROR)
        hint = ". A kernel failed on the device; its CUDA context cannot be used any more: restart the program, and "
               "please report this with LOOM_LOG=all";
    throw error(what + hint);
}

// The context shared by a device, its allocations and its kernels: whichever goes last
// releases it, so a buffer outliving its device still frees into a live context.
struct cuda_context {
    const driver_api& api;
    CUdevice device = 0;
    CUcontext context = nullptr;
    std::string name;
    bool primary = true; // retained here; a context the caller made (interop) is only borrowed

    cuda_context(const driver_api& a, CUdevice d, std::string n) : api(a), device(d), name(std::move(n)) {
        const CUresult r = api.cuDevicePrimaryCtxRetain(&context, device);
        if (r != CUDA_SUCCESS) fail(api, r, "creating a context", name);
    }
    // The caller's context (interop): CUDA has no reference count to take, so it must outlive this.
    cuda_context(const driver_api& a, CUcontext c, CUdevice d, std::string n)
        : api(a), device(d), context(c), name(std::move(n)), primary(false) {}
    ~cuda_context() {
        if (primary) api.cuDevicePrimaryCtxRelease(device);
    }
    cuda_context(const cuda_context&) = delete;
    cuda_context& operator=(const cuda_context&) = delete;

    void check(CUresult r, const char* doing) const {
        if (r != CUDA_SUCCESS) fail(api, r, doing, name);
    }
};

// Makes the context current for one call and restores the caller's afterwards, so Loom
// never disturbs a thread's own CUDA context (the CUDA runtime's, say).
class context_scope {
public:
    explicit context_scope(const cuda_context& c) : api_(c.api) {
        c.check(api_.cuCtxPushCurrent(c.context), "making its context current");
    }
    ~context_scope() {
        CUcontext popped = nullptr;
        api_.cuCtxPopCurrent(&popped);
    }
    context_scope(const context_scope&) = delete;
    context_scope& operator=(const context_scope&) = delete;

private:
    const driver_api& api_;
};

// For destructors: pushes when it can and never throws.
class quiet_context_scope {
public:
    explicit quiet_context_scope(const cuda_context& c)
        : api_(c.api), pushed_(c.api.cuCtxPushCurrent(c.context) == CUDA_SUCCESS) {}
    ~quiet_context_scope() {
        CUcontext popped = nullptr;
        if (pushed_) api_.cuCtxPopCurrent(&popped);
    }
    quiet_context_scope(const quiet_context_scope&) = delete;
    quiet_context_scope& operator=(const quiet_context_scope&) = delete;

private:
    const driver_api& api_;
    bool pushed_;
};

// ---- memory and kernels -------------------------------------------------------------

struct cuda_memory final : memory {
    std::shared_ptr<cuda_context> owner;
    CUdeviceptr ptr = 0;
    bool owned = true; // false: the caller's memory (wrap_memory), never freed here

    ~cuda_memory() override {
        if (!ptr || !owned) return;
        quiet_context_scope scope(*owner);
        owner->api.cuMemFree(ptr); // waits for work still using it
    }
};

struct cuda_kernel final : kernel {
    std::shared_ptr<cuda_context> owner;
    CUmodule module = nullptr;
    CUfunction entry = nullptr;

    ~cuda_kernel() override {
        if (!module) return;
        quiet_context_scope scope(*owner);
        owner->api.cuModuleUnload(module);
    }
};

CUdeviceptr device_pointer(const memory& m) { return static_cast<const cuda_memory&>(m).ptr; }

// ---- profiling --------------------------------------------------------------------------

// A launch between two events on the stream.
struct timed_launch {
    CUevent start = nullptr, end = nullptr;
};

// How kernel_clock reads a timed launch, and the pool its events come back to (an event
// pair per launch, created once and reused). Callers hold the context current.
class launch_events {
public:
    explicit launch_events(const cuda_context& c) : ctx_(c) {
        if (!c.api.event_elapsed_ms)
            throw error("loom: profiling on CUDA needs cuEventElapsedTime, which " + c.api.library +
                        " does not have; update the NVIDIA driver, or turn profiling off (LOOM_PROFILE=off)");
    }
    ~launch_events() {
        for (timed_launch& t : pool_) release(t);
    }
    launch_events(const launch_events&) = delete;
    launch_events& operator=(const launch_events&) = delete;

    timed_launch take() {
        if (!pool_.empty()) {
            timed_launch t = pool_.back();
            pool_.pop_back();
            return t;
        }
        timed_launch t;
        ctx_.check(ctx_.api.cuEventCreate(&t.start, CU_EVENT_DEFAULT), "creating a timing event");
        const CUresult r = ctx_.api.cuEventCreate(&t.end, CU_EVENT_DEFAULT);
        if (r != CUDA_SUCCESS) {
            ctx_.api.cuEventDestroy(t.start);
            ctx_.check(r, "creating a timing event");
        }
        return t;
    }
    void release(timed_launch& t) {
        ctx_.api.cuEventDestroy(t.start);
        ctx_.api.cuEventDestroy(t.end);
    }

    // kernel_clock's questions. A failed query counts as finished with no time: the
    // failure itself reaches the user through the next synchronising call.
    bool finished(timed_launch& t) { return ctx_.api.cuEventQuery(t.end) != CUDA_ERROR_NOT_READY; }
    std::uint64_t elapsed_ns(timed_launch& t) {
        float ms = 0;
        if (ctx_.api.event_elapsed_ms(&ms, t.start, t.end) != CUDA_SUCCESS || !(ms > 0)) return 0;
        return std::uint64_t(double(ms) * 1e6);
    }
    void wait(timed_launch& t) { ctx_.api.cuEventSynchronize(t.end); }
    void retire(timed_launch& t) { pool_.push_back(t); }

private:
    const cuda_context& ctx_;
    std::vector<timed_launch> pool_;
};

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

std::string device_name(const driver_api& api, CUdevice dev) {
    char name[256] = {};
    if (api.cuDeviceGetName(name, int(sizeof name), dev) != CUDA_SUCCESS) return "CUDA device";
    return name;
}

// What Loom knows of a device, read from the driver without a context (an open device and a
// device listing report the same); `compute_capability` gets major * 10 + minor.
device_info describe(const driver_api& api, CUdevice dev, const std::string& version, int& compute_capability) {
    device_info info;
    info.name = device_name(api, dev);
    const auto check = [&](CUresult r, const char* doing) {
        if (r != CUDA_SUCCESS) fail(api, r, doing, info.name);
    };
    int major = 0, minor = 0, units = 1, threads = 1024;
    check(api.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
          "reading the compute capability");
    check(api.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
          "reading the compute capability");
    check(api.cuDeviceGetAttribute(&units, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev),
          "reading the multiprocessor count");
    check(api.cuDeviceGetAttribute(&threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev),
          "reading the block size limit");
    std::size_t total = 0;
    check(api.cuDeviceTotalMem(&total, dev), "reading the memory size");
    compute_capability = major * 10 + minor;
    info.backend = "cuda";
    info.vendor = "NVIDIA";
    info.driver = version.empty() ? "CUDA driver" : version + " driver";
    info.platform = version.empty() ? "CUDA" : version;
    info.fp64 = true;
    info.gpu = true;
    info.compute_units = unsigned(std::max(units, 1));
    info.max_work_group = unsigned(std::max(threads, 1));
    info.max_parameter_bytes = 4096; // every CUDA architecture Loom targets takes 4 KiB of kernel parameters
    info.global_memory = total;
    // No single allocation can exceed the device's memory: a vector larger than that is refused
    // when it is made (statement_recorder.cpp), not at the flush that would allocate it.
    info.max_allocation = total;
    return info;
}

// ---- the device ---------------------------------------------------------------------

class cuda_device final : public device {
public:
    // On the device's primary context, with a stream of its own.
    cuda_device(const driver_api& api, CUdevice dev, const std::string& version, bool profiling)
        : cuda_device(api, std::make_shared<cuda_context>(api, dev, device_name(api, dev)), nullptr, version,
                      profiling) {
        context_scope scope(*ctx_);
        ctx_->check(api_.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "creating a stream");
        own_stream_ = true;
    }

    // On `context` and `stream`; the stream is the caller's (interop), never destroyed here, unless
    // the constructor above made it.
    cuda_device(const driver_api& api, std::shared_ptr<cuda_context> context, CUstream stream,
                const std::string& version, bool profiling)
        : api_(api), ctx_(std::move(context)),
          ledger_(ledger_of("cuda " + std::to_string(ctx_->device))), // CUdevice: the driver's handle, one per device
          stream_(stream) {
        info_ = describe(api_, ctx_->device, version, compute_capability_);
        max_threads_ = unsigned(info_.max_work_group);

        // Part of the kernel cache key: a new NVRTC or another architecture compiles anew.
        const std::string target = cuda::nvrtc_target(compute_capability_);
        options_ = cuda::nvrtc_version() + " --gpu-architecture=" +
                   (target.empty() ? "unsupported-sm_" + std::to_string(compute_capability_) : target);
        for (const std::string& o : cuda::nvrtc_common_options()) options_ += " " + o;

        if (profiling) {
            context_scope scope(*ctx_);
            events_ = std::make_unique<launch_events>(*ctx_);
            clock_ = std::make_unique<kernel_clock<timed_launch, launch_events>>(*events_);
        }
    }

    ~cuda_device() override {
        quiet_context_scope scope(*ctx_);
        if (stream_ || !own_stream_) api_.cuStreamSynchronize(stream_); // a caller's null stream: the default one
        if (clock_) clock_->drop_pending([&](timed_launch& t) { events_->release(t); });
        clock_.reset();
        events_.reset();
        for (staging_buffer& s : staging_) {
            if (s.done) api_.cuEventDestroy(s.done);
            if (s.host) api_.cuMemFreeHost(s.host);
        }
        if (stream_ && own_stream_) api_.cuStreamDestroy(stream_);
    }

    const device_info& info() const override { return info_; }
    const codegen::dialect& dialect() const override { return codegen::cuda_dialect(); }
    std::string compile_options() const override { return options_; }

    void write(memory& dst, std::size_t offset, const void* src, std::size_t bytes) override {
        if (bytes == 0) return;
        context_scope scope(*ctx_);
        const CUdeviceptr to = device_pointer(dst) + offset;
        const auto* from = static_cast<const unsigned char*>(src);
        if (!staging_ready()) {
            ctx_->check(api_.cuMemcpyHtoDAsync(to, from, bytes, stream_), "copying to the device");
            ctx_->check(api_.cuStreamSynchronize(stream_), "copying to the device");
            return;
        }
        drain_on_failure([&] {
            // Chunk c goes through buffer c % 2: filling one while the other's DMA runs.
            bool busy[2] = {false, false};
            for (std::size_t c = 0, done = 0; done < bytes; ++c) {
                staging_buffer& s = staging_[c % 2];
                const std::size_t len = std::min(cuda_staging_chunk, bytes - done);
                if (busy[c % 2]) ctx_->check(api_.cuEventSynchronize(s.done), "copying to the device");
                std::memcpy(s.host, from + done, len);
                ctx_->check(api_.cuMemcpyHtoDAsync(to + done, s.host, len, stream_), "copying to the device");
                ctx_->check(api_.cuEventRecord(s.done, stream_), "copying to the device");
                busy[c % 2] = true;
                done += len;
            }
            ctx_->check(api_.cuStreamSynchronize(stream_), "copying to the device");
        });
    }

    void read(const memory& src, std::size_t offset, void* dst, std::size_t bytes) override {
        if (bytes == 0) return;
        context_scope scope(*ctx_);
        const CUdeviceptr from = device_pointer(src) + offset;
        auto* to = static_cast<unsigned char*>(dst);
        if (!staging_ready()) {
            ctx_->check(api_.cuMemcpyDtoHAsync(to, from, bytes, stream_), "copying to the host");
            ctx_->check(api_.cuStreamSynchronize(stream_), "copying to the host");
            return;
        }
        drain_on_failure([&] {
            // The DMA of chunk c + 1 runs while chunk c is copied out of its pinned buffer.
            const std::size_t chunks = (bytes + cuda_staging_chunk - 1) / cuda_staging_chunk;
            auto enqueue = [&](std::size_t c) {
                const std::size_t first = c * cuda_staging_chunk;
                const std::size_t len = std::min(cuda_staging_chunk, bytes - first);
                staging_buffer& s = staging_[c % 2];
                ctx_->check(api_.cuMemcpyDtoHAsync(s.host, from + first, len, stream_), "copying to the host");
                ctx_->check(api_.cuEventRecord(s.done, stream_), "copying to the host");
            };
            enqueue(0);
            for (std::size_t c = 0; c < chunks; ++c) {
                if (c + 1 < chunks) enqueue(c + 1);
                const std::size_t first = c * cuda_staging_chunk;
                const std::size_t len = std::min(cuda_staging_chunk, bytes - first);
                ctx_->check(api_.cuEventSynchronize(staging_[c % 2].done), "copying to the host");
                std::memcpy(to + first, staging_[c % 2].host, len);
            }
        });
    }

    void copy(const memory& src, memory& dst, std::size_t bytes) override {
        if (bytes == 0) return;
        context_scope scope(*ctx_);
        ctx_->check(api_.cuMemcpyDtoDAsync(device_pointer(dst), device_pointer(src), bytes, stream_),
                    "copying on the device");
    }

    build_result build(const std::string& source, const std::string& entry) override {
        cuda::nvrtc_output out = cuda::nvrtc_compile(source, compute_capability_, true, entry + ".cu");
        std::string problem;
        std::unique_ptr<cuda_kernel> k = load_module(out.binary, out.kind, entry, problem);
        if (!k && out.kind == "cubin") {
            // A driver older than NVRTC may reject its cubin yet JIT the PTX.
            if (logging::enabled(logging::channel::compile))
                logging::write(logging::channel::compile, "cuda: the driver rejected the " + out.target + " cubin (" +
                                                              problem + "); retrying as PTX");
            cuda::nvrtc_output ptx = cuda::nvrtc_compile(source, compute_capability_, false, entry + ".cu");
            std::string ptx_problem;
            k = load_module(ptx.binary, ptx.kind, entry, ptx_problem);
            if (k)
                out = std::move(ptx);
            else
                problem += "; as " + ptx.target + " PTX: " + ptx_problem;
        }
        if (!k)
            throw build_failure("loom: the CUDA driver (" + info_.platform + ") of " + info_.name +
                                    " could not load a kernel " + cuda::nvrtc_version() + " compiled for " +
                                    out.target + ": " + problem +
                                    ". The driver may be older than the CUDA toolkit Loom was built with; update "
                                    "the NVIDIA driver",
                                out.log);
        build_result r;
        r.compiled = std::move(k);
        r.binary = std::move(out.binary);
        r.binary_kind = out.kind;
        r.log = std::move(out.log);
        return r;
    }

    std::unique_ptr<kernel> load(const std::vector<unsigned char>& binary, const std::string& kind,
                                 const std::string& entry) override {
        std::string problem;
        return load_module(binary, kind, entry, problem);
    }

    void launch(kernel& k, const kernel_arg* args, std::size_t count, const geometry& g) override {
        // cuLaunchKernel reads each argument through a pointer: to the CUdeviceptr of a buffer,
        // or to a scalar's bytes. It copies them before returning.
        params_.resize(count);
        for (std::size_t a = 0; a < count; ++a) {
            const auto* buffer = static_cast<const cuda_memory*>(args[a].buffer);
            params_[a] = buffer ? const_cast<CUdeviceptr*>(&buffer->ptr) : const_cast<void*>(args[a].value);
        }
        // A size the skeleton chose is kept as it is: its kernels size shared arrays by it.
        const unsigned block = g.group_size ? g.group_size : std::min(256u, max_threads_);
        // Element-wise kernels are grid-stride loops: capping the grid only makes each thread do more.
        const std::uint64_t blocks = std::max<std::uint64_t>((g.global_items + block - 1) / block, 1);
        const unsigned grid = unsigned(std::min<std::uint64_t>(blocks, 0x7FFFFFFFu));
        // A 2-D launch: its kernels stride over rows too, so the grid's height may be capped.
        const unsigned block_rows = g.rows ? std::max(1u, g.group_rows) : 1u;
        const unsigned grid_rows =
            g.rows ? unsigned(std::min<std::uint64_t>((g.rows + block_rows - 1) / block_rows, 65535u)) : 1u;
        context_scope scope(*ctx_);
        CUfunction entry = static_cast<cuda_kernel&>(k).entry;
        if (!clock_) {
            ctx_->check(api_.cuLaunchKernel(entry, grid, grid_rows, 1, block, block_rows, 1, 0, stream_, params_.data(),
                                            nullptr),
                        "launching a kernel");
            return;
        }
        timed_launch t = events_->take();
        CUresult r = api_.cuEventRecord(t.start, stream_);
        if (r == CUDA_SUCCESS)
            r = api_.cuLaunchKernel(entry, grid, grid_rows, 1, block, block_rows, 1, 0, stream_, params_.data(),
                                    nullptr);
        if (r == CUDA_SUCCESS) r = api_.cuEventRecord(t.end, stream_);
        if (r != CUDA_SUCCESS) {
            events_->retire(t); // back to the pool, untimed
            ctx_->check(r, "launching a kernel");
        }
        clock_->launched(t);
    }

    void finish() override {
        context_scope scope(*ctx_);
        ctx_->check(api_.cuStreamSynchronize(stream_), "waiting for the device");
    }

    kernel_timing timing() override {
        if (!clock_) return {};
        context_scope scope(*ctx_);
        return clock_->collect();
    }

    native_handles native() const override {
        return {backend_kind::cuda, std::uint64_t(reinterpret_cast<std::uintptr_t>(ctx_->context)),
                std::uint64_t(reinterpret_cast<std::uintptr_t>(stream_)), std::uint64_t(ctx_->device)};
    }
    std::uint64_t native_memory(const memory& m) const override { return std::uint64_t(device_pointer(m)); }

    // The caller's CUdeviceptr: checked to be memory of this context with `bytes` from the pointer on.
    std::unique_ptr<memory> wrap_memory(std::uint64_t handle, std::size_t bytes) override {
        const auto ptr = CUdeviceptr(handle);
        const std::string which = "loom::vector::wrap: the CUdeviceptr given";
        if (!ptr) throw error(which + " is null");
        context_scope scope(*ctx_);
        CUcontext owner = nullptr;
        CUresult r = api_.cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, ptr);
        if (r != CUDA_SUCCESS)
            throw error(which +
                        " is not device memory CUDA knows (cuPointerGetAttribute: " + cuda::result_text(api_, r) + ")");
        if (owner != ctx_->context)
            throw error(which + " belongs to another CUcontext than this loom::context's (" + info_.name +
                        "); wrap memory of the context's own CUcontext (context::native_context()), or make the "
                        "loom::context over your CUcontext with loom::context::from_cuda");
        CUdeviceptr base = 0;
        std::size_t size = 0;
        r = api_.cuMemGetAddressRange(&base, &size, ptr);
        if (r != CUDA_SUCCESS)
            throw error(which + " is not inside an allocation (cuMemGetAddressRange: " + cuda::result_text(api_, r) +
                        ")");
        const std::size_t available = std::size_t(base + size - ptr);
        if (available < bytes)
            throw error(which + " has " + std::to_string(available) + " bytes up to the end of its allocation, " +
                        "fewer than the " + std::to_string(bytes) + " the vector's elements need");
        auto m = std::make_unique<cuda_memory>();
        m->owner = ctx_;
        m->ptr = ptr;
        m->owned = false;
        return m;
    }

private:
    std::unique_ptr<memory> allocate_memory(std::size_t bytes) override {
        context_scope scope(*ctx_);
        auto m = std::make_unique<cuda_memory>();
        m->owner = ctx_;
        const CUresult r = api_.cuMemAlloc(&m->ptr, std::max<std::size_t>(bytes, 1));
        if (r != CUDA_SUCCESS) m->ptr = 0;
        if (r == CUDA_ERROR_OUT_OF_MEMORY) {
            std::size_t free = 0, total = 0;
            const bool known = api_.cuMemGetInfo(&free, &total) == CUDA_SUCCESS;
            throw out_of_memory(
                "loom: out of device memory: allocating " + std::to_string(bytes) + " bytes on " + info_.name +
                " failed (CUDA_ERROR_OUT_OF_MEMORY" +
                (known ? "; " + std::to_string(free) + " of " + std::to_string(total) + " bytes free" : "") +
                "). Free vectors you no longer need, or use smaller ones");
        }
        if (r != CUDA_SUCCESS) fail(api_, r, "allocating " + std::to_string(bytes) + " bytes", info_.name);
        return m;
    }
    memory_ledger& ledger() const override { return ledger_; }

    struct staging_buffer {
        void* host = nullptr;   // pinned, cuda_staging_chunk bytes
        CUevent done = nullptr; // recorded after the copy that last used it
    };

    // Allocates the pinned staging buffers at the first transfer. Without them (pinned
    // memory is a limited resource) transfers go straight from pageable memory.
    bool staging_ready() {
        if (staging_tried_) return staging_ok_;
        staging_tried_ = true;
        for (staging_buffer& s : staging_) {
            if (api_.cuMemAllocHost(&s.host, cuda_staging_chunk) != CUDA_SUCCESS) {
                s.host = nullptr;
                logging::warn("no pinned memory for CUDA transfers on " + info_.name +
                              "; copying from pageable memory");
                return false;
            }
            ctx_->check(api_.cuEventCreate(&s.done, CU_EVENT_DISABLE_TIMING), "creating an event");
        }
        staging_ok_ = true;
        return true;
    }

    // A transfer that fails half way leaves copies into the staging buffers queued:
    // wait for them before the buffers are used again.
    template <class F> void drain_on_failure(F&& transfer) {
        try {
            transfer();
        } catch (...) {
            api_.cuStreamSynchronize(stream_);
            throw;
        }
    }

    // The module in `binary` and its kernel named `entry`.
    std::unique_ptr<cuda_kernel> load_module(const std::vector<unsigned char>& binary, const std::string& kind,
                                             const std::string& entry, std::string& problem) {
        if (binary.empty() || (kind != "cubin" && kind != "ptx")) {
            problem = "no " + kind + " binary";
            return nullptr;
        }
        context_scope scope(*ctx_);
        auto k = std::make_unique<cuda_kernel>();
        CUresult r;
        if (kind == "cubin") {
            // cuModuleLoadData reads anything that is not an ELF image as NUL-terminated PTX text.
            if (binary.size() < 4 || binary[0] != 0x7F || binary[1] != 'E' || binary[2] != 'L' || binary[3] != 'F') {
                problem = "the cubin is not an ELF image";
                return nullptr;
            }
            r = api_.cuModuleLoadData(&k->module, binary.data());
        } else {
            // PTX is text the driver JIT-compiles; it must end in '\0'.
            std::vector<unsigned char> text;
            const void* image = binary.data();
            if (binary.back() != 0) {
                text = binary;
                text.push_back(0);
                image = text.data();
            }
            char jit_log[8192] = {};
            CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
            void* values[] = {jit_log, reinterpret_cast<void*>(std::uintptr_t(sizeof jit_log))};
            r = api_.cuModuleLoadDataEx(&k->module, image, 2, options, values);
            if (r != CUDA_SUCCESS && jit_log[0]) problem = std::string(jit_log) + "; ";
        }
        if (r != CUDA_SUCCESS) {
            k->module = nullptr;
            problem += cuda::result_text(api_, r);
            return nullptr;
        }
        k->owner = ctx_;
        r = api_.cuModuleGetFunction(&k->entry, k->module, entry.c_str());
        if (r != CUDA_SUCCESS) {
            problem = "no " + entry + " in the module: " + cuda::result_text(api_, r);
            return nullptr; // ~cuda_kernel unloads the module
        }
        return k;
    }

    const driver_api& api_;
    std::shared_ptr<cuda_context> ctx_;
    memory_ledger& ledger_;
    CUstream stream_ = nullptr;
    bool own_stream_ = false; // made here, destroyed here; the caller's stream (interop) is not
    device_info info_;
    int compute_capability_ = 0;
    unsigned max_threads_ = 1024;
    std::string options_;
    staging_buffer staging_[2];
    bool staging_tried_ = false;
    bool staging_ok_ = false;
    std::vector<void*> params_;                                        // reused by every launch
    std::unique_ptr<launch_events> events_;                            // profiling on
    std::unique_ptr<kernel_clock<timed_launch, launch_events>> clock_; // profiling on
};

// The driver's devices, in the order a LOOM_DEVICE index counts them (d.api is set).
std::vector<CUdevice> find_devices(const driver_state& d) {
    std::vector<CUdevice> devices(std::size_t(d.devices));
    for (int i = 0; i < d.devices; ++i) {
        const CUresult r = d.api->cuDeviceGet(&devices[std::size_t(i)], i);
        if (r != CUDA_SUCCESS) fail(*d.api, r, "listing devices", "CUDA device " + std::to_string(i));
    }
    return devices;
}

// The index in `devices` of the one `filter` names: an index or a name substring; empty, the
// first. Throws loom::no_device listing the devices found.
std::size_t choose(const driver_api& api, const std::vector<CUdevice>& devices, const std::string& filter) {
    if (filter.empty()) return 0;
    const bool numeric = std::all_of(filter.begin(), filter.end(), [](unsigned char c) { return std::isdigit(c); });
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const bool match = numeric ? filter.size() < 10 && std::stoul(filter) == i
                                   : lower(device_name(api, devices[i])).find(lower(filter)) != std::string::npos;
        if (match) return i;
    }
    std::string names;
    for (std::size_t i = 0; i < devices.size(); ++i)
        names += "\n  " + std::to_string(i) + ": " + device_name(api, devices[i]);
    throw no_device("loom: LOOM_DEVICE=" + filter + " matches no CUDA device. Devices found:" + names);
}

} // namespace

std::unique_ptr<device> open_cuda_device(const std::string& filter, bool profiling) {
    const driver_state& d = driver();
    if (!d.api)
        throw no_device("loom: LOOM_BACKEND=cuda, but " + d.problem + ". " + d.remedy +
                        ", or use LOOM_BACKEND=opencl (LOOM_BACKEND=auto falls back to OpenCL by itself)");
    const std::vector<CUdevice> devices = find_devices(d);
    return std::make_unique<cuda_device>(*d.api, devices[choose(*d.api, devices, filter)], d.version, profiling);
}

device_listing list_cuda_devices(const std::string& filter) {
    const driver_state& d = driver();
    device_listing listing;
    if (!d.api) return listing; // no driver, or no device behind it
    const std::vector<CUdevice> devices = find_devices(d);
    for (CUdevice dev : devices) {
        int compute_capability = 0;
        listing.devices.push_back(describe(*d.api, dev, d.version, compute_capability));
    }
    try {
        listing.chosen = choose(*d.api, devices, filter);
    } catch (const no_device&) {
        // open_cuda_device(filter) would throw: no device is chosen.
    }
    return listing;
}

std::unique_ptr<device> open_cuda_device_over(void* context_handle, void* stream_handle, bool profiling) {
    const driver_state& d = driver();
    if (!d.api)
        throw no_device("loom::context::from_cuda: " + d.problem + ". " + d.remedy +
                        ", or use loom::context::from_opencl");
    const driver_api& api = *d.api;
    const auto context = static_cast<CUcontext>(context_handle);
    const auto stream = static_cast<CUstream>(stream_handle);
    if (!context) throw error("loom::context::from_cuda: the CUcontext given is null");
    CUresult r = api.cuCtxPushCurrent(context);
    if (r != CUDA_SUCCESS)
        throw error("loom::context::from_cuda: the CUcontext given cannot be made current (" +
                    cuda::result_text(api, r) + "); pass a live context");
    CUdevice dev = 0;
    CUcontext stream_context = context;
    r = api.cuCtxGetDevice(&dev);
    if (r == CUDA_SUCCESS && stream) r = api.cuStreamGetCtx(stream, &stream_context);
    CUcontext popped = nullptr;
    api.cuCtxPopCurrent(&popped);
    if (r != CUDA_SUCCESS)
        throw error("loom::context::from_cuda: the CUcontext or the CUstream given is not usable (" +
                    cuda::result_text(api, r) + "); pass a live context and one of its streams");
    if (stream_context != context)
        throw error("loom::context::from_cuda: the CUstream given belongs to another CUcontext than the one given; "
                    "pass a stream made in that context");
    auto owner = std::make_shared<cuda_context>(api, context, dev, device_name(api, dev));
    return std::make_unique<cuda_device>(api, std::move(owner), stream, d.version, profiling);
}

bool cuda_device_present() { return driver().api != nullptr; }

std::string cuda_absence_reason() { return driver().problem; }

} // namespace loom::backend
