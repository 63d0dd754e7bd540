// One dense matrix product as loom::matmul hands it to a library: C = A B over device memory
// named by the backend's own handles, enqueued on the device's queue or stream after what is
// already there. One function per library (clblast_gemm.cpp, cublas_gemm.cpp).
#pragma once

#include <cstdint>

#include "backend/device.hpp"
#include "blas/clblast_loader.hpp"
#include "blas/cublas_loader.hpp"
#include "loom/dtype.hpp"

namespace loom::blas {

// Row-major A (m x k), B (k x n) and C (m x n), none of them empty (m, n, k > 0), of `type`
// (f32 or f64); a, b, c are cl_mem handles or CUdeviceptrs as device::native_memory gives them.
struct gemm_operands {
    dtype type = dtype::f32;
    std::uint64_t m = 0, n = 0, k = 0;
    std::uint64_t a = 0, b = 0, c = 0;
};

// Enqueue C = A B; nothing waits. A non-zero status is a loom::error naming it; C is then
// unspecified and A, B unchanged.
void clblast_gemm(const clblast_api& api, const backend::native_handles& device, const gemm_operands& g);
void cublas_gemm(const cublas_api& api, const backend::native_handles& device, const gemm_operands& g);

} // namespace loom::blas
