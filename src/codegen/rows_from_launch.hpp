// A grid kernel's row positions taken from its launch. ir::lower_positions writes a matrix
// statement's row as element / cols and its column as element - row * cols, which costs a
// 64-bit division per element; on a grid launch whose row width is cols (the launch makes sure
// of it, ir::grid_width_params) they are the launch's own row and column, and reads at
// row-based indices become contiguous along the row.
#pragma once

#include "ir/kernel.hpp"

namespace loom::codegen {

// k with every row position (ir::row_position_divisor) replaced by the launch's row, and every
// column written from such a row by the launch's column. k itself where k is no grid kernel.
ir::kernel rows_from_launch(const ir::kernel& k);

} // namespace loom::codegen
