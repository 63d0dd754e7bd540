// Source text of the merge sort's passes, the sort for a comparator given as a traced lambda
// (docs/sorting.md). A comparator is any function of two keys (true: the first goes before the
// second); no bits to take digits of, so the keys are merged:
// - run sort: each work-item copies its part of the input (the keys' expression, and the value
//   vectors moved with them) into scratch run A and sorts it there by a serial bottom-up merge
//   sort, ping-ponging with scratch run B, so that its part ends sorted in A;
// - merge: pairs of sorted runs of `width` keys merged into runs of twice that, each work-item
//   writing `items` consecutive outputs: it finds where its outputs start in the two runs by a
//   binary search along the merge path's diagonal, then merges serially. A key of the first run
//   goes before an equal one of the second, so the sort is stable.
// - merge two (loom::merge, and a sort's merge across several devices' parts): two sorted
//   vectors A and B into one, each work-item writing `items` consecutive outputs as above; A's
//   key goes before an equal one of B's.
// Every loop is bounded by the runs' ends, and every read is inside them, whatever the comparator
// answers: a comparator that is not a strict weak order gives an unspecified arrangement, never
// a hang or a read out of bounds.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/combine_op.hpp"
#include "codegen/dialect.hpp"
#include "codegen/kernel_source.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

enum class merge_pass { run_sort, merge, merge_two };

struct merge_pass_kernel {
    // run_sort: per element, the key is node `root` of `input`. merge: input's parameter 0 is the
    // keys' runs (the source's key buffer).
    // merge_two: parameter 0 is A's keys, parameter 1 B's.
    const ir::kernel* input = nullptr;
    std::uint32_t root = ir::no_node;
    merge_pass pass = merge_pass::run_sort;
    // The comparator, its result converted to the key's type; or null (merge_two): the radix
    // sort's order (codegen/radix_pass.hpp), ascending or descending by an argument.
    const combine_op* less = nullptr;
    dtype key = dtype::f32;
    std::vector<dtype> carried; // the value vectors moved with the keys
};

// Parameters after the input's. run_sort: keys_a, keys_b, then each carried vector's input,
// run A and run B. merge: keys_out, then each carried vector's source runs and output. merge_two:
// keys_out, then each carried vector's A (carried 2k), B (carried 2k + 1) and output. Then the
// comparator's captures (c0, c1, ...), then (merge) `doubling`, the width's doublings of the run
// sort's `chunk`, or (no comparator) `descending`; then n, chunk, items (merge: outputs per
// work-item, a divisor of chunk; merge_two: n the outputs, chunk A's length).
kernel_source emit_merge_pass(const merge_pass_kernel& m, const dialect& d);

} // namespace loom::codegen
