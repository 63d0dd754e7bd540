// Source text of the sparse matrix-vector product's pass (loom::sparse_matrix, docs/sparse.md):
// y = A x for A in CSR form (row_ptr, col, val), in one of two forms:
// - scalar CSR (lanes 1): each work-item owns consecutive rows and sums each row's products in
//   order. Balanced (CPU devices): work-item g owns the rows that start in its `chunk` entries
//   [g chunk, (g + 1) chunk), found by a binary search of row_ptr, so runs hold about equal
//   numbers of entries however uneven the rows (a row longer than chunk is still one
//   work-item's); row_ptr and val stream through each run. Otherwise (GPUs, rows averaging under
//   two entries): `chunk` rows per work-item;
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
    bool balanced = false;    // scalar CSR: runs of about `chunk` entries (else `chunk` rows)
};

// Parameters: row_ptr, col, val, x (inputs 0 to 3), y (output 0), the guard where guarded,
// then n (the rows), chunk (entries or rows per work-item; vector CSR: 1) and entries (the stored
// entries) as pass extents.
kernel_source emit_spmv_pass(const spmv_kernel& k, const dialect& d);

} // namespace loom::codegen
