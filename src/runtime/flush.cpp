// The flush: pending statements -> plan key -> (cached) plan -> allocations -> launches.
// On a plan-cache hit this path does no string work, no source hashing and no heap
// allocation: the key and argument arrays reuse their capacity from earlier flushes.
#include <string>

#include "launch/policy.hpp"
#include "runtime/context_impl.hpp"
#include "support/log.hpp"

namespace loom::detail {

const char* name_of(flush_cause c) {
    switch (c) {
    case flush_cause::host_read: return "host_read";
    case flush_cause::host_write: return "host_write";
    case flush_cause::finish: return "finish";
    case flush_cause::statement_limit: return "statement_limit";
    case flush_cause::byte_limit: return "byte_limit";
    case flush_cause::skeleton: return "skeleton";
    case flush_cause::loop: return "loop";
    case flush_cause::pipeline: return "pipeline";
    case flush_cause::context_end: return "context_end";
    case flush_cause::interop: return "interop";
    case flush_cause::custom_kernel: return "custom_kernel";
    }
    return "?";
}

// Allocates what the plan's kernels bind and no buffer has yet: added up first and refused
// whole (executor::check_room) before any of it is allocated, so the flush fails whole.
void context_impl::allocate_buffers(const compiled_plan& p) {
    std::uint64_t needed = 0;
    counted_.assign(planner_.buffer_count(), 0); // keeps its capacity: no allocation once warm
    for (const planned_group& pg : p.groups)
        for (const fusion::arg_binding& a : pg.group.args)
            if (a.kind == ir::param_kind::buffer && !planner_.buffer_of(a.buffer).memory && !counted_[a.buffer]) {
                counted_[a.buffer] = 1;
                needed += planner_.buffer_of(a.buffer).bytes();
            }
    if (needed != 0) executor_.check_room(needed, "these statements");
    for (const planned_group& pg : p.groups)
        for (const fusion::arg_binding& a : pg.group.args)
            if (a.kind == ir::param_kind::buffer) executor_.allocate(planner_.buffer_of(a.buffer));
}

void context_impl::set_guard(buffer* flag) {
    flush(flush_cause::loop);
    if (flag) executor_.allocate(*flag);
    loop_.set_guard(flag);
}

// Plans the queued statements (a cached plan when the key is known), allocates, launches.
compiled_plan& context_impl::run_planned(flush_cause cause, plan_purpose purpose) {
    bool made = false;
    compiled_plan& p = planner_.plan(queue_, purpose, loop_.guard() != nullptr, made);
    allocate_buffers(p);
    if (logging::enabled(logging::channel::fusion)) log_plan(p, !made, cause);
    launch(p);
    last_plan_ = &p;
    statistics_.flush_ran(p.statement_count(queue_.statements.size()));
    return p;
}

void context_impl::flush(flush_cause cause) {
    std::lock_guard<std::recursive_mutex> guard(mutex_);
    logging::context_scope scope(id_);
    // A held pass runs before anything after it; the device loop's own boundaries (nothing
    // pending) keep it for the bookkeeping that follows.
    if (loop_.holding() && !(cause == flush_cause::loop && queue_.empty())) release_held();
    if (queue_.empty()) return;
    start_pending_window();
    try {
        run_planned(cause);
    } catch (...) {
        keep_initial_contents();
        queue_.clear();
        throw;
    }
    queue_.drop_statements(); // a skeleton's input, bound before this flush, stays
}

} // namespace loom::detail
