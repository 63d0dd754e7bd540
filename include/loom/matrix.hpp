// Matrices: loom::matrix<T>, rows x cols elements in row-major order on a device, and 2-D
// expressions over them.
//
//   loom::matrix<float> A(ctx, rows, cols, host), C(ctx, rows, cols);
//   C = A * 2.0f + B;                                         // element-wise, fused like vectors
//   C = loom::cast<float>(loom::index<0>() * 10 + loom::index<1>());      // row and column
//   C = A * loom::as_row(x);                                  // (i, j) = A(i, j) * x[j]
//   loom::vector<float> y = loom::sum(A * loom::as_row(x), loom::axis<1>); // y = A x, one kernel
//   A.row(2) = x * 2.0f;                                      // row and column views, as slices
//
// A matrix statement is a vector statement of rows * cols elements: it fuses with the vector
// statements around it, and index<0>/index<1> cost a 64-bit division per element there. A
// reduction along an axis runs when called, as one kernel that computes its input per element
// and folds it at once (no N x N temporary), with the row and column as loop counters; it
// returns a 1-D expression over its result. docs/matrices.md.
//
// The parts, one header each; each depends only on those above it:
//   loom/expr/extent_check.hpp   the shape check of 2-D and 3-D statements (loom/array3.hpp's too)
//   loom/matrix/terminal.hpp     a matrix as an expression terminal; a matrix statement's shape
//   loom/matrix/positions.hpp    index<D>, as_row, as_column, along<D>; which expressions are 3-D
//   loom/matrix/matrix.hpp       loom::matrix<T>, its row and column views, blocks and transpose
//   loom/matrix/axis_reduce.hpp  loom::sum(e, loom::axis<1>) and the other reductions along an axis
#pragma once

#include "loom/expr/extent_check.hpp"
#include "loom/matrix/terminal.hpp"
#include "loom/matrix/positions.hpp"
#include "loom/matrix/matrix.hpp"
#include "loom/matrix/axis_reduce.hpp"
