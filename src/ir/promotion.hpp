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

// Complex types (docs/complex.md). A real operand meeting a complex one is made complex, and
// the component type is the usual arithmetic conversion of the two component types: complex
// <float> with double gives complex<double>, with an integer or float complex<float>.
bool is_complex(dtype t);
bool is_double_precision(dtype t); // double or complex<double>: needs the device's fp64
dtype complex_of(dtype real);      // float -> complex<float>, double -> complex<double>
dtype component_of(dtype t);       // complex<float> -> float, complex<double> -> double; a real type itself

// Short vectors (docs/vector-types.md): the rules above apply component by component, and a
// scalar meeting a vector is broadcast to its width. usual_arithmetic, integer_promotion and
// math_result take vectors so (float4 with double gives double4; char4 is promoted to int4); two
// vectors of different widths, or a vector and a complex number, have no common type: the typing
// rules (shape_builder.cpp) reject them before asking. The loom::dtype helpers is_short_vector,
// width_of, component_dtype and vector_dtype say the rest.
bool is_float_vector(dtype t);   // float2 ... double4
bool is_integer_vector(dtype t); // char2 ... ulong4

} // namespace loom::ir
