// A radix sort on a context over several devices (docs/multi-device.md, "Sorting"): every part
// sorts its own elements at once, then sorted runs are merged pairwise, in rounds, until the
// vector is one run: neighbouring groups of parts (one part each in the first round, two in the
// next, ...) are merged by cutting each group's run where every output part's share of the merge
// begins (merge path: a binary search on the host, two element reads a step), copying each output
// part's pieces of the two runs into it (between the devices where they can), and sorting that
// part again. The sort is stable, so the first group's equal keys stay first. With k parts a
// vector is sorted ceil(log2 k) + 1 times over, each time by every part at once; two groups whose
// runs are already in order (the second's first key not before the first's last) are left as
// they are.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "ir/promotion.hpp"
#include "loom/error.hpp"
#include "loom/sort.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/parted_buffer.hpp"
#include "runtime/parts/partition.hpp"
#include "runtime/parts/parts_device.hpp"
#include "runtime/parts/statements_across_parts.hpp"

namespace loom::detail {
namespace {

// A key's place in the sort's ascending order as an unsigned number: an integer with its sign
// flipped, a float's bits in IEEE 754 totalOrder (docs/sorting.md).
std::uint64_t order_of(dtype t, const unsigned char* bytes) {
    // A radix key is at most 8 bytes (the bound also tells the compiler so).
    const std::size_t size = std::min<std::size_t>(size_of(t), sizeof(std::uint64_t));
    std::uint64_t bits = 0;
    std::memcpy(&bits, bytes, size); // little-endian: the low bytes
    const unsigned width = unsigned(size * 8);
    const std::uint64_t sign = std::uint64_t(1) << (width - 1);
    const std::uint64_t all = width == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << width) - 1;
    if (ir::is_signed_integer(t)) return bits ^ sign;
    if (ir::is_float(t)) return (bits & sign) ? (~bits & all) : (bits | sign);
    return bits;
}

// The merge of two sorted runs that lie one after the other in `keys` (a parted buffer): a from
// element a0, n1 long, then b from a0 + n1, n2 long.
class two_runs {
public:
    two_runs(buffer& keys, bool descending, std::uint64_t a0, std::uint64_t n1, std::uint64_t n2)
        : keys_(keys), descending_(descending), a0_(a0), n1_(n1), n2_(n2) {}

    // How many of the merge's first p elements come from the first run: the least i with
    // (j = p - i) j == 0, or i == n1, or b[j - 1] before a[i] (the first run's keys go first among
    // equals, so a[i] waits only for a b strictly before it).
    // Whether the runs are already one: the second's first key not before the first's last.
    bool in_order() { return !before(key(a0_ + n1_), key(a0_ + n1_ - 1)); }

    std::uint64_t first_run_share(std::uint64_t p) {
        std::uint64_t lo = p > n2_ ? p - n2_ : 0, hi = std::min(p, n1_);
        while (lo < hi) {
            const std::uint64_t i = lo + (hi - lo) / 2, j = p - i;
            if (j == 0 || i == n1_ || before(key(a0_ + n1_ + j - 1), key(a0_ + i)))
                hi = i;
            else
                lo = i + 1;
        }
        return lo;
    }

private:
    std::uint64_t key(std::uint64_t at) {
        unsigned char bytes[8] = {};
        download(keys_, at, 1, bytes);
        return order_of(keys_.type, bytes);
    }
    bool before(std::uint64_t x, std::uint64_t y) const { return descending_ ? x > y : x < y; }

    buffer& keys_;
    bool descending_;
    std::uint64_t a0_, n1_, n2_;
};

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
    const std::uint64_t n1 = b0 - a0, n2 = end - b0;
    if (n1 == 0 || n2 == 0) return;
    two_runs runs(*outputs[0], call.descending, a0, n1, n2);
    if (runs.in_order()) return;    // (already sorted input, or runs that do not overlap)
    std::vector<std::uint64_t> cut; // the first run's share of the merge before each part's start
    for (std::size_t m = a; m < c; ++m) cut.push_back(runs.first_run_share(ranges[m].first - a0));
    cut.push_back(n1); // the whole merge
    // Each part's pieces of both runs copied into buffers of its own (keys, then values) before
    // any part is written: a piece may lie in any part of the two groups.
    std::vector<std::vector<buffer_ptr>> pieces(c - a);
    for (std::size_t m = a; m < c; ++m) {
        const context_ptr part = ctx.parts()[m];
        const std::uint64_t p0 = ranges[m].first - a0, i0 = cut[m - a], i1 = cut[m - a + 1];
        const std::uint64_t j0 = p0 - i0, j1 = p0 + ranges[m].count - i1;
        for (std::size_t v = 0; v < count; ++v) {
            pieces[m - a].push_back(new_buffer(part, ranges[m].count, outputs[v]->type));
            buffer& into = *pieces[m - a].back();
            copy_from_parts(ctx, *outputs[v], ranges, a0 + i0, i1 - i0, m, into, 0);
            copy_from_parts(ctx, *outputs[v], ranges, b0 + j0, j1 - j0, m, into, i1 - i0);
        }
    }
    // Then each part sorts its pieces: the keys from their buffer, the values moved in place.
    for (std::size_t m = a; m < c; ++m) {
        if (ranges[m].count == 0) continue;
        for (std::size_t v = 1; v < count; ++v)
            copy_between_parts(ctx, m, *pieces[m - a][v], 0, m, *outputs[v]->parts[m], 0, ranges[m].count);
        context_impl& part = *ctx.parts()[m];
        statement_recorder r(part);
        r.vector_slot(pieces[m - a][0]);
        sort_part(part, call, whole_vector_shape(outputs[0]->type), outputs, count, m);
    }
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
