// loom::loop_while's held reduction pass: the last pass of a reduction into device scalars,
// kept back so that the loop's bookkeeping runs at its end (one launch an iteration), and
// the batches of such iterations launched as one looped kernel. See docs/skeleton-loop.md.
#include <cstring>

#include "runtime/context_impl.hpp"
#include "support/log.hpp"

namespace loom::detail {

void loop_runtime::hold(const offered_pass& pass, const fusion::statement_queue& queue) {
    held_pass& h = held_;
    h.args = *pass.args;
    h.values.assign(h.args.size(), 0);
    for (std::size_t a = 0; a < h.args.size(); ++a)
        if (h.args[a].value) {
            std::memcpy(&h.values[a], h.args[a].value, h.args[a].size);
            h.args[a].value = &h.values[a];
        }
    h.keep.clear();
    for (const fusion::bound_slot& slot : queue.slots)
        if (slot.buffer) h.keep.push_back(slot.buffer);
    for (const fusion::pending_statement& st : queue.statements) h.keep.push_back(st.target);
    for (std::size_t k = 0; k < pass.result_count; ++k) h.keep.push_back(pass.results[k]);
    h.geometry = pass.geometry;
    h.source = pass.source;
    h.kernel = pass.kernel;
}

void loop_runtime::release(executor& run) {
    launch_batch(run); // the iterations before the held pass
    backend::kernel* k = held_.kernel;
    if (!k) return;
    held_.kernel = nullptr; // whatever happens, it is not held any more
    launch_label label;
    label.what = launch_label::kind::held_pass;
    run.run(*k, held_.args.data(), held_.args.size(), held_.geometry, label);
    held_.keep.clear();
}

void loop_runtime::drop() {
    held_.kernel = nullptr;
    held_.keep.clear();
    batch_.clear();
}

void loop_runtime::run_with_bookkeeping(executor& run, const ir::kernel& bookkeeping,
                                        const std::vector<std::uint32_t>& key, std::vector<backend::kernel_arg>& args,
                                        std::uint32_t statements, const fusion::statement_queue& queue) {
    backend::kernel& k = *held_.source->with_epilogue(bookkeeping, key, nullptr);
    held_.kernel = nullptr;
    const backend::geometry& g = held_.geometry;
    if (g.global_items != g.group_size) { // several work-groups: no barrier can separate iterations
        launch_batch(run);
        launch_label label;
        label.what = launch_label::kind::held_pass;
        label.last = statements;
        run.run(k, args.data(), args.size(), g, label);
        held_.keep.clear();
        return;
    }
    if (!batch_.add(k, args, g)) {
        launch_batch(run);
        batch_.add(k, args, g); // an empty batch takes any iteration
    }
    if (batch_.size() == 1) {
        // The first iteration names every buffer the batch's iterations do (add checks that
        // the later ones only move them): its buffers, and the bookkeeping's, stay alive.
        batch_.keep().swap(held_.keep);
        for (const fusion::bound_slot& slot : queue.slots)
            if (slot.buffer) batch_.keep().push_back(slot.buffer);
        for (const fusion::pending_statement& st : queue.statements) batch_.keep().push_back(st.target);
        batch_source_ = held_.source;
        batch_bookkeeping_ = &bookkeeping;
        batch_key_.assign(key.begin(), key.end());
        batch_statements_ = statements;
    }
    held_.keep.clear();
    if (batch_.size() == iteration_batch::max_iterations) launch_batch(run);
}

void loop_runtime::launch_batch(executor& run) {
    iteration_batch& b = batch_;
    if (b.empty()) return;
    const std::uint32_t count = b.size();
    launch_label label;
    label.what = launch_label::kind::held_pass;
    label.last = batch_statements_;
    try {
        backend::kernel* looped =
            count > 1 ? batch_source_->with_epilogue(*batch_bookkeeping_, batch_key_, &b.rotation()) : nullptr;
        if (count == 1 || looped) {
            batch_args_ = b.first_arguments();
            if (looped) {
                batch_args_.push_back({nullptr, &count, sizeof count});
                label.what = launch_label::kind::loop_batch;
                label.iterations = count;
            }
            run.run(looped ? *looped : b.kernel(), batch_args_.data(), batch_args_.size(), b.geometry(), label);
        } else {
            b.for_each_iteration([&](const std::vector<backend::kernel_arg>& args) {
                run.run(b.kernel(), args.data(), args.size(), b.geometry(), label);
            });
        }
    } catch (...) {
        b.clear();
        throw;
    }
    b.clear();
}

// The hook a reduction offers its last pass to (see loop_runtime.hpp).
bool context_impl::offer_last_pass(const offered_pass& pass) {
    if (!may_hold()) return false;
    loop_.hold(pass, queue_);
    return true;
}

void context_impl::release_held() {
    logging::context_scope scope(id_);
    loop_.release(executor_);
}

void context_impl::drop_held() { loop_.drop(); }

bool context_impl::run_held_with_epilogue() {
    std::lock_guard<std::recursive_mutex> guard(mutex_);
    logging::context_scope scope(id_);
    if (!loop_.holds_pass() || queue_.empty() || loop_.guard()) return false;
    for (const fusion::pending_statement& st : queue_.statements)
        if (st.length != 1) return false;
    limits_.start_window();
    try {
        bool made = false;
        compiled_plan& p = planner_.plan(queue_, plan_purpose::epilogue, false, made);
        allocate_buffers(p);
        if (logging::enabled(logging::channel::fusion)) log_plan(p, !made, flush_cause::loop);
        if (p.in_held_pass) {
            const fusion::kernel_group& g = p.groups[0].group;
            held_args_ = loop_.held_arguments();
            call_values bookkeeping;
            bookkeeping.flush_buffers = planner_.buffers();
            bookkeeping.queue = &queue_;
            executor_.bind(p.plan, 0, bookkeeping, held_args_);
            loop_.run_with_bookkeeping(executor_, g.kernel, planner_.key(), held_args_, g.last + 1, queue_);
        } else {
            release_held();
            launch(p);
        }
        last_plan_ = &p;
        statistics_.flush_ran(queue_.statements.size());
    } catch (...) {
        drop_held(); // neither it nor the statements ran: the loop's error says so
        keep_initial_contents();
        queue_.clear();
        throw;
    }
    queue_.drop_statements();
    return true;
}

} // namespace loom::detail
