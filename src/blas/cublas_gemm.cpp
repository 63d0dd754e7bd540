// C = A B through cuBLAS, on the CUDA device's own stream: row-major C = A B is column-major
// C^T = B^T A^T, which is cuBLAS's GEMM of B and A as they lie in memory, untransposed.
// cuBLAS works in the current context, so the device's context is made current around the calls
// (through the driver table the CUDA backend opened) and the caller's restored afterwards.
#include <climits>
#include <cstdint>
#include <string>

#include "blas/gemm.hpp"
#include "loom/error.hpp"
#ifdef LOOM_HAVE_CUDA
#include "backend/cuda/driver_api.hpp"
#include "backend/cuda/library_context.hpp"
#endif

namespace loom::blas {

#ifdef LOOM_HAVE_CUDA
namespace {

using backend::cuda::driver_api;

// A handle the backend gave as an integer (docs/interop.md), as the pointer type it is.
template <class P> P from_bits(std::uint64_t bits) { return reinterpret_cast<P>(static_cast<std::uintptr_t>(bits)); }

[[noreturn]] void fail(const std::string& what) {
    throw error("loom::matmul: " + what + ". Nothing was changed: every matrix keeps its value");
}

// A cuBLAS handle for one call. Made per call because a handle belongs to one CUDA context and
// Loom has no per-context slot for it; cublasDestroy waits for the device (docs/matmul.md).
class call_handle {
public:
    explicit call_handle(const cublas_api& api) : api_(api) {
        const int s = api.create(&handle_);
        if (s != cublas_success) fail("cublasCreate (" + api.library + ") failed with " + cublas_status_text(api, s));
    }
    ~call_handle() { api_.destroy(handle_); }
    call_handle(const call_handle&) = delete;
    call_handle& operator=(const call_handle&) = delete;
    void* get() const { return handle_; }

private:
    const cublas_api& api_;
    void* handle_ = nullptr;
};

} // namespace

void cublas_gemm(const cublas_api& api, const backend::native_handles& device, const gemm_operands& g) {
    if (g.m > INT_MAX || g.n > INT_MAX || g.k > INT_MAX)
        fail("a " + std::to_string(g.m) + " x " + std::to_string(g.k) + " times " + std::to_string(g.k) + " x " +
             std::to_string(g.n) + " product has an extent over 2^31 - 1, which cuBLAS's 32-bit GEMM does not take");
    std::string why;
    const driver_api* driver = backend::cuda::try_driver(&why);
    if (!driver) fail("the CUDA driver is not usable: " + why);
    const int m = int(g.m), n = int(g.n), k = int(g.k);
    const backend::cuda::library_context scope(*driver, device.context, "loom::matmul", "cuBLAS");
    const call_handle handle(api);
    int s = api.set_stream(handle.get(), from_bits<void*>(device.queue));
    if (s != cublas_success) fail("cublasSetStream (" + api.library + ") failed with " + cublas_status_text(api, s));
    const char* routine = nullptr;
    if (g.type == dtype::f64) {
        const double one = 1, zero = 0;
        routine = "cublasDgemm";
        s = api.dgemm(handle.get(), cublas_no_transpose, cublas_no_transpose, n, m, k, &one, from_bits<double*>(g.b), n,
                      from_bits<double*>(g.a), k, &zero, from_bits<double*>(g.c), n);
    } else {
        const float one = 1, zero = 0;
        routine = "cublasSgemm";
        s = api.sgemm(handle.get(), cublas_no_transpose, cublas_no_transpose, n, m, k, &one, from_bits<float*>(g.b), n,
                      from_bits<float*>(g.a), k, &zero, from_bits<float*>(g.c), n);
    }
    if (s != cublas_success)
        fail(std::string(routine) + " (" + api.library + ") failed with " + cublas_status_text(api, s) + " for a " +
             std::to_string(g.m) + " x " + std::to_string(g.k) + " times " + std::to_string(g.k) + " x " +
             std::to_string(g.n) + " product");
}

#else

void cublas_gemm(const cublas_api&, const backend::native_handles&, const gemm_operands&) {
    throw error("loom::matmul: this Loom was built without the CUDA backend, so it cannot multiply on a CUDA device");
}

#endif

} // namespace loom::blas
