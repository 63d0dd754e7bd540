// The axis reduction skeleton at run time: plan lookup by (input shape, axis, form, operation,
// aliasing), one launch that writes the result vector. The pending statements run first, in
// their own kernels; the input expression is computed inside the pass.
#include "skeleton/axis_reduce.hpp"

#include <algorithm>
#include <string>

#include "loom/matrix.hpp"
#include "runtime/buffer.hpp"
#include "skeleton/reduce.hpp"
#include "skeleton/skeleton_state.hpp"
#include "support/log.hpp"

namespace loom::skeleton {

axis_geometry axis_geometry_for(const backend::device_info& info, std::optional<ir::map_form> forced, unsigned axis,
                                std::uint64_t rows, std::uint64_t cols) {
    axis_geometry g;
    const bool gpu = forced ? *forced == ir::map_form::grid_stride : info.gpu;
    const std::uint64_t units = std::max(1u, info.compute_units);
    g.lanes = chunk_lanes;
    if (!gpu) {
        // As a CPU map: groups of one work-item, a few per compute unit, each a band of rows
        // (or of blocks of columns); a band's start-up is small beside a row's work.
        g.form = codegen::axis_form::lanes;
        const std::uint64_t things = axis == 1 ? rows : (cols + g.lanes - 1) / g.lanes;
        g.items = std::max<std::uint64_t>(1, std::min(things, units * 8));
        return g;
    }
    g.form = codegen::axis_form::groups;
    const unsigned largest = skeleton_group_size(info);
    if (axis == 1) {
        // A group per row, as wide as the row (a power of two), from a warp's 32 to 256.
        unsigned group = 32;
        while (group < largest && group < cols) group *= 2;
        g.group = std::min(group, largest);
        g.items = std::max<std::uint64_t>(1, std::min(rows, units * 32)) * g.group;
        return g;
    }
    g.group = largest;
    const std::uint64_t cap = std::max<std::uint64_t>(1, units * 2048 / g.group) * g.group;
    g.items = std::max<std::uint64_t>(g.group, std::min((cols + g.group - 1) / g.group * g.group, cap));
    return g;
}

namespace {

std::unique_ptr<skeleton_plan> make_axis_plan(detail::context_impl& ctx, const detail::axis_reduce_call& call,
                                              const std::vector<std::uint32_t>& slot_class, const axis_geometry& geo,
                                              bool guarded) {
    auto plan = std::make_unique<skeleton_plan>();
    std::vector<dtype> types;
    for (std::size_t k = 0; k < call.values; ++k) types.push_back(call.ops[k].type);
    plan->input = build_input(*call.input, slot_class, types);
    plan->input.kernel.guarded = guarded;
    plan->ops.reserve(call.values); // the accumulators point into it
    codegen::axis_pass_kernel pass;
    for (std::size_t k = 0; k < call.values; ++k) {
        plan->ops.push_back(combine_of(call.ops[k]));
        pass.accumulators.push_back({k == 0 ? plan->input.root : plan->input.more_roots[k - 1], &plan->ops[k]});
    }
    pass.input = &plan->input.kernel;
    pass.axis = call.axis;
    pass.form = geo.form;
    pass.group = geo.group;
    pass.lanes = geo.lanes;
    pass.contract_folds = ctx.settings().fp_contract;
    plan->group = geo.group;
    plan->chunked = geo.form == codegen::axis_form::lanes;
    plan->sources.push_back(codegen::emit_axis_pass(pass, ctx.device().dialect()));
    plan->summaries.push_back(
        "reduction" + std::string(call.values > 1 ? " of " + std::to_string(call.values) + " values" : "") +
        " along axis " + std::to_string(call.axis) + " (input shape " + std::to_string(call.input->id) + ")");
    return plan;
}

} // namespace
} // namespace loom::skeleton

namespace loom::detail {

void run_axis_reduce(context_impl& ctx, const axis_reduce_call& written) {
    using namespace skeleton;
    axis_reduce_call call = written;
    call.input = ctx.statement_form(written.input);
    const shape& s = *call.input;
    std::vector<fusion::bound_slot>& queued = ctx.queue().slots;
    const fusion::bound_slot* slots = queued.data() + (queued.size() - s.slots.size());
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

    const axis_geometry geo = axis_geometry_for(ctx.info(), ctx.settings().form, call.axis, call.rows, call.cols);
    const bool guarded = ctx.guard() != nullptr;
    skeleton_state& state = state_of(ctx);
    plan_key<axis_key_head>& key = state.axis_key;
    key.head = axis_key_head{};
    key.head.input_shape = s.id;
    key.head.axis = call.axis;
    key.head.form = std::uint32_t(geo.form);
    key.head.group = geo.group;
    key.head.lanes = geo.lanes;
    key.head.guarded = guarded ? 1 : 0;
    key.head.op_shape = call.ops[0].op->body->id;
    key.head.op_type = std::uint32_t(call.ops[0].type);
    key.bindings.assign(slot_class.begin(), slot_class.end());
    for (std::size_t k = 1; k < call.values; ++k) { // the shape fixes where the slot classes end
        key.bindings.push_back(call.ops[k].op->body->id);
        key.bindings.push_back(std::uint32_t(call.ops[k].type));
    }
    auto it = state.axis_plans.find(key);
    if (it == state.axis_plans.end())
        it = state.axis_plans.emplace(key, make_axis_plan(ctx, call, slot_class, geo, guarded)).first;
    skeleton_plan& plan = *it->second;
    backend::kernel& kernel = pass_kernel(ctx, plan, 0); // compiled before anything is allocated or runs

    backend::device& dev = ctx.device();
    for (std::size_t k = 0; k < s.slots.size(); ++k) {
        buffer* b = slots[k].buffer.get();
        if (b && !b->memory) b->memory = dev.allocate(b->bytes());
    }
    for (std::size_t k = 0; k < call.values; ++k)
        if (!call.outputs[k]->memory) call.outputs[k]->memory = dev.allocate(call.outputs[k]->bytes());

    // Arguments (codegen::emit_axis_pass): the input's, the guard, the outputs, the identities,
    // the captures of each operation, rows and cols.
    std::vector<backend::kernel_arg>& args = state.args;
    args.clear();
    input_arguments(plan, {slots, slot_class, 0}, args);
    if (guarded) args.push_back({ctx.guard()->memory.get(), nullptr, 0});
    for (std::size_t k = 0; k < call.values; ++k) args.push_back({call.outputs[k]->memory.get(), nullptr, 0});
    operation_arguments(plan, call.ops, call.values, args);
    args.push_back({nullptr, &call.rows, sizeof call.rows});
    args.push_back({nullptr, &call.cols, sizeof call.cols});

    ctx.release_held(); // a batch of loop iterations before this pass
    launch_label label;
    label.what = launch_label::kind::reduce_pass;
    label.elements = call.rows * call.cols;
    label.pass = 1;
    ctx.execute(kernel, args.data(), args.size(), {geo.items, geo.group}, label);
    if (logging::enabled(logging::channel::launch))
        logging::write(logging::channel::launch,
                       std::string(call.values > 1 ? "reduce " + std::to_string(call.values) + " values" : "reduce") +
                           " along axis " + std::to_string(call.axis) + " of " + std::to_string(call.rows) + " x " +
                           std::to_string(call.cols) + ": " +
                           (geo.form == codegen::axis_form::lanes ? "lanes form, " : "groups form, ") +
                           std::to_string(geo.items) + " work-items in groups of " + std::to_string(geo.group));
}

} // namespace loom::detail
