// A radix sort on a context over several devices (docs/multi-device.md, "Sorting"): every part
// sorts its own elements at once, then sorted runs are merged pairwise, in rounds, until the
// vector is one run: neighbouring groups of parts (one part each in the first round, two in the
// next, ...) are merged by cutting each group's run where every output part's share of the merge
// begins (merge path: a binary search on the host, two element reads a step), copying each output
// part's shares of the two runs into it (between the devices where they can), and merging them
// there (merge_runs.hpp). The first group's equal keys stay first, so the sort is stable. With k
// parts a vector is sorted once and merged ceil(log2 k) times, each time by every part at once;
// two groups whose runs are already in order (the second's first key not before the first's
// last) are left as they are.
#include <algorithm>
#include <string>
#include <vector>

#include "loom/error.hpp"
#include "loom/sort.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/merge_runs.hpp"
#include "runtime/parts/partition.hpp"
#include "runtime/parts/parts_device.hpp"
#include "runtime/parts/statements_across_parts.hpp"

namespace loom::detail {
namespace {

// Part k's sort of `input` (recorded last in its queue) into its parts of the outputs.
void sort_part(context_impl& part, const sort_call& call, const shape* input, const buffer_ptr* outputs,
               std::size_t count, std::size_t k) {
    sort_call local = call;
    local.input = input;
    local.view_length = 0;
    std::vector<buffer_ptr> into;
    for (std::size_t v = 0; v < count; ++v) into.push_back(outputs[v]->parts[k]);
    run_sort(part, local, into.data(), count);
}

// Merges the sorted run of parts a .. b - 1 with that of parts b .. c - 1 into parts a .. c - 1.
void merge_groups(context_impl& ctx, const sort_call& call, const buffer_ptr* outputs, std::size_t count,
                  const std::vector<part_range>& ranges, std::size_t a, std::size_t b, std::size_t c) {
    const std::uint64_t a0 = ranges[a].first, b0 = ranges[b].first;
    const std::uint64_t end = ranges[c - 1].first + ranges[c - 1].count;
    const parted_run first{outputs, &ranges, a0, b0 - a0}, second{outputs, &ranges, b0, end - b0};
    // (Already sorted input, or runs that do not overlap: nothing moves.)
    if (!runs_overlap(first, second, call.descending)) return;
    merge_call merge;
    merge.descending = call.descending;
    merge_runs_into_parts(ctx, merge, first, second, outputs, count - 1, ranges, a, c);
}

} // namespace

void sort_across_parts(context_impl& ctx, const sort_call& call, const fusion::bound_slot* slots, std::uint64_t length,
                       const buffer_ptr* outputs, std::size_t count) {
    const std::size_t parts = ctx.parts().size();
    if (call.less) throw error(needs_one_device("a sort with a comparator (a merge sort)", parts));
    if (ctx.ranks()) throw error(needs_one_device("a sort over MPI ranks", parts));
    if (servable_as_statement(*call.input)) { // a stencil or a sparse product: the keys' values first
        const input_values keys(ctx, call.input, call.input->root, slots, length);
        statement_recorder r(ctx);
        r.vector_slot(keys.values());
        sort_call of_values = call;
        of_values.input = whole_vector_shape(keys.values()->type);
        of_values.view_length = 0;
        const bound_input in = bind_input(ctx, *of_values.input, 0, "sort");
        return sort_across_parts(ctx, of_values, in.slots, length, outputs, count);
    }
    if (call.view_length != 0) throw error(needs_one_device("a sort of a view", parts));
    if (const char* reason = partwise_refusal(*call.input)) throw error(needs_one_device(reason, parts));
    if (length == 0) return;
    // What each part has pending runs first (it may write the outputs or the input), as on one
    // device (loom/sort.hpp runs the pending statements before it records the input).
    for (const context_ptr& part : ctx.parts()) {
        std::lock_guard<std::recursive_mutex> guard(part->mutex());
        run_pending(*part);
    }
    // Every part's own elements sorted, at once.
    const std::vector<part_range> ranges = ctx.split(length);
    const shape* input = counted_from_part(call.input);
    for (std::size_t k = 0; k < parts; ++k) {
        if (ranges[k].count == 0) continue;
        context_impl& part = *ctx.parts()[k];
        statement_recorder r(part);
        record_part_slots(r, *call.input, slots, k, input != call.input, ranges[k].first);
        sort_part(part, call, input, outputs, count, k);
    }
    // Then the runs merged in rounds: groups of 1, 2, 4, ... parts, each with its neighbour.
    for (std::size_t width = 1; width < parts; width *= 2)
        for (std::size_t a = 0; a + width < parts; a += 2 * width)
            merge_groups(ctx, call, outputs, count, ranges, a, a + width, std::min(a + 2 * width, parts));
}

} // namespace loom::detail
