// Running work on a context over several devices (docs/multi-device.md): each part runs its
// share of an element-wise statement or of a reduction's input, in its own queue, as a context
// of one device would; nothing waits between devices until a result is read.
#pragma once

#include <cstddef>
#include <vector>

#include "fusion/statement_queue.hpp"
#include "loom/detail/block_trace.hpp"
#include "ir/shape.hpp"
#include "loom/compaction.hpp"
#include "loom/keyed.hpp"
#include "loom/merge.hpp"
#include "loom/reduce.hpp"
#include "loom/scan.hpp"
#include "loom/sort.hpp"
#include "runtime/buffer.hpp"
#include "runtime/skeleton_input.hpp"

namespace loom::detail {

// Records slots[0 .. s.slots.size()) of work on a context of several devices into part k's
// recorder: each vector's part k, each scalar as it is, then, where `counted` (the shape is
// counted_from_part's), the part's first element.
void record_part_slots(statement_recorder& r, const shape& s, const fusion::bound_slot* slots, std::size_t k,
                       bool counted, std::uint64_t first);

// Over MPI ranks, every rank's `values` (one value of `bytes` bytes per part of the rank), in rank
// order: a value's place is then its part's among every rank's parts. `values` itself without
// ranks. Collective.
std::vector<unsigned char> all_ranks(const context_impl& ctx, const std::vector<unsigned char>& values,
                                     std::size_t bytes);

// The expression that is one whole vector of type t (a slot read at the element), made once.
const shape* whole_vector_shape(dtype t);
// The input of two whole vectors: `first` (slot 0, the root) and `second` (slot 1,
// more_roots[0]), as a compaction's values and flags or a keyed operation's keys and values.
const shape* two_vectors_shape(dtype first, dtype second);

// The inclusive folds of `values` (each of op's type) with `op`, left to right: values[0],
// op(values[0], values[1]), ...: one scan on the first part of ctx (several()), read back. The host
// cannot evaluate a traced operation; the parts' carries are folded so.
std::vector<scalar_bits> folds_on_first(context_impl& ctx, const skeleton_operation& op,
                                        const std::vector<scalar_bits>& values);

// `target = written(slots)` on ctx (several()), its operands checked: the same statement recorded
// in each part's queue, over the part's elements of every vector, its element index counted from
// the part's first element. A statement that reads neighbours goes to commit_with_halos, one with
// sparse products to commit_sparse_across_parts; any other that reads or writes at other indices
// throws loom::error, nothing recorded (partwise_refusal).
void commit_across_parts(context_impl& ctx, const shape* written, const fusion::bound_slot* slots,
                         const buffer_ptr& target);

// Whether s runs across parts only as a statement (it reads neighbours, or holds sparse
// products): a reduction, scan, sort or compaction of it computes it into a vector first
// (input_values). Its only views are sparse products' (their rows, statement_recorder::view_extent).
bool servable_as_statement(const shape& s);

// The value of node `root` of an input that is servable_as_statement, computed on ctx (several())
// into a new vector of `length` elements by commit_across_parts: the reduction, scan or compaction
// then reads that vector. One pass more than on one device, where the input fuses into the first.
// While it lives the vector is held as a loom::vector holds one (the fusion pass keeps its stores).
class input_values {
public:
    input_values(context_impl& ctx, const shape* input, std::uint32_t root, const fusion::bound_slot* slots,
                 std::uint64_t length);
    ~input_values();
    input_values(const input_values&) = delete;
    input_values& operator=(const input_values&) = delete;
    const buffer_ptr& values() const { return values_; }

private:
    buffer_ptr values_;
};

// A reduction's or a scan's `call` on ctx (several()) whose input is servable_as_statement, handed
// to `run` as the same call on the input's values: those computed across the parts first
// (input_values), then read at the element. `what` names the call in a length or context error.
template <class Call, class Run>
void run_on_input_values(context_impl& ctx, const Call& call, const char* what, Run run) {
    const bound_input in = bind_input(ctx, *call.input, call.view_length, what); // a sparse product's rows
    const input_values values(ctx, call.input, call.input->root, in.slots, in.length);
    statement_recorder r(ctx);
    r.vector_slot(values.values());
    Call of_values = call;
    of_values.input = whole_vector_shape(values.values()->type);
    of_values.view_length = 0;
    run(of_values);
}

// A radix sort on ctx (several()) of the input `slots` hold, `length` keys, into outputs[0] (the
// keys) and outputs[1 .. count) (values moved with them), every output checked: each part sorts its
// elements, then the parts' runs merge pairwise in rounds (sort_across_parts.cpp says how).
// A comparator's merge sort, a sort over MPI ranks and a sort of a view or a stencil are refused.
void sort_across_parts(context_impl& ctx, const sort_call& call, const fusion::bound_slot* slots, std::uint64_t length,
                       const buffer_ptr* outputs, std::size_t count);

// A merge (loom::merge, merge_by_key; run_merge.hpp's operands, checked) on ctx (several()): every
// output part takes its share of each input (merge_runs.hpp) and merges them, all parts at once.
// A comparator's merge and a merge over MPI ranks are refused.
struct merge_operands;
void merge_across_parts(context_impl& ctx, const merge_call& call, const merge_operands& m);

// A compaction (copy_if, remove_if, partition, unique) on ctx (several()) of the n values `slots`
// hold, into output[call.start ..), the output checked: every part keeps its own values into a
// buffer of its own, all parts at once, then each part's kept values are copied to their place
// (compact_across_parts.cpp). Returns how many were kept; a loom::length_error, the output
// unchanged, where they do not fit.
std::uint64_t compact_across_parts(context_impl& ctx, const compact_call& call, const fusion::bound_slot* slots,
                                   std::uint64_t n, const buffer_ptr& output);

// A keyed scan (loom::inclusive_scan_by_key, exclusive_scan_by_key) on ctx (several()) whose
// input's slots are the last recorded in ctx's queue, into `output`: every part scans its own
// segments at once; a segment that runs on from the part before then takes that part's carry
// (keyed_across_parts.cpp says how). Over MPI ranks, of a view, or with an operation that reads a
// device object, refused.
void keyed_scan_across_parts(context_impl& ctx, const keyed_scan_call& call, const buffer_ptr& output);

// A reduce_by_key on ctx (several()), the same input: every part reduces its own segments into
// buffers of its own, all at once; a segment split by the parts is folded into one; then each
// part's segments go to their places in the outputs. Returns the segments' count; a
// loom::length_error, both outputs unchanged, where they do not fit.
std::uint64_t reduce_by_key_across_parts(context_impl& ctx, const keyed_scan_call& call, const buffer_ptr& keys_out,
                                         const buffer_ptr& values_out);

// A block map (loom::map_blocks, its call checked) on ctx (several()): each part holding whole
// rows of blocks runs the one-device block map over them, all parts at once; a split that cuts a
// row of blocks, and MPI ranks, are refused (blocks_across_parts.cpp).
void block_map_across_parts(context_impl& ctx, const block_map_call& call);

// A reduction on ctx (several()) whose input's slots are the last recorded in ctx's queue: each
// part reduces its elements into partial results on its device (its pending statements fused into
// the first pass, as on one device), then part 0 folds the partials, in part order, with the same
// operations: on the host, or into loom::scalars (each part folding into its own copy).
void reduce_across_parts(context_impl& ctx, const reduce_call& call, const reduce_results& results);

// A scan on ctx (several()) whose input's slots are the last recorded in ctx's queue, into
// `output` (a vector of ctx): each part scans its elements, and takes the fold of the parts before
// it (scan_across_parts.cpp says how).
void scan_across_parts(context_impl& ctx, const scan_call& call, const buffer_ptr& output);

} // namespace loom::detail
