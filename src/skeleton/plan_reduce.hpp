// The reduction planner: a call of loom::reduce (sum, max, count, minmax, ...) as a plan of one
// or two passes (docs/skeleton-reduce.md). Pass 1 folds the input expression, or runs the last
// group of the statements pending before it with the input as its value (map-reduce fusion),
// into one partial per work-group; pass 2, when pass 1 has more than one group, folds the
// partials in one group. Pure: no device, no context.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fusion/plan.hpp"
#include "launch/skeleton_geometry.hpp"
#include "loom/reduce.hpp"
#include "plan/plan.hpp"
#include "skeleton/skeleton_kernel.hpp"

namespace loom::skeleton {

struct reduce_request {
    const detail::shape* input = nullptr; // in the form the context runs (contracted or not)
    // The classes of the input's slots (runtime/skeleton_input.hpp); unused when fused.
    const std::vector<std::uint32_t>* slot_class = nullptr;
    // The flush group pass 1 runs (map-reduce fusion), or null: pass 1 reads the input alone.
    const fusion::kernel_group* fused = nullptr;
    const detail::skeleton_operation* ops = nullptr;
    std::size_t op_count = 0; // one, or two (minmax)
    bool truth = false;       // folds (value != 0): count, any, all
    bool guarded = false;     // inside a loom::loop_while body
    bool into_device = false; // the results go to device scalars; else the host reads them
    launch::reduce_geometry geometry;
};

// What a reduction's passes are made of, kept beside its plan: a loop that holds the last pass
// asks for variants of it with its bookkeeping at the end (reduce_pass_with_epilogue).
struct reduce_recipe {
    input_kernel input;
    std::vector<combine_op> ops;
    unsigned group = 1;
    bool chunked = false;
};

struct reduce_plan {
    plan::plan plan;
    reduce_recipe recipe;
};

// At most this many operations a pass folds (minmax).
constexpr std::size_t max_reduce_ops = 2;

// The plan: pass 1, and pass 2 when the geometry has more than one group. Scratch 2k holds
// operation k's partials, 2k + 1 its result where the host reads it (plan::read_back).
// Throws loom::error for more than max_reduce_ops operations.
reduce_plan plan_reduce(const reduce_request& r, const codegen::dialect& d);

// The sizes of a call over n elements (the geometry the plan was made for).
plan::launch_sizes reduce_launch(const launch::reduce_geometry& g, std::uint64_t n, std::size_t op_count);

// Pass `pass` of a reduction with a loop's `bookkeeping` run by its work-item 0 at the end, and
// with a `rotation` the looped variant for a batch of loop iterations (codegen/reduce_pass.hpp).
codegen::kernel_source reduce_pass_with_epilogue(const reduce_recipe& r, std::uint32_t pass,
                                                 const ir::kernel& bookkeeping,
                                                 const std::vector<std::uint32_t>* rotation,
                                                 const codegen::dialect& d);

} // namespace loom::skeleton
