// The operations an expression can contain. Their properties (arity, spelling, typing
// rule) live in one table in src/ir/op_table.cpp; this header only names them.
#pragma once

#include <cstdint>

namespace loom {

enum class opcode : std::uint8_t {
    // leaves
    load,           // element i of a bound vector slot
    scalar,         // a bound host scalar slot
    index,          // the element index i
    load_neighbour, // element i + offset of a bound vector slot, with a boundary policy (stencils)
    load_first,     // element 0 of a bound slot: a loom::scalar on the device, the same for every i
    load_at,        // element arg[0] of a bound vector slot (a gather or a view); with arg[1] (its length), 0 outside
    cast,           // conversion to the node's type
    call, // a loom::function<R(A...)> from source text: slot is its id (ir/source_function.hpp), args its arguments
    // The sum of arg[3] over entries j = arg[0], arg[0] + 2^arg[2], ... below arg[1]: a loop whose
    // body (arg[3] and what it reads of the index `entry`) is evaluated once per entry. A sparse
    // matrix's row times a vector (loom/sparse.hpp).
    row_sum,
    // unary operators
    negate,
    unary_plus,
    logical_not,
    bit_not,
    // binary operators
    add,
    sub,
    mul,
    div,
    mod,
    shift_left,
    shift_right,
    less,
    greater,
    less_equal,
    greater_equal,
    equal,
    not_equal,
    logical_and,
    logical_or,
    bit_and,
    bit_or,
    bit_xor,
    // where(c, a, b)
    select,
    // math library
    sin,
    cos,
    tan,
    asin,
    acos,
    atan,
    sinh,
    cosh,
    tanh,
    exp,
    exp2,
    log,
    log2,
    log10,
    log1p,
    expm1,
    sqrt,
    rsqrt,
    cbrt,
    fabs,
    abs,
    floor,
    ceil,
    round,
    trunc,
    erf,
    erfc,
    tgamma,
    lgamma,
    atan2,
    pow,
    hypot,
    fmod,
    fmin,
    fmax,
    min,
    max,
    clamp,
    fma,
    // complex numbers (docs/complex.md)
    arg,   // std::arg: the phase angle
    conj,  // std::conj: the complex conjugate
    real,  // std::real: the real part
    imag,  // std::imag: the imaginary part
    polar, // std::polar(r, theta): a complex number from its magnitude and phase
    // floating-point classification (<cmath>): a bool
    isnan,
    isinf,
    isfinite,
    isnormal,
    signbit,
    // bit counts of an integer in its own width (C++20 <bit>): an int
    popcount,
    clz, // leading zero bits
    ctz, // trailing zero bits
    // the float built-ins both dialects have
    copysign,
    fdim,
    rint, // to the nearest integer, halves to even
    nextafter,
    ldexp, // ldexp(x, e): x * 2^e, e an integer
    as_bits, // the value's bits as the unsigned integer of its width (C++20 std::bit_cast)
    // ---- short vectors (docs/vector-types.md); kept together before count_ ----
    component,   // loom::get<I>(v): component I (the node's slot) of a short vector
    make_vector, // loom::make_vec<V>(a, b[, c, d]): a short vector from its components
    dot,         // loom::dot(a, b): the sum of the component products
    length,      // loom::length(a): sqrt(dot(a, a))
    count_       // number of opcodes; keep last
};

// What a neighbour read outside the vector gives.
enum class boundary_policy : std::uint8_t {
    clamp,    // the nearest element inside
    wrap,     // periodic: the index modulo the length
    constant, // a given value
};

} // namespace loom
