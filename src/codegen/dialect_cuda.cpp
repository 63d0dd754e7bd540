// The CUDA C++ dialect table. CUDA's C math library spells the float version of each
// function with an f suffix (sinf, powf); double keeps the plain name.
#include <string>
#include <unordered_map>

#include "codegen/dialect.hpp"
#include "ir/op_table.hpp"

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
    // On an H100 at 2^26 elements, the 5-point stencil in 64-bit coordinates ran at 4.26 times the
    // handwritten kernel's time; as its own kernel in int coordinates (ir::kernel::narrow_grid), 1.27.
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
    {"__shared__", "__syncthreads();",
     "__syncthreads();", // orders the block's global memory accesses as well
     "threadIdx.x", "blockIdx.x", "gridDim.x", "__shfl_up_sync(0xffffffffu, "},
    "static __device__ __forceinline__",
    false,   // the CPU lanes forms stay scalar (they run on CPU devices)
    "make_", // NVRTC declares make_float4 ...; vector_types.cpp defines make_loom_double4 ...
};

} // namespace

const dialect& cuda_dialect() { return cuda; }

} // namespace loom::codegen
