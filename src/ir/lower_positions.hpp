// A matrix statement's row and column positions (ir::index_value::row and ::column, from
// loom::index<0>(), index<1>() and broadcasts) as arithmetic on the element index, for kernels
// that walk a matrix's elements as a vector: row = i / cols, column = i - row * cols, with
// cols a scalar slot the lowering adds last (a 3-D array's likewise, from its last two extents). An axis reduction
// keeps its positions instead: its pass has the row and column as loop counters, with no division.
#pragma once

#include "ir/shape.hpp"

namespace loom::ir {

// Whether the nodes name a position along axis `from_axis` or a later one (0: any position).
bool uses_positions(const std::vector<node>& nodes, unsigned from_axis = 0);

// Rewrites s's positions as above for an array of `rank` axes (2: a matrix, 3: a 3-D array);
// the extents after the first (a matrix's column count; a 3-D array's second and third) are new
// last slots, u64 scalars kept apart from equal scalars (slot_info::neighbour_operand), so that
// new extents never change a plan. Returns false, changing nothing, when s has no positions.
bool lower_positions(detail::shape& s, unsigned rank = 2);

// The input of a reduction along an axis of a 3-D expression, run as a 2-D axis pass: axis 2
// folds the columns of a (d0 d1) x d2 matrix, axis 0 the rows of d0 x (d1 d2), axis 1 the rows
// of d1 x (d0 d2). Rewrites the 3-D positions as the pass's row and column counters, the counter
// that holds two axes split by an extent; along axis 1 the element reads also move to
// (i * d1 + j) * d2 + k, as reads at computed indices (a stencil read there is a loom::error).
// Adds the extents as last u64 slots and returns how many: 0 when nothing needs them, else d1
// (axis 2), d2 (axis 0), or d1 then d2 (axis 1).
unsigned lower_positions_for_axis(detail::shape& s, unsigned folded_axis);

} // namespace loom::ir
