// Source text of an axis reduction: one value per row (axis 1, the fold over the columns) or
// per column (axis 0, the fold over the rows) of a 2-D expression, in one kernel. The kernel
// walks rows and columns in loops, so the element's row and column (ir::index_value::row and
// ::column, spelled loom_r and loom_c) are its loop counters and the element index i is
// loom_r * cols + loom_c: no division per element. The expression is computed per element in
// registers and folded at once; no matrix of its values is ever stored.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/combine_op.hpp"
#include "codegen/dialect.hpp"
#include "codegen/kernel_source.hpp"
#include "codegen/reduce_pass.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

// How work-items share the matrix.
enum class axis_form : std::uint8_t {
    // CPU devices. Axis 1: a work-item folds a band of whole rows, each `lanes` columns at a
    // time into as many accumulators (contiguous loads the device compiler vectorises), then the
    // lanes in order. Axis 0: a work-item folds blocks of `lanes` columns, each column over every
    // row in order, in one accumulator per column.
    lanes,
    // GPUs. Axis 1: a work-group per row, its work-items striding over the columns, then a tree
    // in work-group memory. Axis 0: a work-item per column (neighbours read neighbouring
    // columns: coalesced), folding every row in order.
    groups,
};

struct axis_pass_kernel {
    // Computed per element: the folded values. Its positions are the pass's loop counters; its
    // loads read element i = loom_r * cols + loom_c. No stores.
    const ir::kernel* input = nullptr;
    std::vector<accumulator> accumulators;
    unsigned axis = 1; // 1: a value per row; 0: a value per column
    axis_form form = axis_form::lanes;
    unsigned group = 1; // groups form, axis 1: work-items per group, a power of two
    unsigned lanes = 16;
    // Contraction on (context_options::fp_contract): a sum that folds a product, as
    // `loom::sum(w * dx, axis)` does, folds it with one fused multiply-add, `a = fma(w, dx, a)`,
    // as a C compiler contracts `s += w * dx`. One rounding fewer per element; the product and
    // the sum are one statement's, as contraction.hpp's rule asks.
    bool contract_folds = false;
};

// The source's layout (kernel_source::layout) lists the parameters for whoever binds them.
// Kernel parameters after the input's (and its loop guard): per accumulator an output buffer
// (out<k>, rows or cols elements), per accumulator its identity (id<k>), per accumulator its
// captures (c<k>_<j>), then `rows` and `cols` (the index type).
kernel_source emit_axis_pass(const axis_pass_kernel& pass, const dialect& d);

} // namespace loom::codegen
