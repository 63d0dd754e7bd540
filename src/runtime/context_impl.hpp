// The state behind a loom::context, in parts with one job each:
// - the device and the settings (settings.hpp);
// - the statement queue the recorder fills (statement_recorder.cpp), and the limits at which
//   it flushes by itself (flush_limits.hpp);
// - the planner and its plan cache (flush_planner.hpp);
// - the executor, the one launch path (executor.hpp), and the statistics it counts;
// - the map launcher, which binds and launches a flush plan's map kernels (map_launcher.hpp);
// - loom::loop_while's state (loop/loop_runtime.hpp);
// - the skeletons' plan cache (plan_cache.hpp) and their calls' scratch (skeleton_input.hpp);
// - what libraries outside Loom keep per context, loom::fft's plans (library_state.hpp).
// The context itself only orders them: a flush plans, allocates and launches (flush.cpp).
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "backend/device.hpp"
#include "cache/program_cache.hpp"
#include "fusion/statement_queue.hpp"
#include "ir/shape.hpp"
#include "loom/context.hpp"
#include "runtime/buffer.hpp"
#include "runtime/compiled_plan.hpp"
#include "runtime/executor.hpp"
#include "runtime/flush_limits.hpp"
#include "runtime/flush_planner.hpp"
#include "runtime/library_state.hpp"
#include "runtime/loop/loop_runtime.hpp"
#include "runtime/map_launcher.hpp"
#include "runtime/parts/partition.hpp"
#include "runtime/parts/ranks.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/run_statistics.hpp"
#include "runtime/settings.hpp"
#include "runtime/skeleton_input.hpp"

namespace loom::detail {

// Makes sure statements still pending when the program exits run before the device compiler's
// statics are torn down (context.cpp). Called after each flush that compiled a kernel.
void run_pending_work_before_compilers_exit();

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
    context_end,
    interop,       // a native handle or queue handed to the caller (interop.cpp)
    custom_kernel, // a loom::kernel launched (custom_kernel.cpp)
    part_copy      // elements copied from this part to another (runtime/parts/parted_buffer.hpp)
};
const char* name_of(flush_cause c);

// What context_impl::flush_into_reduction hands the reduction when its first pass runs pending
// statements: the flush's plan, whose last pass (plan::pass_kind::fused) that pass runs, and
// what binds it. Valid until context_impl::end_reduction_flush.
struct fused_statements {
    const compiled_plan* plan = nullptr;             // null: nothing to fuse, all pending work has run
    const std::vector<std::uint32_t>* key = nullptr; // the flush's plan key, part of the reduction's
    buffer* const* buffers = nullptr;                // the flush's buffers by class
    const fusion::statement_queue* queue = nullptr;

    explicit operator bool() const { return plan != nullptr; }
    const fusion::kernel_group& group() const { return plan->groups.back().group; }
    std::uint32_t pass() const { return std::uint32_t(plan->plan.passes.size() - 1); }
};

class context_impl : public std::enable_shared_from_this<context_impl> {
public:
    context_impl(std::unique_ptr<backend::device> dev, const context_settings& settings);
    // A context over several devices (docs/multi-device.md): `parts`, one context of one device
    // each, run its work; its own device (runtime/parts/parts_device.hpp) runs nothing.
    // With `ranks` (loom::mpi), the vectors are split over the ranks first and this rank's share
    // over `parts` (one or more), and the constructor is collective: every rank makes its own.
    context_impl(std::vector<std::shared_ptr<context_impl>> parts, const context_settings& settings,
                 std::shared_ptr<const rank_group> ranks = nullptr);
    ~context_impl();

    // Several devices: the parts, and how a vector of `length` elements is split over them
    // (runtime/parts/partition.hpp). A context of one device has no parts.
    bool several() const { return !parts_.empty(); }
    const std::vector<std::shared_ptr<context_impl>>& parts() const { return parts_; }
    // Over ranks, each part's range is of the whole vector, and the parts are this rank's only.
    std::vector<part_range> split(std::uint64_t length) const;
    // Over ranks (else null): the ranks, every rank's range of a vector of `length` elements, and
    // the parts of the ranks before this one (this rank's first part's place among all ranks' parts).
    const rank_group* ranks() const { return ranks_.get(); }
    std::vector<part_range> rank_split(std::uint64_t length) const { return detail::split(length, rank_weights_); }
    const std::vector<std::uint64_t>& rank_parts() const { return rank_parts_; } // each rank's part count
    std::size_t parts_before() const { return parts_before_; }
    // Throws loom::error naming `what` (an algorithm that runs on one device) on a context of several.
    void require_one_device(const char* what) const;
    // Each part's share of every vector (summing to 1), and setting it: parts/rebalance.hpp moves
    // the data with it.
    const std::vector<double>& shares() const { return weights_; }
    void set_shares(std::vector<double> shares) { weights_ = std::move(shares); }
    // The vectors split over the parts that may still live (what a new split moves), and the
    // parts' kernel time (ns) when the split was last judged (loom::balance::dynamic).
    std::vector<std::weak_ptr<buffer>>& parted_buffers() { return parted_; }
    void forget_dead_buffers();
    std::vector<std::uint64_t>& timed_ns() { return timed_ns_; }
    bool dynamic_balance() const { return dynamic_balance_; }
    void set_dynamic_balance(bool on) { dynamic_balance_ = on; }

    backend::device& device() { return *device_; }
    const backend::device_info& info() const { return device_->info(); }
    std::uint64_t id() const { return id_; } // loom::context::id()
    const context_settings& settings() const { return settings_; }
    bool fusion() const { return settings_.fusion; }
    // The form of a statement's shape this context runs: contracted when fp_contract is on.
    const shape* statement_form(const shape* s) const { return settings_.fp_contract ? s->contracted : s; }

    fusion::statement_queue& queue() { return queue_; }
    cache::program_cache& programs() { return programs_; }
    // The skeletons' plans (reductions, scans, axis reductions). They refer to the program
    // cache and the device, so the cache is declared after them and destroyed before them.
    plan_cache& plans() { return plans_; }
    skeleton_scratch& call_scratch() { return call_scratch_; }
    // A library's state for this context (loom::fft's plans), destroyed before the device.
    library_states& libraries() { return libraries_; }
    std::recursive_mutex& mutex() { return mutex_; }

    // Runs every pending statement. On failure nothing has run and the pending
    // statements are dropped, so every vector keeps its value from before them.
    void flush(flush_cause cause = flush_cause::skeleton);
    // Called after a statement is recorded: flushes when the queue reaches a limit (flush_limits.hpp).
    void after_record();

    // Map-reduce fusion (docs/fusion.md). Plans the pending statements followed by the
    // reduction's input expression `input` over `length` elements (its slots are the last
    // recorded, uncommitted) as one flush, and launches every kernel but the last. When the
    // last kernel holds pending statements as well as the input, it is returned and not
    // launched: the reduction runs it in its first pass, which also stores what those
    // statements store; call end_reduction_flush() once it is launched. Otherwise all
    // pending work has run and the result is empty. On failure the pending statements are
    // dropped, as in flush().
    fused_statements flush_into_reduction(const shape& input, std::uint64_t length);
    void end_reduction_flush();

    // The one launch path (executor.hpp).
    executor& execution() { return executor_; }
    void execute(backend::kernel& k, const backend::kernel_arg* args, std::size_t count, const backend::geometry& g,
                 const launch_label& label) {
        executor_.run(k, args, count, g, label);
    }
    void note_host_sync(const char* what) { executor_.host_sync(what); }

    // loom::loop_while (loop/). While a guard is set, every kernel launched (maps, reductions,
    // scans) is a guarded variant that returns at once when guard[0] is 0; it is set and
    // cleared with the queue empty, so a flush never mixes guarded and plain statements.
    void set_guard(buffer* flag);
    void drop_guard() { loop_.set_guard(nullptr); } // without the flush (after a failed one)
    buffer* guard() const { return loop_.guard(); }
    loop_runtime& loop() { return loop_; }
    // A reduction into device scalars offers its last pass: inside a loop_while body, with
    // fusion on, it is held (true) rather than launched, until the next device operation
    // launches it (release_held) or the loop's bookkeeping runs at its end
    // (run_held_with_epilogue, false when it cannot: the bookkeeping stays pending).
    bool offer_last_pass(const offered_pass& pass);
    void release_held();
    void drop_held(); // after a failure: neither the held pass nor the batch will run
    bool run_held_with_epilogue();

    // The counters statistics() reports.
    const context_statistics& counters() const { return statistics_.counters(); }
    const compiled_plan* last_plan() const { return last_plan_; }

private:
    bool may_hold() const { return loop_.guard() && loop_.device_loop() && settings_.fusion; }
    void allocate_buffers(const compiled_plan& p);
    void launch(compiled_plan& p) { maps_.launch(p, planner_, queue_, loop_); }
    compiled_plan& run_planned(flush_cause cause, plan_purpose purpose = plan_purpose::statements);
    void log_plan(const compiled_plan& p, bool cached, flush_cause cause) const; // plan_log.cpp
    // After a failed flush: vectors made in its window get their constructors' fills (failed_flush.cpp).
    void keep_initial_contents() noexcept;
    // Runs the first `count` pending statements, where a flush limit cut the queue (flush.cpp).
    void flush_prefix(std::size_t count, flush_cause cause);

    // Several devices: the parts, declared first so that they outlive everything of this context
    // that may name their buffers, and each part's share of a vector (partition.hpp's weights).
    std::vector<std::shared_ptr<context_impl>> parts_;
    std::vector<double> weights_;
    std::shared_ptr<const rank_group> ranks_;
    std::vector<double> rank_weights_; // each rank's share of every vector
    std::vector<std::uint64_t> rank_parts_;
    std::size_t parts_before_ = 0;
    std::vector<std::weak_ptr<buffer>> parted_;
    std::vector<std::uint64_t> timed_ns_;
    bool dynamic_balance_ = false;
    std::recursive_mutex mutex_;
    std::uint64_t id_;
    run_statistics statistics_;
    std::unique_ptr<backend::device> device_;
    context_settings settings_;
    executor executor_;
    fusion::statement_queue queue_;
    cache::program_cache programs_;
    flush_planner planner_;
    plan_cache plans_;
    skeleton_scratch call_scratch_;
    const compiled_plan* last_plan_ = nullptr;

    map_launcher maps_;
    // Per-flush scratch, kept to reuse its capacity: the flush allocates nothing once warm.
    std::vector<backend::kernel_arg> held_args_; // a held pass's, with the bookkeeping's after them
    std::vector<char> counted_;                  // per buffer class: counted by allocate_buffers
    flush_limits limits_;
    // The target of a reduction's input in flush_into_reduction: never allocated, as no
    // vector names it and nothing reads it after the reduction, so its store is elided.
    buffer_ptr reduction_sink_;
    loop_runtime loop_;        // after device_: the buffers its held pass keeps go first
    library_states libraries_; // last: a library's plans go before everything they were made on
};

} // namespace loom::detail
