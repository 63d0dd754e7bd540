// The stream compaction planner: loom::copy_if, remove_if, partition and unique as a plan of
// three passes (codegen/compact_pass.hpp): each chunk's count of kept elements, one group's scan
// of the counts, and each chunk's kept values written in order from its place; or, on GPUs when
// the output has room for every element, of two: the tiles' status cleared, then one pass that
// reads every element once. Pure: no device, no context.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/shape.hpp"
#include "launch/skeleton_geometry.hpp"
#include "plan/plan.hpp"
#include "skeleton/skeleton_kernel.hpp"

namespace loom::skeleton {

struct compact_request {
    // The values (root) and the predicate (more_roots[0]), in the form the context runs.
    const detail::shape* input = nullptr;
    const std::vector<std::uint32_t>* slot_class = nullptr;
    dtype value = dtype::f32; // the output's type
    bool guarded = false;
    launch::compact_geometry geometry;
};

// Scratch 0 holds the chunks' counts (the tiles' totals), 1 the kept elements before each chunk
// (up to each tile's end), 2 their total (one u64, kept with the plan), 3 the tiles' status;
// result 0 is the output.
plan::plan plan_compact(const compact_request& r, const codegen::dialect& d);

// The sizes of a compaction of n elements into an output of `room` places from `start`.
plan::launch_sizes compact_launch(const launch::compact_geometry& g, std::uint64_t n, std::uint64_t room,
                                  std::uint64_t start);

} // namespace loom::skeleton
