// One row per opcode: how many operands it takes, how it is typed, and how it is
// spelled. Both emitter dialects and the typing rules read this table.
#pragma once

#include "loom/expr/opcode.hpp"

namespace loom::ir {

enum class op_class : unsigned char {
    leaf,
    arithmetic,     // + - * /: usual arithmetic conversions
    integral,       // % & | ^: usual arithmetic conversions, integers only
    shift,          // << >>: result is the promoted left operand
    unary_arith,    // - +: integer promotion
    unary_integral, // ~: integer promotion, integers only
    comparison,     // < > <= >= == !=: common type, result bool
    logical,        // && || !: operands to bool, result bool
    select,         // where(c, a, b): like ?:
    float_math,     // <cmath> functions: float stays float, integers and double give double
    abs,            // std::abs: integer promotion or the float type
    min_max,        // loom::min/max/clamp: common type by the usual arithmetic conversions
    complex_part,   // real, imag, arg: the component type of the operand made complex
    complex_map,    // conj: the operand made complex
    complex_build,  // polar(r, theta): the complex type of the math_result of the operands
    classify,       // isnan isinf isfinite isnormal signbit: bool, of a real operand kept as it is
    bit_count,      // popcount clz ctz: int32, of an integer operand kept in its own width (8..64 bits)
    scale,          // ldexp(x, e): the math_result of x; e converted to int32, integers only
    bit_pattern,    // as_bits: the unsigned integer of the operand's width, of a real non-bool operand
    // short vectors (docs/vector-types.md)
    vector_component, // get<I>(v): the component type
    vector_build,     // make_vec<V>(...): V, from 2 or 4 operands converted to its component type
    vector_dot,       // dot(a, b): the component of math_result of the two vectors
    vector_length,    // length(a): the component of math_result of the vector
};

struct op_info {
    const char* name; // for logs and messages, and the math function's C name
    unsigned arity;
    op_class cls;
    const char* infix; // operator spelling in C, or nullptr for functions
};

const op_info& info(opcode op);

} // namespace loom::ir
