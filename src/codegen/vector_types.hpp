// Short vectors in kernel text (docs/vector-types.md). A loom::float4 is the dialect's float4;
// every operation on one is written component by component from the scalar operation's own text
// (emit_core.cpp), so both dialects compute the same thing: OpenCL C's vector operators and
// CUDA's missing ones play no part, and a component follows the scalar rules exactly (integer
// division by zero, min/max with NaN).
#pragma once

#include <string>
#include <vector>

#include "codegen/dialect.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

// "x", "y", "z", "w": component c's member.
const char* component_name(unsigned c);

// A value of short vector type t from one expression per component: "(float4)(a, b, c, d)" in
// OpenCL C, "make_float4(a, b, c, d)" in CUDA.
std::string vector_value(const dialect& d, dtype t, const std::vector<std::string>& components);

// Definitions of the vector types the kernel names that the dialect does not declare itself (in
// CUDA, the 32-byte loom_double4, loom_long4 and loom_ulong4, 16-byte aligned as CUDA's double4,
// which CUDA 13 deprecates), each once, guarded for kernels compiled together.
std::string vector_type_definitions(const ir::kernel& k, const dialect& d);

} // namespace loom::codegen
