// The state behind a loom::context: its device, statement queue, fusion settings and
// caches, and the flush that turns pending statements into kernel launches.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "backend/device.hpp"
#include "cache/program_cache.hpp"
#include "fusion/plan.hpp"
#include "fusion/statement_queue.hpp"
#include "ir/shape.hpp"
#include "loom/context.hpp"
#include "runtime/buffer.hpp"
#include "runtime/iteration_batch.hpp"

namespace loom::detail {

// How one planned group launches: its kernel (null: not launched here, see ends_in_reduction
// and epilogue) and, where the device wants it (launch::wants_grid_form), its grid form for a
// launch on whole rows when every grid width argument is one value, with the parameters that
// hold those widths.
struct group_launch {
    cache::cached_kernel* kernel = nullptr; // owned by the program cache
    cache::cached_kernel* grid_kernel = nullptr;
    std::vector<std::uint32_t> grid_widths;
    // The device buffer of its packed scalars (ir::kernel_param::packed), made at the first launch.
    std::unique_ptr<backend::memory> packed_scalars;
};

// A plan with its kernels compiled: what a cached flush pattern needs to launch.
struct compiled_plan {
    fusion::kernel_plan plan;
    std::vector<group_launch> launches; // one per group
    // Planned with a reduction's input as its last statement (see flush_into_reduction).
    bool ends_in_reduction = false;
    // ... and the last group holds pending statements too: the reduction runs it as its first pass.
    bool last_group_fused = false;
    // Planned as the epilogue of a held reduction pass (run_held_with_epilogue): one group, not compiled alone.
    bool epilogue = false;
};

// What a skeleton needs to build its held pass with the loop's bookkeeping at its end: which
// of its plans and passes (owner, pass), the bookkeeping kernel and the key of the flush that
// planned it, and for a batch of iterations the rotation of the buffer arguments from one
// iteration to the next (iteration_batch::rotation).
struct epilogue_request {
    void* owner = nullptr;
    std::uint32_t pass = 0;
    const ir::kernel* epilogue = nullptr;
    const std::vector<std::uint32_t>* key = nullptr;
    const std::vector<std::uint32_t>* rotation = nullptr; // null: one iteration
};
// Null only for a looped variant the device compiler rejected: the batch then runs its
// iterations one launch each.
using epilogue_builder = backend::kernel* (*)(context_impl& ctx, const epilogue_request& request);

// The last pass of a device reduction inside a loom::loop_while body, kept back until the
// next device operation so that the loop's bookkeeping statements can run at its end,
// saving a launch per iteration (docs/skeleton-loop.md).
struct held_pass {
    backend::kernel* kernel = nullptr; // null: nothing is held
    std::vector<backend::kernel_arg> args;
    std::vector<std::uint64_t> values; // the bytes of the by-value arguments, which args point to
    std::vector<buffer_ptr> keep;      // the buffers the arguments name stay alive until it runs
    backend::geometry geometry;
    // The same pass with an epilogue, from the skeleton that made it: `owner` and `pass`
    // say which of its plans and passes.
    epilogue_builder with_epilogue = nullptr;
    void* owner = nullptr;
    std::uint32_t pass = 0;
};

// Held passes that ran their bookkeeping, gathered for one looped launch (iteration_batch),
// with what their skeleton needs to build the looped variant.
struct batched_passes {
    iteration_batch iterations;
    epilogue_builder build = nullptr;
    epilogue_request request; // key and rotation are filled in at the launch
    std::vector<std::uint32_t> key;
    std::vector<backend::kernel_arg> args;    // scratch for the launch
    std::uint32_t bookkeeping_statements = 0; // for the launch log
};

// Makes sure statements still pending when the program exits run before the device compiler's
// statics are torn down (context.cpp). Called after each flush that compiled a kernel.
void run_pending_work_before_compilers_exit();

// Hash of a plan key: a few dozen small integers, never source text.
struct plan_key_hash {
    std::size_t operator()(const std::vector<std::uint32_t>& key) const;
};

// State a layer above the runtime keeps per context (the skeletons' plans): the context owns it
// and destroys it before its caches, without knowing its type.
struct context_extension {
    virtual ~context_extension() = default;
};

// The state of the loom::loop_while running in a context (device_loop.cpp).
struct device_loop_state;

// What a plan is for, an argument of planning (and part of the plan key): the pending
// statements alone; with a reduction's input as its last statement, whose last group the
// reduction runs as its first pass (flush_into_reduction); or as the epilogue of a held
// reduction pass (run_held_with_epilogue).
enum class plan_purpose : std::uint8_t { statements, reduction_input, epilogue };

// Why a flush happened; the fusion log prints the name.
enum class flush_cause : std::uint8_t {
    host_read,
    host_write,
    finish,
    statement_limit,
    byte_limit,
    skeleton,
    loop,
    pipeline,
    context_end
};
const char* name_of(flush_cause c);

class context_impl : public std::enable_shared_from_this<context_impl> {
public:
    context_impl(std::unique_ptr<backend::device> dev, bool fusion, bool fp_contract, bool tune = false);
    ~context_impl();

    backend::device& device() { return *device_; }
    const backend::device_info& info() const { return device_->info(); }
    std::uint64_t id() const { return id_; } // loom::context::id()
    bool fusion() const { return fusion_; }
    // The form of a statement's shape this context runs: contracted when fp_contract is on.
    const shape* statement_form(const shape* s) const { return fp_contract_ ? s->contracted : s; }

    fusion::statement_queue& queue() { return queue_; }
    cache::program_cache& programs() { return programs_; }
    // State the skeletons keep per context (reduce and scan plans). It refers to the program
    // cache and the device, so it is declared after them and destroyed before them.
    std::unique_ptr<context_extension>& skeleton_state() { return skeleton_state_; }
    // Runs every pending statement. On failure nothing has run and the pending
    // statements are dropped, so every vector keeps its value from before them.
    void flush(flush_cause cause = flush_cause::skeleton);

    // Map-reduce fusion (docs/fusion.md). Plans the pending statements followed by the
    // reduction's input expression `input` over `length` elements (its slots are the last
    // recorded, uncommitted) as one flush, and launches every kernel but the last. When the
    // last kernel holds pending statements as well as the input, it is returned and not
    // launched: the reduction runs it as its first pass, which also stores what those
    // statements store; call end_reduction_flush() once it is launched. Otherwise all
    // pending work has run and the result is null. On failure the pending statements are
    // dropped, as in flush().
    const fusion::kernel_group* flush_into_reduction(const shape& input, std::uint64_t length);
    void end_reduction_flush();
    // loom::loop_while: a reduction into device scalars, in a body, with fusion on, holds
    // its last pass (hold) rather than launching it. Any device operation but the loop's
    // own boundaries launches it first (release_held); run_held_with_epilogue runs it with
    // the pending one-element statements (the loop's bookkeeping) at its end instead, and
    // returns false, leaving them pending, when it cannot. A held pass with its bookkeeping
    // that is one work-group joins a batch of iterations launched as one (batched_passes),
    // released like a held pass.
    bool may_hold() const { return guard_ && device_loop_ && fusion_; }
    held_pass& held() { return held_; }
    bool holding() const { return held_.kernel || !batch_.iterations.empty(); }
    void release_held();
    void drop_held(); // after a failure: neither the held pass nor the batch will run
    bool run_held_with_epilogue();
    // The plan key of the last flush planned: a reduction that runs its last group keys on it.
    const std::vector<std::uint32_t>& plan_key() const { return key_; }
    // Arguments of a planned group's parameters (buffers and host scalars), in order.
    void bind_arguments(const fusion::kernel_group& g, std::vector<backend::kernel_arg>& args) const;
    // Called after a statement is recorded: flushes when the queue reaches a limit.
    void after_record();

    std::recursive_mutex& mutex() { return mutex_; }

    // loom::loop_while: while a guard is set, every kernel launched (maps, reductions,
    // scans) is a guarded variant that returns at once when guard[0] is 0. Set and
    // cleared with the queue empty, so a flush never mixes guarded and plain statements.
    void set_guard(buffer* flag);
    void drop_guard() { guard_ = nullptr; } // without the flush (after a failed one)
    buffer* guard() const { return guard_; }
    // The device loop running in this context, if any (loop_while; they do not nest).
    std::shared_ptr<device_loop_state>& device_loop() { return device_loop_; }

    // The one launch path: every kernel Loom runs for the user (maps, reduction and scan passes,
    // held passes, loop batches) is enqueued here, and counted in statistics().kernels_launched.
    // The tuner's trial launches (tuner.cpp) are the one exception: they are measurements on
    // copies, not work. Callers log what they launched on the launch channel.
    void execute(backend::kernel& k, const backend::kernel_arg* args, std::size_t count, const backend::geometry& g) {
        device_->launch(k, args, count, g);
        ++stats_.kernels_launched;
    }
    // Counts a wait of the host for the device (and logs it on the launch channel).
    void note_host_sync(const char* what);

    // The counters statistics() reports; only the context's own parts change them.
    const context_statistics& counters() const { return stats_; }
    const compiled_plan* last_plan() const { return last_plan_; }

private:
    void assign_classes(plan_purpose purpose);
    std::uint32_t scalar_class(const detail::slot_info& slot, std::uint64_t bits);
    compiled_plan& plan_for_key(plan_purpose purpose);
    std::unique_ptr<compiled_plan> make_plan(plan_purpose purpose);
    void allocate_buffers(const compiled_plan& p);
    void launch(compiled_plan& p);
    const backend::memory& upload_packed_scalars(const fusion::kernel_group& g, std::unique_ptr<backend::memory>& into);
    std::uint64_t common_grid_width(const std::vector<std::uint32_t>& params) const;
    // The geometry of a map kernel's launch over `length` elements (`width`: a grid kernel's
    // row), measured first when tuning is on and the kernel has no tuning yet (tuner.cpp).
    backend::geometry map_launch(cache::cached_kernel& k, const fusion::kernel_group& g, std::uint64_t length,
                                 std::uint64_t width);
    void tune(cache::cached_kernel& k, const fusion::kernel_group& g, std::uint64_t length, std::uint64_t width);
    void run_planned(flush_cause cause, plan_purpose purpose = plan_purpose::statements);
    void log_plan(const compiled_plan& p, bool cached, flush_cause cause) const;
    // After a failed flush: vectors made in its window get their constructors' fills (failed_flush.cpp).
    void keep_initial_contents() noexcept;
    // Flush limits (flush_limits.cpp).
    void start_pending_window();
    std::uint64_t count_pending_bytes();
    std::size_t cut_point();
    void flush_prefix(std::size_t count, flush_cause cause);
    void batch_held_pass(backend::kernel& k, const epilogue_request& request, std::uint32_t statements);
    void launch_batch();

    std::recursive_mutex mutex_;
    context_statistics stats_;
    std::uint64_t id_;
    std::unique_ptr<backend::device> device_;
    bool fusion_;
    bool fp_contract_;
    bool tune_;
    std::optional<ir::map_form> form_; // LOOM_KERNEL_FORM, else the device's (launch::map_form_for)
    fusion::statement_queue queue_;
    cache::program_cache programs_;
    std::unique_ptr<context_extension> skeleton_state_;
    buffer* guard_ = nullptr;
    std::shared_ptr<device_loop_state> device_loop_; // shared_ptr: the type is complete only in device_loop.cpp
    std::unordered_map<std::vector<std::uint32_t>, std::unique_ptr<compiled_plan>, plan_key_hash> plans_;
    const compiled_plan* last_plan_ = nullptr;

    // Per-flush scratch, kept to reuse its capacity: the flush allocates nothing once warm.
    std::uint64_t flush_generation_ = 0;
    std::vector<std::uint32_t> key_;
    std::size_t live_words_ = 0; // where key_'s per-class liveness words begin
    std::vector<buffer*> class_buffers_;
    std::vector<std::uint64_t> lengths_;
    std::vector<std::uint32_t> slot_scalar_;                     // per queued slot: its scalar value class
    std::vector<std::pair<dtype, std::uint64_t>> scalar_values_; // per scalar value class: its value
    std::vector<backend::kernel_arg> args_;
    std::vector<std::uint64_t> packed_values_;
    std::vector<char> counted_; // per buffer class: counted by allocate_buffers
    // The bytes the pending statements would allocate: each target without device memory,
    // counted once per window (a window ends at every flush); recounted at a limit, when
    // only the targets a live vector still names count (flush_limits.cpp).
    std::uint64_t pending_bytes_ = 0;
    std::uint64_t pending_window_ = 0;
    // The target of a reduction's input in flush_into_reduction: never allocated, as no
    // vector names it and nothing reads it after the reduction, so its store is elided.
    buffer_ptr reduction_sink_;
    held_pass held_; // after device_: its buffers go first
    batched_passes batch_;
};

} // namespace loom::detail
