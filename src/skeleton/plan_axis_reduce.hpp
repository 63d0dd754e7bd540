// The planner of reductions along an axis (loom::sum(e, loom::axis<1>) and the others of
// loom/matrix.hpp and loom/array3.hpp): one pass that folds each row (axis 1) or column
// (axis 0) of a rows x cols input expression into an output vector, computing the input per
// element in registers. Pure: no device, no context.
#pragma once

#include <cstdint>
#include <vector>

#include "launch/skeleton_geometry.hpp"
#include "loom/matrix.hpp"
#include "plan/plan.hpp"

namespace loom::skeleton {

struct axis_request {
    const detail::shape* input = nullptr; // in the form the context runs
    const std::vector<std::uint32_t>* slot_class = nullptr;
    unsigned axis = 1;
    // Per value of the input (one, or each of a tuple's): its operation; result k is its output.
    const detail::skeleton_operation* ops = nullptr;
    std::size_t values = 1;
    bool guarded = false;
    bool contract_folds = false; // context_options::fp_contract (codegen::axis_pass_kernel)
    launch::axis_geometry geometry;
};

plan::plan plan_axis_reduce(const axis_request& r, const codegen::dialect& d);

// The sizes of a call over a rows x cols input.
plan::launch_sizes axis_launch(const launch::axis_geometry& g, std::uint64_t rows, std::uint64_t cols);

} // namespace loom::skeleton
