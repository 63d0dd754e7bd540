// The flushes a reduction makes: map-reduce fusion (the pending statements planned with the
// reduction's input, the last kernel run as its first pass) and, inside loom::loop_while, the
// held last pass and the loop's bookkeeping run at its end. See docs/fusion.md and
// docs/skeleton-loop.md.
#include <string>

#include "runtime/context_impl.hpp"
#include "support/log.hpp"

namespace loom::detail {

const fusion::kernel_group* context_impl::flush_into_reduction(const shape& input, std::uint64_t length) {
    std::lock_guard<std::recursive_mutex> guard(mutex_);
    if (held_.kernel) release_held();
    if (queue_.empty()) return nullptr;
    // A one-element reduction could alias its result with a statement's target (a
    // loom::scalar, the loop flag): it gains nothing from fusion anyway.
    if (!fusion_ || length < 2) {
        flush(flush_cause::skeleton);
        return nullptr;
    }
    if (!reduction_sink_) {
        reduction_sink_ = std::make_shared<buffer>();
        reduction_sink_->ctx = this;
    }
    reduction_sink_->length = length;
    reduction_sink_->type = input.nodes[input.root].type;
    pending_bytes_ = 0;
    queue_.statements.push_back(
        {&input, reduction_sink_, std::uint32_t(queue_.slots.size() - input.slots.size()), length});
    planning_reduction_ = true;
    try {
        run_planned(flush_cause::skeleton);
    } catch (...) {
        planning_reduction_ = false;
        queue_.clear();
        throw;
    }
    planning_reduction_ = false;
    if (last_plan_->last_group_fused) return &last_plan_->plan.groups.back();
    end_reduction_flush();
    return nullptr;
}

void context_impl::release_held() {
    held_pass& h = held_;
    backend::kernel* k = h.kernel;
    h.kernel = nullptr; // whatever happens, it is not held any more
    device_->launch(*k, h.args.data(), h.args.size(), h.geometry);
    ++stats.kernels_launched;
    h.keep.clear();
    if (logging::enabled(logging::channel::launch)) logging::write(logging::channel::launch, "held reduction pass");
}

bool context_impl::run_held_with_epilogue() {
    std::lock_guard<std::recursive_mutex> guard(mutex_);
    if (!held_.kernel || queue_.empty() || guard_) return false;
    for (const fusion::pending_statement& st : queue_.statements)
        if (st.length != 1) return false;
    pending_bytes_ = 0;
    planning_epilogue_ = true;
    try {
        assign_classes();
        const std::uint64_t made_before = stats.plans_made;
        compiled_plan& p = plan_for_key();
        planning_epilogue_ = false;
        allocate_buffers(p);
        if (logging::enabled(logging::channel::fusion)) log_plan(p, stats.plans_made == made_before, flush_cause::loop);
        if (p.epilogue) {
            const fusion::kernel_group& g = p.plan.groups[0];
            backend::kernel& k = held_.with_epilogue(*this, held_, g.kernel);
            args_ = held_.args;
            bind_arguments(g, args_);
            held_.kernel = nullptr;
            device_->launch(k, args_.data(), args_.size(), held_.geometry);
            ++stats.kernels_launched;
            held_.keep.clear();
            if (logging::enabled(logging::channel::launch))
                logging::write(logging::channel::launch, "held reduction pass, with statements 0-" +
                                                             std::to_string(g.last) + " at its end");
        } else {
            release_held();
            launch(p);
        }
        last_plan_ = &p;
        ++stats.flushes;
        stats.statements += queue_.statements.size();
    } catch (...) {
        planning_epilogue_ = false;
        held_.kernel = nullptr; // neither it nor the statements ran: the loop's error says so
        held_.keep.clear();
        queue_.clear();
        throw;
    }
    queue_.drop_statements();
    return true;
}

void context_impl::end_reduction_flush() {
    if (queue_.empty()) return;
    queue_.statements.pop_back(); // the reduction's input: its slots are the recorder's
    queue_.drop_statements();
}

} // namespace loom::detail
