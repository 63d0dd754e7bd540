// Interop (docs/interop.md): a vector's memory and a context's queue, context and device as the
// backend's own handles; vectors over memory the caller owns; contexts over the caller's OpenCL
// or CUDA context and queue.
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "backend/opencl/opencl_device.hpp"
#include "loom/context.hpp"
#include "loom/error.hpp"
#include "loom/interop.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/open_context.hpp"
#include "support/log.hpp"
#ifdef LOOM_HAVE_CUDA
#include "backend/cuda/cuda_device.hpp"
#endif

namespace loom {
namespace {

backend_kind kind_of(detail::context_impl& ctx) { return ctx.device().native().backend; }

const char* memory_type(backend_kind b) { return b == backend_kind::opencl ? "a cl_mem" : "a CUdeviceptr"; }

// The buffers whose memory the caller has a handle of (native_handle) or that are over the
// caller's memory (wrap), by context and handle. Wrapping a handle again, for as many elements of
// the same type, gives the buffer that already names it: statements through either vector then
// name one buffer, and the fusion pass keeps their order. Entries of buffers gone are dropped as
// new ones come; a handle the driver hands out again after its buffer went is a new entry.
struct handle_registry {
    std::mutex lock;
    std::map<std::pair<const detail::context_impl*, std::uint64_t>, std::weak_ptr<detail::buffer>> buffers;
};

handle_registry& handles() {
    static handle_registry& r = *new handle_registry; // never destroyed: buffers may go at exit
    return r;
}

void remember(const detail::buffer_ptr& b, std::uint64_t handle) {
    handle_registry& r = handles();
    std::lock_guard<std::mutex> guard(r.lock);
    for (auto it = r.buffers.begin(); it != r.buffers.end();)
        it = it->second.expired() ? r.buffers.erase(it) : std::next(it);
    r.buffers[{b->ctx, handle}] = b;
    b->pinned = true;
}

detail::buffer_ptr known(const detail::context_impl* ctx, std::uint64_t handle, std::uint64_t length, dtype type) {
    handle_registry& r = handles();
    std::lock_guard<std::mutex> guard(r.lock);
    const auto it = r.buffers.find({ctx, handle});
    if (it == r.buffers.end()) return nullptr;
    detail::buffer_ptr b = it->second.lock();
    return b && b->length == length && b->type == type ? b : nullptr;
}

// The handles choose the device: a backend or device named in the options would be ignored.
void check_no_device_choice(const context_options& options, const char* made_by, const char* backend) {
    if (!options.backend.empty() && options.backend != backend)
        throw error(std::string("loom::context::") + made_by + ": context_options::backend is \"" + options.backend +
                    "\", but the handles given are " + backend + "'s; leave it empty");
    if (!options.device.empty())
        throw error(std::string("loom::context::") + made_by + ": context_options::device is \"" + options.device +
                    "\", but the device is the one of the handles given; leave it empty");
}

} // namespace

namespace detail {

backend_handle native_handle_of(const buffer_ptr& b) {
    context_impl& ctx = *b->ctx;
    ctx.require_one_device("a native handle of a vector");
    std::lock_guard<std::recursive_mutex> guard(ctx.mutex());
    logging::context_scope scope(ctx.id());
    // Enqueued, not waited for: the caller's work on the same in-order queue runs after it.
    ctx.flush(flush_cause::interop);
    ctx.execution().allocate(*b);
    const std::uint64_t handle = ctx.device().native_memory(*b->memory);
    remember(b, handle);
    return {kind_of(ctx), handle, "the memory of a loom::vector"};
}

buffer_ptr wrap_buffer(const context_ptr& ctx, backend_kind kind, std::uint64_t handle, std::uint64_t length,
                       dtype type) {
    const backend_kind runs_on = kind_of(*ctx);
    if (kind != runs_on)
        throw error(std::string("loom::vector::wrap: the memory given is ") + memory_type(kind) + " (" + name_of(kind) +
                    "), and the context runs on " + name_of(runs_on) + "; wrap " + memory_type(runs_on) +
                    ", or make the context on " + name_of(kind));
    std::lock_guard<std::recursive_mutex> guard(ctx->mutex());
    if (buffer_ptr b = known(ctx.get(), handle, length, type)) return b;
    buffer_ptr b = new_buffer(ctx, length, type); // refuses double on a device without fp64
    b->memory = ctx->device().wrap_memory(handle, b->bytes());
    remember(b, handle);
    return b;
}

} // namespace detail

backend_handle context::native_queue() const {
    std::lock_guard<std::recursive_mutex> guard(impl_->mutex());
    logging::context_scope scope(impl_->id());
    impl_->flush(detail::flush_cause::interop); // enqueued before the caller's work
    return {kind_of(*impl_), impl_->device().native().queue, "the queue of a loom::context"};
}

backend_handle context::native_context() const {
    return {kind_of(*impl_), impl_->device().native().context, "the context of a loom::context"};
}

backend_handle context::native_device() const {
    return {kind_of(*impl_), impl_->device().native().device, "the device of a loom::context"};
}

context context::from_opencl(void* cl_context, void* cl_command_queue, const context_options& options) {
    check_no_device_choice(options, "from_opencl", "opencl");
    return context(detail::open_context(options, [&](bool profiling) {
        return backend::open_opencl_device_over(cl_context, cl_command_queue, profiling, options.profiling == 1);
    }));
}

context context::from_cuda(void* cu_context, void* cu_stream, const context_options& options) {
    check_no_device_choice(options, "from_cuda", "cuda");
#ifdef LOOM_HAVE_CUDA
    return context(detail::open_context(
        options, [&](bool profiling) { return backend::open_cuda_device_over(cu_context, cu_stream, profiling); }));
#else
    (void)cu_context;
    (void)cu_stream;
    throw no_device("loom::context::from_cuda: this Loom was built without the CUDA backend; rebuild it with the "
                    "CUDA toolkit installed (LOOM_WITH_CUDA=ON)");
#endif
}

} // namespace loom
