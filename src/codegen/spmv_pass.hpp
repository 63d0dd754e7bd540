// Source text of the sparse matrix-vector product's pass (loom::sparse_matrix, docs/sparse.md):
// y = A x for A in CSR form (row_ptr, col, val), in one of two forms:
// - scalar CSR (lanes 1): each work-item owns `chunk` consecutive rows (CPU devices: a
//   contiguous run of rows per work-item, whose row_ptr and val reads stream; GPUs: one row
//   each) and sums each row's products in order;
// - vector CSR (lanes > 1, GPUs): `lanes` consecutive work-items of a group share a row, each
//   summing every lanes-th entry (neighbouring lanes read neighbouring entries: coalesced), and
//   the lanes' sums are added in work-group memory, a tree of halvings.
// Sums are in the value type.
#pragma once

#include "codegen/dialect.hpp"
#include "codegen/kernel_source.hpp"
#include "loom/dtype.hpp"

namespace loom::codegen {

struct spmv_kernel {
    dtype value = dtype::f32; // A's, x's and y's element type (real or integer)
    dtype index = dtype::u32; // row_ptr's and col's element type (u32 or u64)
    bool guarded = false;     // inside loom::loop_while: returns at once when the guard is 0
    unsigned lanes = 1;       // work-items per row: 1 (scalar CSR) or a power of two up to group
    unsigned group = 1;       // vector CSR: the work-group's size (a power of two)
};

// Parameters: row_ptr, col, val, x (inputs 0 to 3), y (output 0), the guard where guarded,
// then n (the rows) and chunk (rows per work-item; vector CSR: 1) as pass extents.
kernel_source emit_spmv_pass(const spmv_kernel& k, const dialect& d);

} // namespace loom::codegen
