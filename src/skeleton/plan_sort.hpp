// The sort planners: loom::sort and loom::sort_by_key as a least-significant-digit radix sort
// (codegen/radix_pass.hpp, docs/sorting.md), three passes per digit: count, offsets, scatter.
// The digits alternate between the output and one scratch copy of the keys (and of each value
// vector), the first reading the input expression, the last writing the output. With a
// comparator, a merge sort (codegen/merge_pass.hpp). Pure: no device, no context.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/shape.hpp"
#include "launch/skeleton_geometry.hpp"
#include "plan/plan.hpp"
#include "skeleton/skeleton_kernel.hpp"

namespace loom::skeleton {

struct sort_request {
    // The comparator of a merge sort (plan_merge_sort), or null for a radix sort.
    const detail::skeleton_operation* less = nullptr;
    const detail::shape* input = nullptr; // the keys, in the form the context runs
    const std::vector<std::uint32_t>* slot_class = nullptr;
    dtype key = dtype::u32;     // the output's type: the input is converted to it
    std::vector<dtype> carried; // the value vectors moved with the keys
    bool descending = false;
    bool guarded = false;
    launch::sort_geometry geometry;
    launch::merge_geometry merge; // a merge sort's
};

// Scratch 0 holds the counts, scratch 1 the keys between digits, scratch 2 + k value vector k's.
// Result 0 is the keys' output, result 1 + k value vector k (read by the first digit, written by
// the last).
plan::plan plan_sort(const sort_request& r, const codegen::dialect& d);

// With geometry.whole, one pass (radix_pass::whole) sorts every digit in one work-item.

// The sizes of a call over n keys: columns 0, 1, 2 for the count, offsets and scatter passes
// (column 0 alone for a whole sort).
// carried: the value vectors moved with the keys.
plan::launch_sizes sort_launch(const launch::sort_geometry& g, std::uint64_t n, std::size_t carried);

// A sort by the request's comparator (codegen/merge_pass.hpp): the run sort, then merge.merges
// merges, alternating between two scratch copies and ending in the outputs. Scratch 0 and 1 hold
// the keys' runs A and B, scratch 2 + 2k and 3 + 2k value vector k's; results as plan_sort's.
plan::plan plan_merge_sort(const sort_request& r, const codegen::dialect& d);

// The sizes of a merge sort over n keys: column 0 the run sort's, column 1 every merge's.
plan::launch_sizes merge_sort_launch(const launch::merge_geometry& g, std::uint64_t n, std::size_t carried);

} // namespace loom::skeleton
