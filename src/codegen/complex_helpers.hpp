// Complex arithmetic in kernel text. Neither OpenCL C nor CUDA C++ without its headers has a
// complex type, so a complex<float> is a float2 (x the real part, y the imaginary part), a
// complex<double> a double2, and each operation on them is a call to a small device function
// (loom_cmulf, loom_cexp, ...) that a kernel's prologue defines only when the kernel calls it.
#pragma once

#include <string>
#include <vector>

#include "codegen/dialect.hpp"
#include "ir/node.hpp"

namespace loom::codegen {

// The helper that computes node n (children are indices into `nodes`): its opcode and the
// complex type whose precision it works in; op is opcode::count_ where n needs none.
struct complex_call {
    opcode op = opcode::count_;
    dtype type = dtype::c64;
};
complex_call complex_call_of(const std::vector<ir::node>& nodes, const ir::node& n);

// "loom_c" + the op's name, with an f for complex<float> (C99's cmulf, cexpf): "loom_cmulf".
std::string complex_helper_name(const complex_call& call);

// A complex value of type t (c64 or c128) from two component expressions.
std::string complex_value(const dialect& d, dtype t, const std::string& re, const std::string& im);

// The definitions of the helpers the nodes call, each once, every helper after those it calls.
std::string complex_helpers(const std::vector<ir::node>& nodes, const dialect& d);

} // namespace loom::codegen
