// C = A B through CLBlast's row-major GEMM, on the OpenCL device's own queue. That queue is in
// order (the OpenCL backend makes it so, and refuses a caller's out-of-order queue), so the
// GEMM's kernels run after the statements enqueued before it and before those enqueued after:
// no event is asked for or waited on.
#include <cstdint>
#include <string>

#include "blas/gemm.hpp"
#include "loom/error.hpp"

namespace loom::blas {
namespace {

void* handle(std::uint64_t bits) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(bits)); }

} // namespace

void clblast_gemm(const clblast_api& api, const backend::native_handles& device, const gemm_operands& g) {
    void* queue = handle(device.queue);
    const std::size_t m = g.m, n = g.n, k = g.k;
    const int status = g.type == dtype::f64
                           ? api.dgemm(clblast_row_major, clblast_no_transpose, clblast_no_transpose, m, n, k, 1.0,
                                       handle(g.a), 0, k, handle(g.b), 0, n, 0.0, handle(g.c), 0, n, &queue, nullptr)
                           : api.sgemm(clblast_row_major, clblast_no_transpose, clblast_no_transpose, m, n, k, 1.0f,
                                       handle(g.a), 0, k, handle(g.b), 0, n, 0.0f, handle(g.c), 0, n, &queue, nullptr);
    if (status != clblast_success)
        throw error(std::string("loom::matmul: CLBlast's ") + (g.type == dtype::f64 ? "CLBlastDgemm" : "CLBlastSgemm") +
                    " (" + api.library + ") failed with status " + clblast_status_text(status) + " for a " +
                    std::to_string(g.m) + " x " + std::to_string(g.k) + " times " + std::to_string(g.k) + " x " +
                    std::to_string(g.n) + " product. Nothing was changed: every matrix keeps its value");
}

} // namespace loom::blas
