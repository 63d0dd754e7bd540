// Sparse matrix products (loom/sparse.hpp) on a context over several devices
// (docs/multi-device.md, "Sparse matrices"), as VexCL's distributed matrices do them: each part
// computes the rows of y = A * x it holds, from a copy of those rows of A whose columns are
// renumbered into its own elements of x followed by a halo, the elements of x of other parts that
// its rows reach. Before every product, each other part gathers the elements a part's halo takes
// from it into a buffer, and that buffer is copied after the part's own elements (between the
// devices where they can, through the host otherwise).
//
// A's arrays on the context (split like any vector, by element count) are read back once, when a
// product first runs on a split, and each part's rows are laid out from them on the host (the
// same layout, CSR or sliced ELL, its slices aligned on the whole matrix's); a product on another
// split (after set_split or balance::dynamic) lays them out again. The part's copy of its rows is
// memory beside the matrix's own arrays.
//
// The part's statement reads x from a buffer of the part's own elements of x followed by its halo
// (the own elements copied in on the part's device: a pass over x, beside the product's pass over
// A, which reads several times as many bytes), so its reads of x are the one device's; a row's
// slice and length are read at the row's number in the vector (loom::index() counts from the
// vector's start on every part) less the part's first slice and row.
#pragma once

#include "fusion/statement_queue.hpp"
#include "ir/shape.hpp"
#include "runtime/buffer.hpp"

namespace loom::detail {

// Whether every read of `s` at other elements belongs to a sparse product (s holds one at least),
// and nothing else keeps it from running across parts.
bool sparse_servable(const shape& s);

// `target = written(slots)` on ctx (several(), no MPI ranks), its sparse products computed as
// above on every part.
void commit_sparse_across_parts(context_impl& ctx, const shape* written, const fusion::bound_slot* slots,
                                const buffer_ptr& target);

} // namespace loom::detail
