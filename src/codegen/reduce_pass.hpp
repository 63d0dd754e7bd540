// Source text of a reduction pass. Each work-group folds its slice of the input into one
// partial per accumulator: per work-item folds over a grid-stride slice or a contiguous
// chunk, then a tree in work-group memory. The reduction skeleton launches it twice: over
// the input expression, then one work-group over the partials.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/combine_op.hpp"
#include "codegen/dialect.hpp"
#include "codegen/kernel_source.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

// One value a reduction computes: the input node it folds and the operation.
struct accumulator {
    std::uint32_t value; // body node of the input kernel
    const combine_op* op;
};

struct reduce_pass_kernel {
    // Computed per element: the accumulated values, and what the statements fused into the
    // pass store (map-reduce fusion; each element is visited exactly once).
    const ir::kernel* input = nullptr;
    std::vector<accumulator> accumulators;
    unsigned group = 1; // work-items per group, a power of two
    // How a work-item walks the input: a contiguous chunk, `lanes` elements a step into as
    // many accumulators (a multiple of 8), or a grid-stride loop.
    bool chunked = false;
    unsigned lanes = 8;
    // The last pass of a reduction inside loom::loop_while, launched as one group: a
    // one-element kernel (the loop's bookkeeping statements) that work-item 0 runs after it
    // has written the results, so it reads them.
    const ir::kernel* epilogue = nullptr;
    // With an epilogue, one group: the looped variant for a batch of loop iterations. The
    // pass runs up to an iteration count while the guard holds, with a barrier over global
    // memory between iterations, and after each, parameter j takes the buffer parameter
    // rotation[j] had (rotation[j] == j: unchanged).
    const std::vector<std::uint32_t>* rotation = nullptr;
};

// The source's layout (kernel_source::layout) lists the parameters for whoever binds them.
// Kernel parameters after the input's: per accumulator an output buffer (out<k>), then per
// accumulator its identity (id<k>), then per accumulator its captures (c<k>_<j>), then the
// element count n; then the epilogue's parameters (e<k>), and for the looped variant the
// iteration count. Buffers of the looped variant are neither const nor restrict. Throws
// loom::error when the rotation moves a buffer between parameters of different types.
kernel_source emit_reduce_pass(const reduce_pass_kernel& pass, const dialect& d);

} // namespace loom::codegen
