// The CUDA C++ dialect table. CUDA's C math library spells the float version of each
// function with an f suffix (sinf, powf); double keeps the plain name.
#include <string>
#include <unordered_map>

#include "codegen/dialect.hpp"
#include "ir/op_table.hpp"
#include "ir/promotion.hpp"

namespace loom::codegen {
namespace {

const char* cuda_math_name(opcode op, dtype t) {
    // Built once, never destroyed (a static context may emit at exit): the f-suffixed
    // spelling of every math opcode.
    static const auto& float_names = *[] {
        auto* names_ptr = new std::unordered_map<int, std::string>;
        auto& names = *names_ptr;
        for (int o = 0; o < int(opcode::count_); ++o) names[o] = std::string(ir::info(opcode(o)).name) + "f";
        names[int(opcode::abs)] = "fabsf";
        return names_ptr;
    }();
    if (t == dtype::f32) return float_names.at(int(op)).c_str();
    return op == opcode::abs ? "fabs" : ir::info(op).name;
}

std::string cuda_bit_builtin(opcode op, dtype t, const std::string& a);

const dialect cuda = {
    "cuda",
    ".cu",
    "",
    "",
    "extern \"C\" __global__ void",
    "",
    "__restrict__ ",
    "(blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x)",
    "((unsigned long long)blockDim.x * gridDim.x)",
    "for (long long loom_row = blockIdx.y * (long long)blockDim.y + threadIdx.y; loom_row < loom_h;"
    " loom_row += (long long)blockDim.y * gridDim.y)\n"
    "for (long long loom_col = blockIdx.x * (long long)blockDim.x + threadIdx.x; loom_col < loom_w;"
    " loom_col += (long long)blockDim.x * gridDim.x) {\n"
    "    const unsigned long long i = (unsigned long long)(loom_row * loom_w + loom_col);",
    nullptr,
    // The grid in int coordinates, for the narrow grid kernel (ir::kernel::narrow_grid): 64-bit
    // coordinates cost a GPU kernel registers and integer instructions, and held the 5-point
    // stencil far behind the handwritten kernel (docs/skeleton-stencil.md; the runs in
    // bench/results/history.csv).
    "for (int loom_row = blockIdx.y * blockDim.y + threadIdx.y; loom_row < loom_h; loom_row += blockDim.y * "
    "gridDim.y)\n"
    "for (int loom_col = blockIdx.x * blockDim.x + threadIdx.x; loom_col < loom_w; loom_col += blockDim.x * gridDim.x) "
    "{\n"
    "    const unsigned long long i = (unsigned int)(loom_row * loom_w + loom_col);",
    // No interior test (map_kernel.cpp): it removes a gather per vector lane on CPU devices; on a
    // GPU its effect is unmeasured, so CUDA kernels keep the single body.
    {nullptr, nullptr},
    {nullptr, nullptr},
    "unsigned long long",
    "long long",
    // The 32-byte vectors are Loom's own 16-byte-aligned structs (codegen/vector_types.hpp): CUDA 13
    // deprecates double4, longlong4 and ulonglong4, and older CUDA lacks the _16a ones replacing them.
    {"bool",
     "signed char",
     "short",
     "int",
     "long long",
     "unsigned char",
     "unsigned short",
     "unsigned int",
     "unsigned long long",
     "float",
     "double",
     "float2",
     "double2",
     "char2",
     "short2",
     "int2",
     "longlong2",
     "uchar2",
     "ushort2",
     "uint2",
     "ulonglong2",
     "float2",
     "double2",
     "char4",
     "short4",
     "int4",
     "loom_long4",
     "uchar4",
     "ushort4",
     "uint4",
     "loom_ulong4",
     "float4",
     "loom_double4"},
    {"make_float2", "make_double2"}, // NVRTC declares the vector types and their make_ functions
    cuda_math_name,
    cuda_bit_builtin,
    {"__shared__", "__syncthreads();",
     "__syncthreads();", // orders the block's global memory accesses as well
     "threadIdx.x", "blockIdx.x", "gridDim.x", "__shfl_up_sync(0xffffffffu, ", "atomicAdd(", "__threadfence();",
     "volatile", false},
    "static __device__ __forceinline__",
    false,   // the CPU lanes forms stay scalar (they run on CPU devices)
    "make_", // NVRTC declares make_float4 ...; vector_types.cpp defines make_loom_double4 ...
};

// CUDA's isnan, isinf, isfinite and signbit take float and double; it has no isnormal, which is
// written as a finite magnitude of at least the smallest normal. __popc and __clz take 32 bits,
// __popcll and __clzll 64: a narrower operand is zero-extended through its own unsigned type,
// and its clz loses the 32 - width leading zeros that adds.
std::string cuda_bit_builtin(opcode op, dtype t, const std::string& a) {
    if (op == opcode::as_bits)
        return t == dtype::f32 ? "__float_as_uint(" + a + ")" : "((unsigned long long)__double_as_longlong(" + a + "))";
    if (op == opcode::isnormal) {
        const bool f32 = t == dtype::f32;
        const std::string magnitude = (f32 ? "fabsf(" : "fabs(") + a + ")";
        return "(" + magnitude + (f32 ? " >= 0x1p-126f && " : " >= 0x1p-1022 && ") + magnitude +
               (f32 ? " <= 0x1.fffffep+127f)" : " <= 0x1.fffffffffffffp+1023)");
    }
    if (ir::is_float(t)) return std::string(ir::info(op).name) + "(" + a + ")";
    const std::size_t bits = 8 * size_of(t);
    const bool clz = op == opcode::clz;
    if (bits == 64) return (clz ? "__clzll((long long)" : "__popcll((unsigned long long)") + a + ")";
    const dtype own = ir::is_signed_integer(t) ? dtype(std::uint8_t(t) + 4) : t; // i8..i32 -> u8..u32
    const std::string widened = "(unsigned int)(" + std::string(type_name(cuda, own)) + ")" + a;
    if (!clz) return "__popc(" + widened + ")";
    if (bits == 32) return "__clz((int)" + widened + ")";
    return "(__clz((int)" + widened + ") - " + std::to_string(32 - bits) + ")";
}

} // namespace

const dialect& cuda_dialect() { return cuda; }

} // namespace loom::codegen
