// A keyed scan at run time: the call checked, its plan found or made (skeleton::plan_keyed_scan),
// and the executor's allocate, bind and launch of its three passes. docs/keyed-operations.md.
#include <string>

#include "loom/keyed.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/skeleton_input.hpp"
#include "skeleton/plan_keyed_scan.hpp"

namespace loom::detail {

void run_keyed_scan(context_impl& ctx, const keyed_scan_call& written, const buffer_ptr& output) {
    keyed_scan_call call = written;
    call.input = ctx.statement_form(written.input);
    bound_input in = bind_input(ctx, *call.input, call.view_length, "keyed scan");
    const skeleton_operation& sop = *call.op;
    if (output->ctx != &ctx)
        throw error("loom: keyed scan: the output vector belongs to another context than the keys and values");
    if (!in.has_length) in.length = output->length;
    if (in.length != output->length)
        throw length_error("loom: keyed scan: length mismatch: the keys and values have " + std::to_string(in.length) +
                           " elements and the output " + std::to_string(output->length));
    if (output->type != sop.type)
        throw error("loom: internal error: keyed scan output type differs from the operation's type");
    const std::uint64_t n = in.length;
    if (n == 0) return;
    const shape& input = *call.input;
    for (std::size_t s = 0; s < input.slots.size(); ++s)
        if (in.slots[s].buffer.get() == output.get())
            throw error("loom: keyed scan: the output is one of the keys' or values' vectors; scan into another "
                        "vector (a segment's next chunk reads what another work-item would overwrite)");

    skeleton::keyed_scan_request request;
    request.input = call.input;
    request.slot_class = &in.slot_class;
    request.key = input.nodes[input.root].type;
    request.op = &sop;
    request.exclusive = call.exclusive;
    request.guarded = ctx.guard() != nullptr;
    request.geometry = launch::keyed_scan_geometry_for(ctx.info(), ctx.settings().form, n);

    keyed_scan_key& key = ctx.plans().key<keyed_scan_key>();
    key.input_shape = call.input->id;
    key.key_type = std::uint32_t(request.key);
    key.op_shape = sop.op->body->id;
    key.op_type = std::uint32_t(sop.type);
    key.exclusive = call.exclusive;
    key.guarded = request.guarded;
    key.offsets_group = request.geometry.offsets_group;
    key.bindings.assign(in.slot_class.begin(), in.slot_class.end());
    cached_plan* cached = &ctx.plans().find_or_plan<keyed_scan_key>(
        [&] { return skeleton::plan_keyed_scan(request, ctx.device().dialect()); });
    const plan::plan& p = cached->plan;
    const plan::launch_sizes sizes = skeleton::keyed_scan_launch(request.geometry, n);

    const scalar_bits init = call.exclusive ? call.init : sop.identity;
    call_values values;
    values.slots = in.slots;
    values.slot_count = input.slots.size();
    values.guard = ctx.guard();
    values.results = &output;
    values.result_count = 1;
    values.ops = &sop;
    values.initial = &init;
    ctx.execution().run_passes(p, cached->scratch, cached->kernels.data(), sizes, values, ctx.call_scratch().args);
}

} // namespace loom::detail
