// loom::loop_while's held reduction pass: the last pass of a reduction into device scalars,
// kept back so that the loop's bookkeeping runs at its end (one launch an iteration), and
// the batches of such iterations launched as one looped kernel. See docs/skeleton-loop.md.
#include <string>

#include "runtime/context_impl.hpp"
#include "support/log.hpp"

namespace loom::detail {

namespace {

// The launch log's line for a held pass run with `statements` of bookkeeping at its end,
// `count` loop iterations of it in `launches` launches.
void log_held_launch(std::uint32_t statements, std::uint32_t count, std::uint64_t launches) {
    if (!logging::enabled(logging::channel::launch)) return;
    std::string line = "held reduction pass, with statements 0-" + std::to_string(statements - 1) + " at its end";
    if (count > 1)
        line += ", " + std::to_string(count) + " loop iterations in " + std::to_string(launches) +
                (launches == 1 ? " launch" : " launches");
    logging::write(logging::channel::launch, line);
}

} // namespace

void context_impl::release_held() {
    logging::context_scope scope(id_);
    launch_batch(); // the iterations before the held pass
    held_pass& h = held_;
    backend::kernel* k = h.kernel;
    if (!k) return;
    h.kernel = nullptr; // whatever happens, it is not held any more
    execute(*k, h.args.data(), h.args.size(), h.geometry);
    h.keep.clear();
    if (logging::enabled(logging::channel::launch)) logging::write(logging::channel::launch, "held reduction pass");
}

void context_impl::drop_held() {
    held_.kernel = nullptr;
    held_.keep.clear();
    batch_.iterations.clear();
}

bool context_impl::run_held_with_epilogue() {
    std::lock_guard<std::recursive_mutex> guard(mutex_);
    logging::context_scope scope(id_);
    if (!held_.kernel || queue_.empty() || guard_) return false;
    for (const fusion::pending_statement& st : queue_.statements)
        if (st.length != 1) return false;
    start_pending_window();
    try {
        assign_classes(plan_purpose::epilogue);
        const std::uint64_t made_before = stats_.plans_made;
        compiled_plan& p = plan_for_key(plan_purpose::epilogue);
        allocate_buffers(p);
        if (logging::enabled(logging::channel::fusion))
            log_plan(p, stats_.plans_made == made_before, flush_cause::loop);
        if (p.epilogue) {
            const fusion::kernel_group& g = p.plan.groups[0];
            const epilogue_request request{held_.owner, held_.pass, &g.kernel, &key_, nullptr};
            backend::kernel& k = *held_.with_epilogue(*this, request);
            args_ = held_.args;
            bind_arguments(g, args_);
            held_.kernel = nullptr;
            batch_held_pass(k, request, g.last + 1);
        } else {
            release_held();
            launch(p);
        }
        last_plan_ = &p;
        ++stats_.flushes;
        stats_.statements += queue_.statements.size();
    } catch (...) {
        drop_held(); // neither it nor the statements ran: the loop's error says so
        keep_initial_contents();
        queue_.clear();
        throw;
    }
    queue_.drop_statements();
    return true;
}

// The held pass `k` with its bookkeeping, arguments in args_: joins the batch when it is one
// work-group (a barrier then separates iterations), else launches now.
void context_impl::batch_held_pass(backend::kernel& k, const epilogue_request& request, std::uint32_t statements) {
    const backend::geometry& g = held_.geometry;
    if (g.global_items != g.group_size) {
        launch_batch();
        execute(k, args_.data(), args_.size(), g);
        held_.keep.clear();
        log_held_launch(statements, 1, 1);
        return;
    }
    iteration_batch& b = batch_.iterations;
    if (!b.add(k, args_, g)) {
        launch_batch();
        b.add(k, args_, g); // an empty batch takes any iteration
    }
    if (b.size() == 1) {
        // The first iteration names every buffer the batch's iterations do (add checks that
        // the later ones only move them): its buffers, and the bookkeeping's, stay alive.
        b.keep().swap(held_.keep);
        for (const fusion::bound_slot& slot : queue_.slots)
            if (slot.buffer) b.keep().push_back(slot.buffer);
        for (const fusion::pending_statement& st : queue_.statements) b.keep().push_back(st.target);
        batch_.build = held_.with_epilogue;
        batch_.request = request;
        batch_.key.assign(request.key->begin(), request.key->end());
        batch_.bookkeeping_statements = statements;
    }
    held_.keep.clear();
    if (b.size() == iteration_batch::max_iterations) launch_batch();
}

void context_impl::launch_batch() {
    iteration_batch& b = batch_.iterations;
    if (b.empty()) return;
    const std::uint32_t count = b.size();
    std::uint64_t launches = 0;
    try {
        backend::kernel* looped = nullptr;
        if (count > 1) {
            epilogue_request request = batch_.request;
            request.key = &batch_.key;
            request.rotation = &b.rotation();
            looped = batch_.build(*this, request);
        }
        if (count == 1 || looped) {
            batch_.args = b.first_arguments();
            if (looped) batch_.args.push_back({nullptr, &count, sizeof count});
            execute(looped ? *looped : b.kernel(), batch_.args.data(), batch_.args.size(), b.geometry());
            launches = 1;
        } else {
            b.for_each_iteration([&](const std::vector<backend::kernel_arg>& args) {
                execute(b.kernel(), args.data(), args.size(), b.geometry());
                ++launches;
            });
        }
    } catch (...) {
        b.clear();
        throw;
    }
    log_held_launch(batch_.bookkeeping_statements, count, launches);
    b.clear();
}

} // namespace loom::detail
