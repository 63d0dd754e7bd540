// loom::context: one device, its statement queue and its kernel caches; or several devices, each
// with its own (docs/multi-device.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "loom/detail/runtime.hpp"

namespace loom {

// How a context over several devices shares each vector between them (docs/multi-device.md).
enum class balance {
    from_environment, // LOOM_BALANCE ("dynamic" or "fixed"), else fixed
    fixed,            // the shares stay where they are: from device properties, or context::set_split
    // After each finish() and each reduction read on the host, the parts' kernel times (their
    // profiling events) move the shares toward equal time with damping, as STEPOCL does, and the
    // data moves with them; once the times agree within 5% the shares stay. Each step is logged
    // on LOOM_LOG=balance. The parts' launches must be timed (context_options::profiling).
    dynamic
};

struct context_options {
    std::string backend; // "opencl", "cuda" or "auto"; empty: LOOM_BACKEND, else auto
    // index or name substring; empty: LOOM_DEVICE, else the first GPU, else any. Several, separated
    // by commas ("0,1"), or "all" (every device of the backend): a context over those devices
    // (docs/multi-device.md).
    std::string device;
    int fusion = -1; // 1 on, 0 off; -1: LOOM_FUSION (default on)
    // 1: `a * b + c` within one statement may become one fused multiply-add (one rounding,
    // as C compilers contract); 0: never, results match the host bit for bit; -1:
    // LOOM_FP_CONTRACT ("on"/"1" or "off"/"0"; default off). Never across statements, so
    // fused and unfused results stay equal either way (docs/fusion.md).
    int fp_contract = -1;
    // 1: the device times every kernel it runs (OpenCL profiling events, CUDA events) and
    // statistics() sums the times; 0: no timing; -1: LOOM_PROFILE ("on"/"1" or "off"/"0";
    // default off). Timing costs an event per launch, so it is off unless asked for.
    int profiling = -1;
    // 1: the first launch of a kernel over a large range (2^20 elements or more) measures a
    // few launch geometries and keeps the fastest, stored with the kernel in the disk cache
    // so that later processes launch tuned without measuring; 0: no measuring (a stored
    // choice is still used); -1: LOOM_TUNE ("on"/"1" or "off"/"0"; default off).
    int tune = -1;
    // A context over several devices (`device` lists them): how its vectors are shared between
    // them. balance::dynamic turns profiling on for the parts it opens.
    loom::balance balance = loom::balance::from_environment;
};

// Counters a program or test can read to see what the runtime did.
struct context_statistics {
    std::uint64_t flushes = 0;          // flushes that ran at least one statement
    std::uint64_t statements = 0;       // statements run
    std::uint64_t plans_made = 0;       // fusion plans built (plan-cache misses)
    std::uint64_t plan_hits = 0;        // flushes served by a cached plan
    std::uint64_t kernels_compiled = 0; // device compiler runs
    std::uint64_t disk_hits = 0;        // kernels loaded from the disk cache
    std::uint64_t kernels_launched = 0;
    std::uint64_t host_syncs = 0; // waits of the host for the device: reads, blocking writes, finishes
    // With profiling on: the device launches whose run has finished by the time statistics()
    // is called (after a finish, every one), and their device time, start to end, summed.
    // A batch of loop iterations run by one launch (docs/skeleton-loop.md) is one launch.
    std::uint64_t kernels_timed = 0;
    std::uint64_t kernel_ns = 0;
    std::uint64_t kernels_tuned = 0; // kernels whose launch geometry this context measured (tune)
    // Vectors' device memory: new allocations, and memory a dead vector or temporary of the same
    // size left, reused without asking the driver (docs/fusion.md, "Device memory").
    std::uint64_t buffers_allocated = 0;
    std::uint64_t buffers_reused = 0;
};

class context {
public:
    context();
    explicit context(const context_options& options);
    // A context over several devices: those of `parts` (at least two contexts, of one device each,
    // none given twice). A vector on it is split into one contiguous part per device, and its
    // statements run on every part at once (docs/multi-device.md says what runs across devices).
    explicit context(const std::vector<context>& parts, loom::balance how = loom::balance::fixed);
    // The devices the context runs on: 1, or its parts'.
    std::size_t device_count() const;
    // A context over several devices: its parts, each a context of one device (statements and
    // vectors made on a part run on that device alone). Empty for a context of one device.
    std::vector<context> parts() const;
    // Each part's share of every vector (summing to 1), and a new one: the shares are scaled to
    // sum to 1, every part's pending work runs, and every vector's data moves to its new parts
    // (through the host; a failure leaves every vector and the shares as they were). Throws
    // loom::error on a context of one device, or for shares that are not one positive number per
    // device.
    std::vector<double> split() const;
    void set_split(const std::vector<double>& shares);

    std::string backend_name() const; // "opencl" or "cuda"
    std::string device_name() const;
    // The context's number in this process (1 for the first made, and so on; copies share it):
    // the "[context <id>]" of its log lines (loom/log.hpp).
    std::uint64_t id() const;
    std::string driver_version() const;
    bool has_fp64() const;

    // Runs every pending statement and waits for the device.
    void finish() const;

    context_statistics statistics() const;

    // Interop with code that calls OpenCL or CUDA itself (loom/interop.hpp, docs/interop.md).
    // The queue every Loom transfer and launch goes to: a cl_command_queue (in order) or a
    // CUstream. The pending statements are enqueued first (nothing waits), so work the caller
    // enqueues on this queue runs after them; work on another queue must wait for finish().
    backend_handle native_queue() const;
    backend_handle native_stream() const { return native_queue(); } // CUDA's word for it
    // The cl_context or CUcontext, and the cl_device_id or CUdevice.
    backend_handle native_context() const;
    backend_handle native_device() const;
    // A context over the caller's OpenCL context and in-order queue (the device is the queue's),
    // both retained until the last copy of the context goes. options.backend and options.device
    // must be empty; profiling needs a queue made with CL_QUEUE_PROFILING_ENABLE.
    static context from_opencl(void* cl_context, void* cl_command_queue, const context_options& options = {});
    // A context over the caller's CUDA context and stream (null: the context's legacy default
    // stream). CUDA cannot retain them: both must outlive every copy of the context.
    static context from_cuda(void* cu_context, void* cu_stream, const context_options& options = {});

    // For the runtime: the shared state, and a handle to an existing context's state.
    const detail::context_ptr& impl() const { return impl_; }
    explicit context(detail::context_ptr impl) : impl_(std::move(impl)) {}

private:
    detail::context_ptr impl_;
};

// Runs the pending statements of every live context and waits for their devices.
void finish();

} // namespace loom
