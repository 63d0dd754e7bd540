// What the reduction skeleton asks codegen to write for its two passes. Pass 1: each
// work-group folds its slice of the input expression into one partial per accumulator
// (per work-item folds over a grid-stride slice or a contiguous chunk of chunk_lanes
// accumulators, see reduce_geometry, then a tree in work-group memory). Pass 2: one
// work-group folds the partials the same way. The text is codegen/reduce_pass.hpp's.
#pragma once

#include <string>
#include <vector>

#include "codegen/reduce_pass.hpp"
#include "skeleton/skeleton_kernel.hpp"

namespace loom::skeleton {

// One value a reduction computes: the input node it folds and the operation.
using codegen::accumulator;

// The pass over `in` (parameters as codegen::emit_reduce_pass declares them). Work-group
// size `group` is a power of two; `chunked` per reduce_geometry. `epilogue`: the loop's
// bookkeeping run by work-item 0 at the end (the last pass of a reduction inside
// loom::loop_while); `rotation`: the looped variant for a batch of loop iterations
// (runtime/iteration_batch.hpp). Throws loom::error when the rotation moves a buffer
// between parameters of different types.
codegen::kernel_source emit_reduce_pass(const input_kernel& in, const std::vector<accumulator>& acc, unsigned group,
                                        bool chunked, const codegen::dialect& d, const ir::kernel* epilogue = nullptr,
                                        const std::vector<std::uint32_t>* rotation = nullptr);

} // namespace loom::skeleton
