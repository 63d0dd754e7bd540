// C++'s arithmetic conversions over Loom's dtypes ([conv.prom], [expr.arith.conv]) and
// the <cmath> rule for math functions. docs/type-promotion.md is the table in prose.
#pragma once

#include "loom/dtype.hpp"

namespace loom::ir {

bool is_float(dtype t);
bool is_signed_integer(dtype t);
bool is_unsigned_integer(dtype t); // bool is not counted as an integer here

dtype integer_promotion(dtype t);         // bool, 8- and 16-bit types become int32
dtype usual_arithmetic(dtype a, dtype b); // the common type of a binary operator
dtype math_result(dtype a);               // float stays float, otherwise double
dtype math_result(dtype a, dtype b);      // float only if both are float

} // namespace loom::ir
