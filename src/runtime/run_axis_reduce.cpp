// A reduction along an axis at run time: the call checked, its plan found or made
// (skeleton::plan_axis_reduce), and the executor's allocate, bind and launch of its one pass,
// which writes the result vectors. The pending statements run first, in their own kernels; the
// input expression is computed inside the pass.
#include <string>

#include "loom/matrix.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/skeleton_input.hpp"
#include "skeleton/plan_axis_reduce.hpp"
#include "support/log.hpp"

namespace loom::detail {

void run_axis_reduce(context_impl& ctx, const axis_reduce_call& written) {
    ctx.require_one_device("a reduction along an axis");
    axis_reduce_call call = written;
    call.input = ctx.statement_form(written.input);
    const shape& s = *call.input;
    const fusion::bound_slot* slots = input_slots(ctx, s);
    const std::vector<std::uint32_t>& slot_class = number_slot_classes(ctx, s, slots, "a reduction along an axis");
    const std::uint64_t length = call.axis == 1 ? call.rows : call.cols;
    if (call.values != 1 + s.more_roots.size())
        throw error("loom: internal error: an axis reduction has another number of operations than values");
    for (std::size_t k = 0; k < call.values; ++k) {
        const buffer_ptr& output = call.outputs[k];
        if (output->ctx != &ctx || output->type != call.ops[k].type || output->length != length)
            throw error("loom: internal error: an axis reduction's output does not match it");
    }
    if (length == 0) return;

    skeleton::axis_request request;
    request.input = &s;
    request.slot_class = &slot_class;
    request.axis = call.axis;
    request.ops = call.ops;
    request.values = call.values;
    request.guarded = ctx.guard() != nullptr;
    request.contract_folds = ctx.settings().fp_contract;
    request.geometry = launch::axis_geometry_for(ctx.info(), ctx.settings().form, call.axis, call.rows, call.cols);
    const launch::axis_geometry& geo = request.geometry;

    axis_key& key = ctx.plans().key<axis_key>();
    key.input_shape = s.id;
    key.axis = call.axis;
    key.form = std::uint32_t(geo.form);
    key.group = geo.group;
    key.lanes = geo.lanes;
    key.guarded = request.guarded;
    key.op_shape = call.ops[0].op->body->id;
    key.op_type = std::uint32_t(call.ops[0].type);
    key.bindings.assign(slot_class.begin(), slot_class.end());
    for (std::size_t k = 1; k < call.values; ++k) { // the shape fixes where the slot classes end
        key.bindings.push_back(call.ops[k].op->body->id);
        key.bindings.push_back(std::uint32_t(call.ops[k].type));
    }
    cached_plan* cached = ctx.plans().find<axis_key>();
    if (!cached) { // compiled before anything is allocated or runs
        auto entry = std::make_unique<cached_plan>();
        entry->plan = skeleton::plan_axis_reduce(request, ctx.device().dialect());
        cached = &ctx.plans().add<axis_key>(std::move(entry));
    }
    const plan::plan& p = cached->plan;
    const plan::launch_sizes sizes = skeleton::axis_launch(geo, call.rows, call.cols);

    call_values values;
    values.slots = slots;
    values.slot_count = s.slots.size();
    values.guard = ctx.guard();
    values.results = call.outputs;
    values.result_count = call.values;
    values.ops = call.ops;
    executor& run = ctx.execution();
    run.allocate(p, cached->scratch, sizes, values);
    std::vector<backend::kernel_arg>& args = ctx.call_scratch().args;
    args.clear();
    run.bind(p, 0, cached->scratch, sizes, values, args);
    ctx.release_held(); // a batch of loop iterations before this pass
    run.launch(p, 0, *cached->kernels[0], args, sizes);
    if (logging::enabled(logging::channel::launch))
        logging::write(logging::channel::launch,
                       std::string(call.values > 1 ? "reduce " + std::to_string(call.values) + " values" : "reduce") +
                           " along axis " + std::to_string(call.axis) + " of " + std::to_string(call.rows) + " x " +
                           std::to_string(call.cols) + ": " +
                           (geo.form == codegen::axis_form::lanes ? "lanes form, " : "groups form, ") +
                           std::to_string(geo.items) + " work-items in groups of " + std::to_string(geo.group));
}

} // namespace loom::detail
