// A matrix statement's row and column positions (ir::index_value::row and ::column, from
// loom::index<0>(), index<1>() and broadcasts) as arithmetic on the element index, for kernels
// that walk a matrix's elements as a vector: row = i / cols, column = i - row * cols, with
// cols a scalar slot the lowering adds last. An axis reduction keeps its positions instead:
// its pass has the row and column as loop counters, with no division.
#pragma once

#include "ir/shape.hpp"

namespace loom::ir {

// Whether the nodes name a row or column position.
bool uses_positions(const std::vector<node>& nodes);

// Rewrites s's positions as above; the column count is a new last slot, a u64 scalar kept
// apart from equal scalars (slot_info::neighbour_operand), so that a new matrix width never
// changes a plan. Returns false, changing nothing, when s has no positions.
bool lower_positions(detail::shape& s);

} // namespace loom::ir
