// The skeleton dialect tables: OpenCL C and CUDA C++.
#include "codegen/skeleton_dialect.hpp"

#include <cstring>

namespace loom::codegen {
namespace {

const skeleton_dialect opencl = {
    "__local",
    "barrier(CLK_LOCAL_MEM_FENCE);",
    "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
    "(uint)get_local_id(0)",
    "(uint)get_group_id(0)",
    "(uint)get_num_groups(0)",
    "static",
};

const skeleton_dialect cuda = {
    "__shared__",
    "__syncthreads();",
    "__syncthreads();", // orders the block's global memory accesses as well
    "threadIdx.x",
    "blockIdx.x",
    "gridDim.x",
    "static __device__ __forceinline__",
};

} // namespace

const skeleton_dialect& opencl_skeleton_dialect() { return opencl; }
const skeleton_dialect& cuda_skeleton_dialect() { return cuda; }

const skeleton_dialect& skeleton_dialect_for(const dialect& d) {
    return std::strcmp(d.name, cuda_dialect().name) == 0 ? cuda : opencl;
}

} // namespace loom::codegen
