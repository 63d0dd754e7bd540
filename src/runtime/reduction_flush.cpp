// The flush a reduction makes: map-reduce fusion, the pending statements planned with the
// reduction's input and the last kernel run as its first pass (docs/fusion.md). The held
// last pass of loom::loop_while is in loop/held_pass.cpp.
#include "runtime/context_impl.hpp"

namespace loom::detail {

fused_statements context_impl::flush_into_reduction(const shape& input, std::uint64_t length) {
    std::lock_guard<std::recursive_mutex> guard(mutex_);
    // A held pass runs first. A batch of iterations waits for a launch that must follow it:
    // the next iteration's pass usually joins it instead (launch, run_reduce).
    if (loop_.holds_pass()) release_held();
    if (queue_.empty()) return {};
    // A one-element reduction could alias its result with a statement's target (a
    // loom::scalar, the loop flag): it gains nothing from fusion anyway.
    if (!settings_.fusion || length < 2) {
        flush(flush_cause::skeleton);
        return {};
    }
    if (!reduction_sink_) {
        reduction_sink_ = std::make_shared<buffer>();
        reduction_sink_->ctx = this;
    }
    reduction_sink_->length = length;
    reduction_sink_->type = input.nodes[input.root].type;
    limits_.start_window();
    queue_.statements.push_back(
        {&input, reduction_sink_, std::uint32_t(queue_.slots.size() - input.slots.size()), length});
    const compiled_plan* p = nullptr;
    try {
        p = &run_planned(flush_cause::skeleton, plan_purpose::reduction_input);
    } catch (...) {
        keep_initial_contents();
        queue_.clear();
        throw;
    }
    if (p->last_group_fused) return {p, &planner_.key(), planner_.buffers(), &queue_};
    end_reduction_flush();
    return {};
}

void context_impl::end_reduction_flush() {
    if (queue_.empty()) return;
    queue_.statements.pop_back(); // the reduction's input: its slots are the recorder's
    queue_.drop_statements();
}

} // namespace loom::detail
