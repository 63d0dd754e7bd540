// loom::fft at run time: the transform is checked against what the device's library takes and
// the library opened first (so that a refused size or a missing library changes nothing), the
// pending statements run, then the context's plan for the transform (made once per transform,
// plan_cache.hpp) is enqueued on the device's queue or stream into the result's new memory.
#include <mutex>
#include <string>

#include "fft/plan_cache.hpp"
#include "loom/detail/fft_call.hpp"
#include "loom/error.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"
#include "support/log.hpp"

namespace loom::detail {
namespace {

// The address the context's FFT plans are kept under (runtime/library_state.hpp).
const char fft_plans_tag = 0;

fourier::plan_cache& plans_of(context_impl& ctx) {
    return ctx.libraries().get<fourier::plan_cache>(&fft_plans_tag,
                                                    [] { return std::make_unique<fourier::plan_cache>(); });
}

fourier::transform transform_of(const fft_call& call, dtype input_type) {
    fourier::transform t;
    t.kind = call.kind;
    t.inverse = call.kind == fft_kind::complex_to_real || (call.kind == fft_kind::complex_to_complex && call.inverse);
    t.precision = input_type == dtype::f64 || input_type == dtype::c128 ? dtype::f64 : dtype::f32;
    t.rank = call.rank;
    t.extents = call.extents;
    return t;
}

} // namespace

void run_fft(context_impl& ctx, const fft_call& call, const buffer_ptr& output) {
    ctx.require_one_device("loom::fft");
    backend::device& dev = ctx.device();
    const backend::native_handles handles = dev.native();
    const bool opencl = handles.backend == backend_kind::opencl;
    buffer& input = **call.input;
    const fourier::transform t = transform_of(call, input.type);
    if (opencl) {
        const std::string refused = fourier::clfft_refuses(t);
        if (!refused.empty())
            throw error("loom::fft: clFFT, the FFT library on OpenCL devices, cannot make a " + describe(t) + ": " +
                        refused +
                        ", and clFFT takes only lengths whose prime factors are 2, 3, 5, 7, 11 and 13 (such as 1000 = "
                        "2^3 5^3 or 1001 = 7 11 13). Pad the signal with zeros to such a length, or run on a CUDA "
                        "device (cuFFT takes every length). Nothing was changed: every vector keeps its value");
    }
    const fourier::clfft_api* clfft = opencl ? &fourier::clfft() : nullptr;
    const fourier::cufft_api* cufft = opencl ? nullptr : &fourier::cufft();

    std::lock_guard<std::recursive_mutex> lock(ctx.mutex());
    logging::context_scope scope(ctx.id());
    if (ctx.guard())
        throw error("loom::fft cannot run inside a loom::loop_while body: a library's transform cannot be guarded "
                    "by the loop's device-side condition; transform before the loop, or use loom::loop");
    if (input.ctx != &ctx || output->ctx != &ctx || input.length != t.input_elements() ||
        output->length != t.output_elements())
        throw error("loom: internal error: loom::fft's operands do not match its call");

    fourier::plan_cache& plans = plans_of(ctx);
    bool planned = false;
    fourier::library_plan& plan = plans.get(
        t,
        [&] {
            return clfft ? fourier::make_clfft_plan(*clfft, handles, t) : fourier::make_cufft_plan(*cufft, handles, t);
        },
        planned);

    ctx.flush(flush_cause::skeleton); // the transform reads what the statements before it wrote
    ctx.release_held();
    for (buffer* x : {&input, output.get()}) ctx.execution().allocate(*x);
    plan.enqueue(t.inverse, dev.native_memory(*input.memory), dev.native_memory(*output->memory));
    if (logging::enabled(logging::channel::launch))
        logging::write(logging::channel::launch, std::string("fft: ") + (clfft ? "clFFT " : "cuFFT ") + describe(t) +
                                                     (planned ? ", planned" : "") + " (" +
                                                     (clfft ? clfft->library : cufft->library) + ")");
}

} // namespace loom::detail

namespace loom::fourier {

std::size_t plans_held(detail::context_impl& ctx) {
    std::lock_guard<std::recursive_mutex> lock(ctx.mutex());
    return detail::plans_of(ctx).size();
}

} // namespace loom::fourier
