// A keyed scan or a reduce_by_key at run time: the call checked, its plan found or made
// (skeleton::plan_keyed_scan, plan_reduce_by_key), and the executor's allocate, bind and launch of
// its three passes. docs/keyed-operations.md.
#include <string>

#include "loom/keyed.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/statements_across_parts.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/run_keyed.hpp"
#include "runtime/skeleton_input.hpp"
#include "skeleton/plan_keyed_scan.hpp"

namespace loom::detail {

namespace {

// Throws unless `output` may take what the call over `in` writes: the call's context, and none of
// the keys' or values' vectors (a segment's next chunk reads what another work-item would write).
void check_output(context_impl& ctx, const shape& input, const bound_input& in, const buffer_ptr& output,
                  const char* what) {
    if (output->ctx != &ctx)
        throw error(std::string("loom: ") + what +
                    ": the output vector belongs to another context than the keys "
                    "and values");
    for (std::size_t s = 0; s < input.slots.size(); ++s)
        if (in.slots[s].buffer.get() == output.get())
            throw error(std::string("loom: ") + what +
                        ": the output is one of the keys' or values' vectors; "
                        "write into another vector (a segment's next chunk reads what another work-item would "
                        "overwrite)");
}

// The request and the plan's key of a keyed scan or reduce_by_key over `in`.
skeleton::keyed_scan_request request_of(context_impl& ctx, const keyed_scan_call& call, const bound_input& in,
                                        bool reduce, dtype key_out, std::uint64_t n) {
    const shape& input = *call.input;
    skeleton::keyed_scan_request request;
    request.input = call.input;
    request.slot_class = &in.slot_class;
    request.key = input.nodes[input.root].type;
    request.op = call.op;
    request.exclusive = call.exclusive;
    request.guarded = ctx.guard() != nullptr;
    request.key_out = key_out;
    request.geometry =
        reduce ? launch::keyed_scan_geometry_for(ctx.info(), ctx.settings().form, n)
               : launch::scan_by_key_geometry_for(ctx.info(), ctx.settings().form, n, unsigned(size_of(call.op->type)));

    keyed_scan_key& key = ctx.plans().key<keyed_scan_key>();
    key.input_shape = call.input->id;
    key.key_type = std::uint32_t(request.key);
    key.op_shape = call.op->op->body->id;
    key.op_type = std::uint32_t(call.op->type);
    key.exclusive = call.exclusive;
    key.guarded = request.guarded;
    key.reduce = reduce;
    key.key_out_type = reduce ? std::uint32_t(key_out) : 0;
    key.offsets_group = request.geometry.offsets_group;
    key.tile_group = request.geometry.tile_group;
    key.bindings.assign(in.slot_class.begin(), in.slot_class.end());
    return request;
}

} // namespace

void run_keyed_scan(context_impl& ctx, const keyed_scan_call& written, const buffer_ptr& output) {
    if (ctx.several()) return keyed_scan_across_parts(ctx, written, output);
    keyed_scan_call call = written;
    call.input = ctx.statement_form(written.input);
    bound_input in = bind_input(ctx, *call.input, call.view_length, "keyed scan");
    const skeleton_operation& sop = *call.op;
    check_output(ctx, *call.input, in, output, "keyed scan");
    if (!in.has_length) in.length = output->length;
    if (in.length != output->length)
        throw length_error("loom: keyed scan: length mismatch: the keys and values have " + std::to_string(in.length) +
                           " elements and the output " + std::to_string(output->length));
    if (output->type != sop.type)
        throw error("loom: internal error: keyed scan output type differs from the operation's type");
    const std::uint64_t n = in.length;
    if (n == 0) return;

    const skeleton::keyed_scan_request request = request_of(ctx, call, in, false, sop.type, n);
    cached_plan* cached = &ctx.plans().find_or_plan<keyed_scan_key>(
        [&] { return skeleton::plan_keyed_scan(request, ctx.device().dialect()); });
    const plan::launch_sizes sizes = skeleton::keyed_scan_launch(request.geometry, n);

    const scalar_bits init = call.exclusive ? call.init : sop.identity;
    call_values values;
    values.slots = in.slots;
    values.slot_count = call.input->slots.size();
    values.guard = ctx.guard();
    values.results = &output;
    values.result_count = 1;
    values.ops = &sop;
    values.initial = &init;
    ctx.execution().run_passes(cached->plan, cached->scratch, cached->kernels.data(), sizes, values,
                               ctx.call_scratch().args);
}

enqueued_segments enqueue_reduce_by_key(context_impl& ctx, const keyed_scan_call& written, const buffer_ptr& keys_out,
                                        const buffer_ptr& values_out) {
    keyed_scan_call call = written;
    call.input = ctx.statement_form(written.input);
    bound_input in = bind_input(ctx, *call.input, call.view_length, "reduce_by_key");
    const skeleton_operation& sop = *call.op;
    check_output(ctx, *call.input, in, keys_out, "reduce_by_key");
    check_output(ctx, *call.input, in, values_out, "reduce_by_key");
    if (keys_out.get() == values_out.get())
        throw error("loom::reduce_by_key: the keys and values outputs are one vector; give each its own");
    if (values_out->type != sop.type)
        throw error("loom: internal error: reduce_by_key's values output type differs from the operation's type");
    const std::uint64_t n = in.has_length ? in.length : 0;
    if (n == 0) return {};

    const skeleton::keyed_scan_request request = request_of(ctx, call, in, true, keys_out->type, n);
    cached_plan* cached = &ctx.plans().find_or_plan<keyed_scan_key>(
        [&] { return skeleton::plan_reduce_by_key(request, ctx.device().dialect()); });
    const std::uint64_t room = std::min(keys_out->length, values_out->length);
    const plan::launch_sizes sizes = skeleton::reduce_by_key_launch(request.geometry, n, room);

    const buffer_ptr results[2] = {keys_out, values_out};
    call_values values;
    values.slots = in.slots;
    values.slot_count = call.input->slots.size();
    values.guard = ctx.guard();
    values.results = results;
    values.result_count = 2;
    values.ops = &sop;
    values.initial = &sop.identity;
    ctx.execution().run_passes(cached->plan, cached->scratch, cached->kernels.data(), sizes, values,
                               ctx.call_scratch().args);
    return {cached, room};
}

std::uint64_t segments_count(context_impl& ctx, const enqueued_segments& e, const buffer_ptr& keys_out,
                             const buffer_ptr& values_out) {
    if (!e.plan) return 0;
    // The count, in the plan's scratch 4: the queue is in order, so the read follows the passes.
    std::uint64_t segments = 0;
    ctx.device().read(*e.plan->scratch.memory[4], 0, &segments, sizeof segments);
    ctx.note_host_sync("host read");
    if (segments > e.room)
        throw length_error("loom::reduce_by_key: " + std::to_string(segments) + " segments go to outputs of " +
                           std::to_string(keys_out->length) + " keys and " + std::to_string(values_out->length) +
                           " values; make both at least that long");
    return segments;
}

std::uint64_t run_reduce_by_key(context_impl& ctx, const keyed_scan_call& call, const buffer_ptr& keys_out,
                                const buffer_ptr& values_out) {
    if (ctx.several()) return reduce_by_key_across_parts(ctx, call, keys_out, values_out);
    return segments_count(ctx, enqueue_reduce_by_key(ctx, call, keys_out, values_out), keys_out, values_out);
}

} // namespace loom::detail
