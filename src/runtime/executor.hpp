// The one launch path. Every kernel Loom runs for the user (maps, reduction and scan passes,
// held loop passes and batches of loop iterations) is enqueued by executor::run, which counts
// it and logs it on the launch channel (LOOM_LOG=launch); the device times it when profiling
// is on. The tuner's trial launches (map_tuning.cpp) are the one exception: they are measurements
// on copies, not work.
// For a plan (plan/plan.hpp) the executor also does the rest, the same way for every plan:
// allocate (the call's vectors and results that have no memory yet, the plan's scratch), bind
// (each pass's arguments, from where the plan says they come) and launch.
#pragma once

#include <cstdint>
#include <memory>

#include "backend/device.hpp"
#include "fusion/statement_queue.hpp"
#include "plan/plan.hpp"
#include "runtime/buffer.hpp"
#include "runtime/memory_pool.hpp"
#include "runtime/run_statistics.hpp"

namespace loom::detail {

struct skeleton_operation; // loom/reduce.hpp

// What a launch is, for its log line; none of it is formatted unless the launch channel is on.
struct launch_label {
    enum class kind : std::uint8_t { map, reduce_pass, scan_pass, sort_pass, held_pass, loop_batch, custom, block_map };
    kind what = kind::map;
    std::uint64_t elements = 0;   // the range the kernel covers (map, passes; block_map: its blocks)
    std::uint32_t pass = 0;       // reduce_pass, scan_pass, sort_pass: which one (from 1)
    std::uint32_t first = 0;      // map: its statements, first..last
    std::uint32_t last = 0;       // ... held_pass, loop_batch: its bookkeeping statements 0..last
    std::uint64_t row_width = 0;  // map: launched on whole rows of this width (0: not)
    std::uint32_t iterations = 1; // loop_batch: loop iterations the launch runs
    const char* name = nullptr;   // custom: the kernel's name (loom::kernel)
};

// A plan's device scratch, kept between calls (runtime/plan_cache.hpp): grown, never shrunk.
struct plan_scratch {
    std::vector<std::unique_ptr<backend::memory>> memory;
    std::vector<std::size_t> bytes;
};

// What one call binds to a plan's arguments (plan::source).
struct call_values {
    const fusion::bound_slot* slots = nullptr; // the input's slots
    std::size_t slot_count = 0;
    // A flush's: its buffers by class (flush_planner::buffers), the queue whose statements it
    // runs, and the device buffer a pass's packed scalars were uploaded into.
    buffer* const* flush_buffers = nullptr;
    const fusion::statement_queue* queue = nullptr;
    const backend::memory* packed = nullptr;
    // Where a pass runs a flush's statements (source::fused): that flush's plan and fused pass,
    // bound from the flush's fields above.
    const plan::plan* fused_plan = nullptr;
    std::uint32_t fused_pass = 0;
    const buffer* guard = nullptr;
    const buffer_ptr* results = nullptr; // the device scalars or output vectors the call writes
    std::size_t result_count = 0;
    const skeleton_operation* ops = nullptr;
    const scalar_bits* initial = nullptr;
};

class executor {
public:
    executor(backend::device& device, run_statistics& statistics, std::uint64_t context_id)
        : device_(device), statistics_(statistics), context_id_(context_id),
          pool_(memory_pool::make(memory_pool::capacity_for(device.info().global_memory))) {}

    void run(backend::kernel& k, const backend::kernel_arg* args, std::size_t count, const backend::geometry& g,
             const launch_label& label);

    // Memory for the call's vectors and results that have none, and the plan's scratch that
    // its passes name, grown to the call's sizes: everything the launches need, before any
    // runs. The only allocation for a plan's launch. Throws loom::error (out of memory)
    // having launched nothing.
    void allocate(const plan::plan& p, plan_scratch& scratch, const plan::launch_sizes& sizes, const call_values& call);
    // Memory for one buffer that has none: kept memory of its size (memory_pool.hpp) where there
    // is some, else new. Every device allocation of the runtime is one of these (or
    // allocate_bytes): the only place memory is allocated.
    void allocate(buffer& b);
    // Device memory that no buffer owns: a group's packed scalars, the tuner's trial copies.
    std::unique_ptr<backend::memory> allocate_bytes(std::size_t bytes);
    // Refuses (loom::out_of_memory, naming `what`) `needed` bytes of new memory the device cannot
    // hold beside what every context of the process holds on it already: some drivers (PoCL)
    // abort the process when a lazy allocation fails inside a launch. Called before any of a
    // launch's memory is allocated, so that the launch fails whole. What every context keeps
    // for reuse is freed before a refusal.
    void check_room(std::uint64_t needed, const char* what) const;
    // The arguments of pass `pass`, appended to `args` in the kernel's order. By-value arguments
    // point into `call`, `sizes` and the plan: they stay valid until the launch.
    void bind(const plan::plan& p, std::size_t pass, const plan_scratch& scratch, const plan::launch_sizes& sizes,
              const call_values& call, std::vector<backend::kernel_arg>& args) const;
    // The same for a pass that names no scratch and no extent (a flush's).
    void bind(const plan::plan& p, std::size_t pass, const call_values& call,
              std::vector<backend::kernel_arg>& args) const;
    // Launches pass `pass` of `p` (its kernel `k`) with `args` at the call's geometry.
    void launch(const plan::plan& p, std::size_t pass, backend::kernel& k, const std::vector<backend::kernel_arg>& args,
                const plan::launch_sizes& sizes);
    // allocate, then bind and launch every pass of `p` in order, pass k with kernels[k]: a
    // skeleton call whose passes need nothing of the host between them (scans, sorts, keyed
    // scans). `args` is reused scratch.
    void run_passes(const plan::plan& p, plan_scratch& scratch, backend::kernel* const* kernels,
                    const plan::launch_sizes& sizes, const call_values& call, std::vector<backend::kernel_arg>& args);
    // Counts a wait of the host for the device (reads, blocking writes, finishes) and logs it.
    void host_sync(const char* what);

private:
    // device_.allocate, again after freeing every context's kept memory when the device has no
    // room.
    std::unique_ptr<backend::memory> allocate_new(std::size_t bytes);

    backend::device& device_;
    run_statistics& statistics_;
    std::uint64_t context_id_;
    std::shared_ptr<memory_pool> pool_; // shared with the buffers it gave memory, which give it back
};

} // namespace loom::detail
