// The flush: pending statements -> plan key -> (cached) plan -> allocations -> launches; and the
// flushes the limits force (flush_limits.hpp), of a prefix of the pending statements.
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
    case flush_cause::part_copy: return "part_copy";
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
    limits_.start_window();
    try {
        run_planned(cause);
    } catch (...) {
        keep_initial_contents();
        queue_.clear();
        throw;
    }
    queue_.drop_statements(); // a skeleton's input, bound before this flush, stays
}

void context_impl::after_record() {
    switch (limits_.reached(queue_)) {
    case flush_limits::limit::none: return;
    case flush_limits::limit::statements:
        return flush_prefix(flush_limits::cut_point(queue_), flush_cause::statement_limit);
    case flush_limits::limit::bytes: return flush_prefix(flush_limits::cut_point(queue_), flush_cause::byte_limit);
    }
}

// Runs the first `count` pending statements; the rest stay pending. On failure everything
// pending is dropped, as in flush(): the rest may read what the failed part would have written.
void context_impl::flush_prefix(std::size_t count, flush_cause cause) {
    if (count >= queue_.statements.size()) return flush(cause);
    fusion::statement_queue rest;
    const std::uint32_t first_slot = queue_.statements[count].first_slot;
    rest.slots.assign(std::make_move_iterator(queue_.slots.begin() + first_slot),
                      std::make_move_iterator(queue_.slots.end()));
    for (std::size_t s = count; s < queue_.statements.size(); ++s) {
        rest.statements.push_back(std::move(queue_.statements[s]));
        rest.statements.back().first_slot -= first_slot;
    }
    queue_.slots.resize(first_slot);
    queue_.statements.resize(count);
    flush(cause);
    // The queue is empty now: the rest becomes the pending statements.
    const std::uint32_t base = std::uint32_t(queue_.slots.size());
    for (fusion::bound_slot& slot : rest.slots) queue_.slots.push_back(std::move(slot));
    for (fusion::pending_statement& st : rest.statements) {
        st.first_slot += base;
        queue_.statements.push_back(std::move(st));
    }
    limits_.recount(queue_);
}

} // namespace loom::detail
