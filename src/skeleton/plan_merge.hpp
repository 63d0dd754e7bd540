// The merge planner: loom::merge and loom::merge_by_key, two sorted vectors into one
// (codegen/merge_pass.hpp's merge_two), in the radix sort's order (ascending or descending) or a
// comparator's. One pass; the sort across several devices' parts merges its runs with it too.
// Pure: no device, no context.
#pragma once

#include <cstdint>
#include <vector>

#include "launch/skeleton_geometry.hpp"
#include "plan/plan.hpp"
#include "skeleton/skeleton_kernel.hpp"

namespace loom::skeleton {

struct merge_request {
    const detail::skeleton_operation* less = nullptr; // the comparator, or null: the sort's order
    dtype key = dtype::u32;
    std::vector<dtype> carried; // the value vectors merged with the keys
    bool descending = false;    // (no comparator)
    bool guarded = false;
};

// The call's results: 0 the merged keys, 1 + k value vector k's output; then the inputs: A's
// keys (merge_input(0)), B's keys, and per value vector k A's and B's.
plan::plan plan_merge(const merge_request& r, const codegen::dialect& d);

// Result index of input i (0: A's keys, 1: B's, 2 + 2k: A's value vector k, 3 + 2k: B's).
constexpr std::uint32_t merge_input(std::size_t carried, std::uint32_t i) { return std::uint32_t(1 + carried) + i; }

// The sizes of a merge of a_length keys with b_length: g.items outputs a work-item.
plan::launch_sizes merge_launch(const launch::merge_geometry& g, std::uint64_t a_length, std::uint64_t b_length);

} // namespace loom::skeleton
