// A scan at run time: the call checked, its plan found or made (skeleton::plan_scan), and the
// executor's allocate, bind and launch of its three passes. docs/skeleton-scan.md.
#include <string>

#include "loom/scan.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/statements_across_parts.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/skeleton_input.hpp"
#include "skeleton/plan_scan.hpp"

namespace loom::detail {
namespace {

// The output's class among the input's buffers (an in-place scan), or no_class. An in-place
// scan cannot read its output's neighbours: other work-groups overwrite them.
std::uint32_t output_class(const shape& input, const bound_input& in, const buffer_ptr& output) {
    std::uint32_t out_class = skeleton::no_class;
    for (std::size_t s = 0; s < input.slots.size(); ++s)
        if (in.slots[s].buffer.get() == output.get()) {
            out_class = in.slot_class[s];
            if (input.slots[s].neighbour)
                throw error("loom: scan: an in-place scan cannot read neighbours (shift) of its output: other "
                            "work-groups overwrite them; scan into another vector");
        }
    return out_class;
}

} // namespace

void run_scan(context_impl& ctx, const scan_call& written, const buffer_ptr& output) {
    if (ctx.several()) return scan_across_parts(ctx, written, output);
    scan_call call = written;
    call.input = ctx.statement_form(written.input);
    bound_input in = bind_input(ctx, *call.input, call.view_length, "scan");
    const skeleton_operation& sop = *call.op;
    if (output->ctx != &ctx) throw error("loom: scan: the output vector belongs to another context than the input");
    if (!in.has_length) in.length = output->length; // an input that names no vector: the output's length
    if (in.length != output->length)
        throw length_error("loom: scan: length mismatch: the input has " + std::to_string(in.length) +
                           " elements and the output " + std::to_string(output->length));
    if (output->type != sop.type)
        throw error("loom: internal error: scan output type differs from the operation's type");
    const std::uint64_t n = in.length;
    if (n == 0) return;

    skeleton::scan_request request;
    request.input = call.input;
    request.slot_class = &in.slot_class;
    request.op = &sop;
    request.exclusive = call.exclusive;
    request.guarded = ctx.guard() != nullptr;
    request.output_class = output_class(*call.input, in, output);
    request.geometry = launch::scan_geometry_for(ctx.info(), ctx.settings().form, n, unsigned(size_of(sop.type)));

    scan_key& key = ctx.plans().key<scan_key>();
    key.input_shape = call.input->id;
    key.op_shape = sop.op->body->id;
    key.op_type = std::uint32_t(sop.type);
    key.exclusive = call.exclusive;
    key.guarded = request.guarded;
    key.chunked = request.geometry.chunked;
    key.group = request.geometry.group;
    key.output_class = request.output_class;
    key.bindings.assign(in.slot_class.begin(), in.slot_class.end());
    cached_plan* cached =
        &ctx.plans().find_or_plan<scan_key>([&] { return skeleton::plan_scan(request, ctx.device().dialect()); });
    const plan::plan& p = cached->plan;
    const plan::launch_sizes sizes = skeleton::scan_launch(request.geometry, n);

    const scalar_bits init = call.exclusive ? call.init : sop.identity;
    call_values values;
    values.slots = in.slots;
    values.slot_count = call.input->slots.size();
    values.guard = ctx.guard();
    values.results = &output;
    values.result_count = 1;
    values.ops = &sop;
    values.initial = &init;
    ctx.execution().run_passes(p, cached->scratch, cached->kernels.data(), sizes, values, ctx.call_scratch().args);
}

} // namespace loom::detail
