// The keyed scan planner: loom::inclusive_scan_by_key / exclusive_scan_by_key as a plan of three
// passes (codegen/segmented_scan_pass.hpp): each chunk's total and whether it holds a segment's
// head, one group's scan of the totals, and the chunks scanned again from their running values
// into the output. loom::reduce_by_key is the same three passes, the last writing each segment's
// key and value (plan_reduce_by_key). Pure: no device, no context.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/shape.hpp"
#include "launch/skeleton_geometry.hpp"
#include "plan/plan.hpp"
#include "skeleton/skeleton_kernel.hpp"

namespace loom::skeleton {

struct keyed_scan_request {
    // The keys (root) and the values (more_roots[0]), in the form the context runs.
    const detail::shape* input = nullptr;
    const std::vector<std::uint32_t>* slot_class = nullptr;
    dtype key = dtype::i32;
    const detail::skeleton_operation* op = nullptr; // over the values, in the output's type
    bool exclusive = false;
    bool guarded = false;
    dtype key_out = dtype::i32; // reduce_by_key's keys output
    launch::keyed_scan_geometry geometry;
};

// Scratch 0 holds the chunks' totals, 1 their flags, 2 the running values before them; result 0
// is the output. In the single pass (geometry.single_pass): 0 the tiles' totals, 1 their running
// values at their ends, 2 their status.
plan::plan plan_keyed_scan(const keyed_scan_request& r, const codegen::dialect& d);

// reduce_by_key, four passes: heads, head_offsets, reduce, fixup (codegen/segmented_scan_pass.hpp).
// Scratch 0 holds the chunks' heads, 1 the heads before them, 2 their fragments, 3 whether each
// has one, 4 the segments' count (one u64, kept with the plan, so a call allocates nothing);
// results 0 and 1 are the keys and values outputs.
plan::plan plan_reduce_by_key(const keyed_scan_request& r, const codegen::dialect& d);

// The sizes of a keyed scan over n elements.
plan::launch_sizes keyed_scan_launch(const launch::keyed_scan_geometry& g, std::uint64_t n);
// The sizes of a reduce_by_key over n elements into outputs of `room` segments.
plan::launch_sizes reduce_by_key_launch(const launch::keyed_scan_geometry& g, std::uint64_t n, std::uint64_t room);

} // namespace loom::skeleton
