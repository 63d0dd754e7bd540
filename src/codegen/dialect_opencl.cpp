// The OpenCL C dialect table. OpenCL C overloads every math built-in on float and
// double, so a function has one name whatever its type.
#include "codegen/dialect.hpp"
#include "ir/op_table.hpp"
#include "ir/promotion.hpp"

namespace loom::codegen {
namespace {

const char* opencl_math_name(opcode op, dtype) {
    if (op == opcode::abs) return "fabs"; // float abs; integer abs is written by the core
    return ir::info(op).name;
}

std::string opencl_bit_builtin(opcode op, dtype t, const std::string& a);

const dialect opencl = {
    "opencl",
    ".cl",
    // Contraction off: a fused kernel must round exactly like the unfused statements.
    "#pragma OPENCL FP_CONTRACT OFF\n",
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n",
    "__kernel void",
    "__global ",
    "restrict ",
    "get_global_id(0)",
    "get_global_size(0)",
    // PoCL vectorises along dimension 0, where the row is the same for every work-item.
    "const long loom_col = get_global_id(0), loom_row = get_global_id(1);\n"
    "const ulong i = (ulong)(loom_row * loom_w + loom_col);",
    // `&`, not `&&`: with a short circuit, loom_h's 64-bit division sits under the column
    // test, which varies along the row, and PoCL ran the division once per vector lane;
    // evaluated unconditionally it is hoisted out of the work-item loop.
    "(loom_col < loom_w) & (loom_row < loom_h)",
    // No int-coordinate grid kernel: one work-item per element with a per-group interior test
    // already runs the 2-D stencils near the handwritten kernels in 64-bit coordinates on
    // NVIDIA's OpenCL (docs/bench/summary.md, the H100 OpenCL rows).
    nullptr,
    {"get_local_id(0)", "get_local_id(1)"},
    {"get_local_size(0)", "get_local_size(1)"},
    "ulong",
    "long",
    {"bool",    "char",    "short",  "int",    "long",  "uchar",  "ushort",  "uint",    "ulong",  "float",  "double",
     "float2",  "double2", "char2",  "short2", "int2",  "long2",  "uchar2",  "ushort2", "uint2",  "ulong2", "float2",
     "double2", "char4",   "short4", "int4",   "long4", "uchar4", "ushort4", "uint4",   "ulong4", "float4", "double4"},
    {"(float2)", "(double2)"}, // a vector literal
    opencl_math_name,
    opencl_bit_builtin,
    {"__local", "barrier(CLK_LOCAL_MEM_FENCE);", "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
     "(uint)get_local_id(0)", "(uint)get_group_id(0)", "(uint)get_num_groups(0)", nullptr, "atomic_add(",
     "mem_fence(CLK_GLOBAL_MEM_FENCE);", "volatile __global", true},
    "static",
    true,
    nullptr, // (float4)(a, b, c, d)
};

// OpenCL C's built-ins take every width: popcount and clz count in the operand's own and
// return its type; isnan and the others return an int (1 or 0) for a scalar.
std::string opencl_bit_builtin(opcode op, dtype t, const std::string& a) {
    if (op == opcode::as_bits) return (t == dtype::f32 ? "as_uint(" : "as_ulong(") + a + ")";
    const std::string call = std::string(ir::info(op).name) + "(" + a + ")";
    return ir::is_float(t) ? call : "(int)" + call;
}

} // namespace

const dialect& opencl_dialect() { return opencl; }

const dialect& dialect_for(dialect_id id) { return id == dialect_id::cuda ? cuda_dialect() : opencl_dialect(); }

} // namespace loom::codegen
