// A reduction at run time: the call checked, the statements pending before it flushed (or the
// last group of them handed to its first pass, map-reduce fusion), its plan found or made
// (skeleton::plan_reduce), and the executor's allocate, bind and launch; then the host's read of
// the results, or none (loom::on_device). docs/skeleton-reduce.md.
#include <cstring>
#include <string>

#include "loom/reduce.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/statements_across_parts.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/reduce_epilogues.hpp"
#include "runtime/skeleton_input.hpp"
#include "skeleton/plan_reduce.hpp"
#include "support/log.hpp"

namespace loom::detail {

void run_pending(context_impl& ctx) { ctx.flush(flush_cause::skeleton); }

namespace {

// The identity of each operation is the result of a reduction over nothing.
void reduce_nothing(context_impl& ctx, const reduce_call& call, const reduce_results& results) {
    ctx.flush(flush_cause::skeleton);
    for (std::size_t k = 0; k < call.op_count; ++k) {
        if (results.host)
            std::memcpy(results.host[k], &call.ops[k].identity, size_of(call.ops[k].type));
        else
            ctx.device().write(*results.device[k]->memory, 0, &call.ops[k].identity, size_of(call.ops[k].type));
    }
}

// The plan of this reduction: found by its key, or made now.
cached_plan& plan_for(context_impl& ctx, const skeleton::reduce_request& r, const fused_statements& fused) {
    reduce_key& key = ctx.plans().key<reduce_key>();
    key.input_shape = r.input->id;
    key.fused = r.fused != nullptr;
    key.truth = r.truth;
    key.guarded = r.guarded;
    key.into_device = r.into_device;
    key.passes = r.geometry.groups == 1 ? 1 : 2;
    key.group = r.geometry.group;
    key.op_count = std::uint32_t(r.op_count);
    key.op_shape = {};
    key.op_type = {};
    for (std::size_t k = 0; k < r.op_count && k < skeleton::max_reduce_ops; ++k) {
        key.op_shape[k] = r.ops[k].op->body->id;
        key.op_type[k] = std::uint32_t(r.ops[k].type);
    }
    if (r.fused)
        key.bindings.assign(fused.key->begin(), fused.key->end());
    else
        key.bindings.assign(r.slot_class->begin(), r.slot_class->end());
    if (cached_plan* found = ctx.plans().find<reduce_key>()) return *found;
    skeleton::reduce_plan made = skeleton::plan_reduce(r, ctx.device().dialect());
    auto entry = std::make_unique<cached_plan>();
    entry->plan = std::move(made.plan);
    entry->recipe = std::make_unique<skeleton::reduce_recipe>(std::move(made.recipe));
    return ctx.plans().add<reduce_key>(std::move(entry));
}

// Ends flush_into_reduction's hold on the pending statements, however run_reduce leaves.
struct reduction_flush_end {
    context_impl& ctx;
    const fused_statements& fused;
    ~reduction_flush_end() {
        if (fused) ctx.end_reduction_flush();
    }
};

} // namespace

void run_reduce(context_impl& ctx, const reduce_call& written, const reduce_results& results) {
    if (ctx.several()) return reduce_across_parts(ctx, written, results);
    reduce_call call = written;
    call.input = ctx.statement_form(written.input);
    bound_input in = bind_input(ctx, *call.input, call.view_length, "reduction"); // every check before anything runs
    if (call.op_count > skeleton::max_reduce_ops)
        throw error("loom: internal error: a reduction of more than two operations");
    if (results.device) {
        for (std::size_t k = 0; k < call.op_count; ++k) {
            buffer& b = *results.device[k];
            if (b.ctx != &ctx) throw error("loom: a reduction into a loom::scalar of another context; use one context");
            ctx.execution().allocate(b);
        }
    }
    if (in.length == 0) return reduce_nothing(ctx, call, results);
    // Pending statements run first: in their own kernels, or (the last group, when it
    // holds statements of the input's length) inside pass 1.
    const fused_statements fused = ctx.flush_into_reduction(*call.input, in.length);
    const reduction_flush_end end{ctx, fused};
    in.slots = input_slots(ctx, *call.input); // moved if flushed

    skeleton::reduce_request request;
    request.input = call.input;
    request.slot_class = &in.slot_class;
    request.fused = fused ? &fused.group() : nullptr;
    request.ops = call.ops;
    request.op_count = call.op_count;
    request.truth = call.truth;
    request.guarded = ctx.guard() != nullptr;
    request.into_device = results.device != nullptr;
    request.geometry = launch::reduce_geometry_for(ctx.info(), in.length);
    cached_plan& cached = plan_for(ctx, request, fused);
    const plan::plan& p = cached.plan;
    const plan::launch_sizes sizes = skeleton::reduce_launch(request.geometry, in.length, call.op_count);

    skeleton_scratch& scratch = ctx.call_scratch();
    std::vector<backend::kernel_arg>& args = scratch.args;
    call_values values;
    values.slots = in.slots;
    values.slot_count = call.input->slots.size();
    if (fused) {
        values.fused_plan = &fused.plan->plan;
        values.fused_pass = fused.pass();
        values.flush_buffers = fused.buffers;
        values.queue = fused.queue;
    }
    values.guard = ctx.guard();
    values.results = results.device;
    values.result_count = results.device ? call.op_count : 0;
    values.ops = call.ops;
    executor& run = ctx.execution();
    run.allocate(p, cached.scratch, sizes, values);

    // The last pass into device scalars is offered to loom::loop_while, which inside a body
    // holds it so that the loop's bookkeeping can run at its end (context_impl::offer_last_pass).
    bool held = false;
    const std::size_t last = p.passes.size() - 1;
    for (std::size_t pass = 0; pass <= last; ++pass) {
        args.clear();
        run.bind(p, pass, cached.scratch, sizes, values, args);
        if (pass == last && results.device) {
            std::unique_ptr<epilogue_source>& source = cached.epilogues[pass];
            if (!source)
                source = std::make_unique<reduce_epilogues>(ctx.programs(), ctx.device().dialect(), *cached.recipe,
                                                            std::uint32_t(pass), p.passes[pass].summary);
            held = ctx.offer_last_pass(
                {cached.kernels[pass], &args, sizes.geometry[pass], source.get(), results.device, call.op_count});
            if (held) break;
        }
        ctx.release_held(); // a batch of loop iterations before this pass
        run.launch(p, pass, *cached.kernels[pass], args, sizes);
    }
    if (results.host) {
        for (std::size_t k = 0; k < call.op_count; ++k)
            ctx.device().read(*cached.scratch.memory[p.read_back[k]], 0, results.host[k], size_of(call.ops[k].type));
        ctx.note_host_sync("reduction result");
    }
    if (logging::enabled(logging::channel::launch))
        logging::write(logging::channel::launch,
                       "reduce over " + std::to_string(in.length) + " elements: " +
                           std::to_string(request.geometry.groups) + " groups of " +
                           std::to_string(request.geometry.group) +
                           (held ? "; last pass held for the loop's bookkeeping" : ""));
}

} // namespace loom::detail
