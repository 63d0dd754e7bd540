// The scan planner: loom::inclusive_scan / exclusive_scan as a plan (docs/skeleton-scan.md).
// Chunked (CPU devices), three passes: each chunk's total, one work-item's exclusive scan of
// the totals, and the chunks scanned again from their offsets into the output. Otherwise
// (GPUs) two: the tiles' status cleared, then one pass that reads every element once, each
// group finding its tile's carry by decoupled look-back. Pure: no device, no context.
#pragma once

#include <cstdint>
#include <vector>

#include "launch/skeleton_geometry.hpp"
#include "loom/scan.hpp"
#include "plan/plan.hpp"
#include "skeleton/skeleton_kernel.hpp"

namespace loom::skeleton {

struct scan_request {
    const detail::shape* input = nullptr; // in the form the context runs
    const std::vector<std::uint32_t>* slot_class = nullptr;
    const detail::skeleton_operation* op = nullptr;
    bool exclusive = false;
    bool guarded = false;
    // The output's class among the input's buffers (an in-place scan writes through its input
    // parameter), or no_class.
    std::uint32_t output_class = no_class;
    launch::scan_geometry geometry;
};

// Scratch 0 holds the chunks' (tiles') totals, scratch 1 their exclusive scan (the tiles'
// inclusive folds), scratch 2 the tiles' status; result 0 is the output.
plan::plan plan_scan(const scan_request& r, const codegen::dialect& d);

// The sizes of a call over n elements.
plan::launch_sizes scan_launch(const launch::scan_geometry& g, std::uint64_t n);

} // namespace loom::skeleton
