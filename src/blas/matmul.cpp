// loom::matmul at run time: the device's BLAS library is opened first (so that a missing one
// changes nothing), the pending statements run, then the library's GEMM is enqueued on the
// device's queue or stream into the product's new memory.
#include <mutex>
#include <string>

#include "blas/gemm.hpp"
#include "loom/matmul.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"
#include "support/log.hpp"

namespace loom::detail {

void run_matmul(context_impl& ctx, const matmul_call& call, const buffer_ptr& product) {
    ctx.require_one_device("loom::matmul");
    backend::device& dev = ctx.device();
    const backend::native_handles handles = dev.native();
    const bool opencl = handles.backend == backend_kind::opencl;
    const blas::clblast_api* clblast = opencl ? &blas::clblast() : nullptr;
    const blas::cublas_api* cublas = opencl ? nullptr : &blas::cublas();

    std::lock_guard<std::recursive_mutex> lock(ctx.mutex());
    logging::context_scope scope(ctx.id());
    if (ctx.guard())
        throw error("loom::matmul cannot run inside a loom::loop_while body: a library's GEMM cannot be guarded by "
                    "the loop's device-side condition; compute the product before the loop, or use loom::loop");
    buffer& a = **call.a;
    buffer& b = **call.b;
    if (a.ctx != &ctx || b.ctx != &ctx || product->ctx != &ctx || a.type != product->type || b.type != product->type ||
        a.length != call.m * call.k || b.length != call.k * call.n || product->length != call.m * call.n)
        throw error("loom: internal error: loom::matmul's operands do not match its call");

    ctx.flush(flush_cause::skeleton); // the GEMM reads what the statements before it wrote
    ctx.release_held();
    for (buffer* x : {&a, &b, product.get()}) ctx.execution().allocate(*x);
    const blas::gemm_operands g{product->type,
                                call.m,
                                call.n,
                                call.k,
                                dev.native_memory(*a.memory),
                                dev.native_memory(*b.memory),
                                dev.native_memory(*product->memory)};
    if (clblast)
        blas::clblast_gemm(*clblast, handles, g);
    else
        blas::cublas_gemm(*cublas, handles, g);
    if (logging::enabled(logging::channel::launch))
        logging::write(logging::channel::launch,
                       std::string("matmul: ") + (clblast ? "CLBlast " : "cuBLAS ") +
                           (g.type == dtype::f64 ? "DGEMM" : "SGEMM") + " of " + std::to_string(call.m) + " x " +
                           std::to_string(call.k) + " times " + std::to_string(call.k) + " x " +
                           std::to_string(call.n) + " (" + (clblast ? clblast->library : cublas->library) + ")");
}

} // namespace loom::detail
