// A stream compaction at run time: the call checked, its plan found or made
// (skeleton::plan_compact), the executor's allocate, bind and launch of its three passes, and the
// count read back. docs/search-and-compaction.md.
#include <string>

#include "runtime/run_compact.hpp"

#include "loom/compaction.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/parts/statements_across_parts.hpp"
#include "runtime/skeleton_input.hpp"
#include "skeleton/plan_compact.hpp"

namespace loom::detail {

enqueued_compaction enqueue_compaction(context_impl& ctx, const compact_call& call, const bound_input& in,
                                       std::uint64_t n, const buffer_ptr& output) {
    skeleton::compact_request request;
    request.input = call.input;
    request.slot_class = &in.slot_class;
    request.value = output->type;
    request.guarded = ctx.guard() != nullptr;
    const std::uint64_t room = output->length > call.start ? output->length - call.start : 0;
    request.geometry = launch::compact_geometry_for(ctx.info(), ctx.settings().form, n, room);
    compact_key& key = ctx.plans().key<compact_key>();
    key.input_shape = call.input->id;
    key.value_type = std::uint32_t(request.value);
    key.guarded = request.guarded;
    key.offsets_group = request.geometry.chunks.offsets_group;
    key.tile_group = request.geometry.tile_group; // 0: the three passes
    key.bindings.assign(in.slot_class.begin(), in.slot_class.end());
    cached_plan* cached =
        &ctx.plans().find_or_plan<compact_key>([&] { return skeleton::plan_compact(request, ctx.device().dialect()); });
    const plan::launch_sizes sizes = skeleton::compact_launch(request.geometry, n, room, call.start);

    call_values values;
    values.slots = in.slots;
    values.slot_count = call.input->slots.size();
    values.guard = ctx.guard();
    values.results = &output;
    values.result_count = 1;
    ctx.execution().run_passes(cached->plan, cached->scratch, cached->kernels.data(), sizes, values,
                               ctx.call_scratch().args);
    return {cached, room};
}

std::uint64_t kept_count(context_impl& ctx, const enqueued_compaction& e, const compact_call& call,
                         const buffer_ptr& output) {
    // The count, in the plan's scratch 2: the queue is in order, so the read follows the passes.
    std::uint64_t kept = 0;
    ctx.device().read(*e.plan->scratch.memory[2], 0, &kept, sizeof kept);
    ctx.note_host_sync("host read");
    if (kept > e.room)
        throw length_error(std::string("loom::") + call.what + ": " + std::to_string(call.start + kept) +
                           " elements go to an output of " + std::to_string(output->length) +
                           "; make the output at least that long");
    return kept;
}

std::uint64_t run_compact(context_impl& ctx, const compact_call& written, const buffer_ptr& output) {
    compact_call call = written;
    call.input = ctx.statement_form(written.input);
    bound_input in = bind_input(ctx, *call.input, call.view_length, call.what);
    const std::string what = std::string("loom::") + call.what;
    if (output->ctx != &ctx) throw error(what + ": the output vector belongs to another context than the values");
    const shape& input = *call.input;
    for (std::size_t s = 0; s < input.slots.size(); ++s)
        if (in.slots[s].buffer.get() == output.get())
            throw error(what + ": the output is one of the values' or the predicate's vectors; write into another "
                               "vector (a chunk would overwrite what another still reads)");
    const std::uint64_t n = in.has_length ? in.length : 0;
    if (n == 0) return 0;
    if (ctx.several()) return compact_across_parts(ctx, call, in.slots, n, output);
    return kept_count(ctx, enqueue_compaction(ctx, call, in, n, output), call, output);
}

} // namespace loom::detail
