// Source text of the two reduction passes. Pass 1: each work-group folds its slice of the
// input expression into one partial per accumulator (per work-item folds over a
// grid-stride slice or a contiguous chunk, see reduce_geometry, then a tree in work-group
// memory). Pass 2: one work-group folds the partials the same way.
#pragma once

#include <string>
#include <vector>

#include "skeleton/skeleton_kernel.hpp"

namespace loom::skeleton {

// One value a reduction computes: the input node it folds and the operation.
struct accumulator {
    std::uint32_t value; // body node of the input kernel
    const combine_op* op;
};

// Kernel parameters after the input's: per accumulator an output buffer (out<k>), then
// per accumulator its identity (id<k>), then per accumulator its captures (c<k>_<j>),
// then the element count n. Work-group size `group` is a power of two.
//
// `epilogue` (the last pass of a reduction inside loom::loop_while, launched as one group):
// a one-element kernel (the loop's bookkeeping statements) that work-item 0 runs after it
// has written the results, so it reads them; its parameters follow n, as e<k>.
//
// `rotation` (with an epilogue, one group): the looped variant for a batch of loop
// iterations (runtime/iteration_batch.hpp). One more parameter, the iteration count, comes
// last; the pass runs that many times while the guard holds, with a barrier over global
// memory between iterations, and after each, parameter j takes the buffer parameter
// rotation[j] had (rotation[j] == j: unchanged). Buffers are then neither const nor
// restrict. Throws loom::error when the rotation moves a buffer between parameters of
// different types.
std::string emit_reduce_pass(const input_kernel& in, const std::vector<accumulator>& acc, unsigned group,
                             bool chunked, const codegen::dialect& d, const ir::kernel* epilogue = nullptr,
                             const std::vector<std::uint32_t>* rotation = nullptr);

} // namespace loom::skeleton
