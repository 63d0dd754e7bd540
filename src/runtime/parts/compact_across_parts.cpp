// A stream compaction on a context over several devices (docs/multi-device.md): every part keeps
// its own values into a buffer of its own, all parts enqueued before any count is read; the kept
// values then go to their places in the output, part k's after every earlier part's (stable, as on
// one device), each piece copied into the output parts it falls in (between the devices where they
// can copy from each other). The output is written only once every count is known to fit.
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "loom/error.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/parted_buffer.hpp"
#include "runtime/parts/partition.hpp"
#include "runtime/parts/parts_device.hpp"
#include "runtime/parts/statements_across_parts.hpp"
#include "runtime/run_compact.hpp"

namespace loom::detail {
std::uint64_t compact_across_parts(context_impl& ctx, const compact_call& call, const fusion::bound_slot* slots,
                                   std::uint64_t n, const buffer_ptr& output) {
    const std::size_t parts = ctx.parts().size();
    const std::string what = std::string("a compaction (loom::") + call.what + ")";
    if (ctx.ranks()) throw error(needs_one_device((what + " over MPI ranks").c_str(), parts));
    if (servable_as_statement(*call.input)) { // a stencil (unique) or a sparse product: its values first
        const input_values values(ctx, call.input, call.input->root, slots, n);
        const input_values keep(ctx, call.input, call.input->more_roots[0], slots, n);
        statement_recorder r(ctx);
        r.vector_slot(values.values());
        r.vector_slot(keep.values());
        compact_call of_values = call;
        of_values.input = two_vectors_shape(values.values()->type, keep.values()->type);
        of_values.view_length = 0;
        const bound_input in = bind_input(ctx, *of_values.input, 0, call.what);
        return compact_across_parts(ctx, of_values, in.slots, n, output);
    }
    if (call.view_length != 0) throw error(needs_one_device((what + " of a view").c_str(), parts));
    if (const char* reason = partwise_refusal(*call.input)) throw error(needs_one_device(reason, parts));
    // What each part has pending runs first (it may write the values), as on one device.
    for (const context_ptr& part : ctx.parts()) {
        std::lock_guard<std::recursive_mutex> guard(part->mutex());
        run_pending(*part);
    }
    const std::vector<part_range> ranges = ctx.split(n);
    const shape* counted = counted_from_part(call.input);
    // Every part's kept values into a buffer of its own, enqueued on every part before any count
    // is read.
    std::vector<buffer_ptr> kept_values(parts);
    std::vector<enqueued_compaction> enqueued(parts);
    compact_call local = call;
    local.start = 0;
    for (std::size_t k = 0; k < parts; ++k) {
        if (ranges[k].count == 0) continue;
        context_impl& part = *ctx.parts()[k];
        kept_values[k] = new_buffer(ctx.parts()[k], ranges[k].count, output->type);
        statement_recorder r(part);
        record_part_slots(r, *call.input, slots, k, counted != call.input, ranges[k].first);
        local.input = part.statement_form(counted);
        const bound_input in = bind_input(part, *local.input, 0, call.what);
        enqueued[k] = enqueue_compaction(part, local, in, ranges[k].count, kept_values[k]);
    }
    std::vector<std::uint64_t> kept(parts, 0);
    std::uint64_t total = 0;
    for (std::size_t k = 0; k < parts; ++k) {
        if (ranges[k].count == 0) continue;
        kept[k] = kept_count(*ctx.parts()[k], enqueued[k], local, kept_values[k]);
        total += kept[k];
    }
    const std::uint64_t room = output->length > call.start ? output->length - call.start : 0;
    if (total > room)
        throw length_error(std::string("loom::") + call.what + ": " + std::to_string(call.start + total) +
                           " elements go to an output of " + std::to_string(output->length) +
                           "; make the output at least that long");
    // Then each part's kept values to output[start + the kept before it ..), in the output parts
    // they fall in.
    const std::vector<part_range> out = ctx.split(output->length);
    std::uint64_t at = call.start;
    for (std::size_t k = 0; k < parts; ++k) {
        for (std::size_t m = 0; m < out.size() && kept[k] > 0; ++m) {
            const std::uint64_t lo = std::max(at, out[m].first),
                                hi = std::min(at + kept[k], out[m].first + out[m].count);
            if (lo < hi)
                copy_between_parts(ctx, k, *kept_values[k], lo - at, m, *output->parts[m], lo - out[m].first, hi - lo);
        }
        at += kept[k];
    }
    return total;
}

} // namespace loom::detail
