// What the header-only front end calls in the compiled library: buffers, transfers and
// statement recording. Everything here is declared, not defined, so that user code
// never sees backend, IR or planner headers.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "loom/dtype.hpp"
#include "loom/interop.hpp"

namespace loom::detail {

struct shape;
struct buffer;
class context_impl;
using buffer_ptr = std::shared_ptr<buffer>;
using context_ptr = std::shared_ptr<context_impl>;

// A buffer whose device memory is allocated when a kernel or transfer first needs it,
// so that a temporary the fusion pass keeps in registers never costs memory.
buffer_ptr new_buffer(const context_ptr& ctx, std::uint64_t length, dtype type);
// A loom::scalar's one-element buffer. On a context of several devices every part holds a copy
// (docs/multi-device.md), so that each part's kernels read it on their own device.
buffer_ptr new_scalar_buffer(const context_ptr& ctx, dtype type);
std::uint64_t length_of(const buffer& b);
context_impl* context_of(const buffer& b);
context_ptr shared_context_of(const buffer& b);

// Counts the loom::vector objects naming a buffer: a buffer nobody names any more
// needs no store at the end of a fused kernel.
void attach_vector(buffer& b);
void detach_vector(buffer& b);

// loom::name: the name logs and kernel headers give the buffer. Throws loom::error for a name
// that is empty or holds control characters.
void name_buffer(buffer& b, const char* name);

// Host transfers. Both run the pending statements first, so they see program order.
void upload(buffer& b, std::uint64_t first, std::uint64_t count, const void* host);
void download(buffer& b, std::uint64_t first, std::uint64_t count, void* host);

// A context may be used from several threads: recording a statement, a flush and a host
// transfer each hold the context's lock, so statements from different threads are
// queued whole, one after another.
std::recursive_mutex& context_mutex(context_impl& ctx);

// `target = source` without a kernel: target's buffer takes source's device memory, and source's
// buffer target's old memory (freed with it; a device frees memory only after the work using
// it). The caller holds the only reference to source (a temporary result being assigned),
// so nothing can see the exchange but through target. Done only where it changes nothing else:
// the same context, type and length; nothing pending or held in the context (no statement or
// looped kernel names either buffer yet); neither buffer pinned by interop. False, with nothing
// changed, otherwise: the caller then records the copy.
bool adopt_memory(const buffer_ptr& target, const buffer_ptr& source);

// Records one statement: slots in the order the shape numbered them, then commit().
// Destroying an uncommitted recorder (an exception was thrown) records nothing.
// The elements a view write stores to: start, start + stride, ..., count of them; or, for a
// block of a matrix (block_cols > 0), count elements in rows of block_cols from start, the rows
// `stride` (the matrix's width) apart. The fusion pass puts writes of one vector at disjoint
// spans in one kernel.
struct written_span {
    std::int64_t start = 0, stride = 0;
    std::uint64_t count = 0;
    std::uint64_t block_cols = 0;
};

class statement_recorder {
public:
    explicit statement_recorder(context_impl& ctx);
    ~statement_recorder();
    statement_recorder(const statement_recorder&) = delete;
    statement_recorder& operator=(const statement_recorder&) = delete;

    void vector_slot(const buffer_ptr& b);
    void device_scalar_slot(const buffer_ptr& b);
    void scalar_slot(const void* value, unsigned bytes);
    // Checks lengths, contexts and fp64 now (throwing loom::error at the faulty line),
    // then appends `target = shape(slots)` to the context's queue.
    void commit_assignment(const shape* s, const buffer_ptr& target);
    // A view among the element-wise operands: the statement must have its `count` elements.
    void view_extent(std::uint64_t count);
    // Throws loom::error naming `what` unless b belongs to the recorder's context (an operand
    // that names a context without being a slot: loom::index(ctx, n)).
    void same_context(const buffer& b, const char* what) const;
    // The elements of the views recorded so far (0: none), for an input that is not assigned
    // (a reduction's, a scan's). Throws loom::length_error when two views differ.
    std::uint64_t view_length() const;
    // `target` written through a view or scatter of `length` elements (the shape stores at its
    // store_index; the target's own slot was bound last). The caller has made sure no other
    // operand reads the target. `span`: the elements the view writes, where it is a strided
    // span of the vector or a matrix block (none for a scatter).
    void commit_view_assignment(const shape* s, const buffer_ptr& target, std::uint64_t length,
                                const written_span* span = nullptr);
    // Throws what committing a statement of shape s over `length` elements would throw, and
    // commits nothing (the recorder is then dropped): loom::tie checks every output before it
    // records the first.
    void check_statement(const shape* s, std::uint64_t length) const;

private:
    // Checks lengths, contexts and fp64 of the slots recorded for a statement of `length` elements.
    void check_operands(const shape* s, std::uint64_t length) const;

    context_impl& ctx_;
    std::unique_lock<std::recursive_mutex> lock_;
    std::size_t first_slot_;
    // Slots this recorder appended: a skeleton flushes the pending statements after binding
    // its input, which moves these slots to the front of the queue.
    std::size_t recorded_ = 0;
    bool committed_ = false;
    std::uint64_t view_min_ = ~std::uint64_t(0), view_max_ = 0; // the views' extents (view_extent)
};

// Runs every pending statement of the context (a flush) and waits for the device.
void finish(context_impl& ctx);

// loom::kernel (src/runtime/custom_kernel.cpp): a kernel from the user's source, compiled when it
// is made, and its launches. An argument is a buffer (a vector's or a device scalar's) or the
// bytes of a host value; the list ends with an empty one.
struct custom_kernel;
struct custom_argument {
    const buffer_ptr* buffer = nullptr;
    const void* value = nullptr;
    std::uint32_t bytes = 0;
};
std::shared_ptr<custom_kernel> build_custom_kernel(context_impl& ctx, const std::string& name,
                                                   const std::string& source);
void launch_custom_kernel(custom_kernel& k, const custom_argument* args, std::size_t count, std::uint64_t items,
                          std::uint32_t group, std::uint64_t rows, std::uint32_t group_rows);

// loom::loop_while's bookkeeping (src/runtime/loop/device_loop.cpp). While the scope lives it
// holds the context's lock; the body's kernels are guarded by the device flag `active`
// (they do nothing once it is 0), and loom::swap calls are logged per iteration so that
// finish() can take back the swaps of iterations that ran after the flag fell.
class device_loop_scope {
public:
    device_loop_scope(context_impl& ctx, const buffer_ptr& active); // throws when a device loop already runs
    ~device_loop_scope();
    device_loop_scope(const device_loop_scope&) = delete;
    device_loop_scope& operator=(const device_loop_scope&) = delete;

    void begin_body(std::uint64_t iteration); // runs what is pending, then guards what the body records
    void end_body();                          // runs the body's statements, guarded; stops guarding
    // After the bookkeeping statements: runs them at the end of the body's last reduction
    // pass, when the body ended with a reduction into device scalars (no launch of their own).
    void end_iteration();
    void finish(std::uint64_t iterations_run); // undoes the swaps of iterations >= iterations_run

private:
    context_impl& ctx_;
    std::unique_lock<std::recursive_mutex> lock_;
};

// loom::swap of two vectors (their fields, loom/detail/vector_fields.hpp): logged while a device
// loop runs in ctx (true: it was logged), to be exchanged back if its iteration turns out idle.
// A logged vector that is destroyed leaves the log (forget_swapped); no other vector calls into
// the loop.
struct vector_fields;
bool note_swap(context_impl& ctx, const vector_fields& a, const vector_fields& b) noexcept;
void forget_swapped(context_impl& ctx, const vector_fields& v) noexcept;

// Interop (loom/interop.hpp, docs/interop.md). The memory of `b` as the backend's handle (cl_mem,
// CUdeviceptr): runs the pending statements first (enqueues them, does not wait) and allocates the
// memory when `b` has none.
backend_handle native_handle_of(const buffer_ptr& b);
// A buffer of `length` elements over memory its caller owns: `handle` is a cl_mem or a CUdeviceptr,
// as `kind` says. Loom never frees it, and it is not in the device's memory ledger. Throws
// loom::error when the backend can tell that the memory is not the context's or is too small.
buffer_ptr wrap_buffer(const context_ptr& ctx, backend_kind kind, std::uint64_t handle, std::uint64_t length,
                       dtype type);

// Where a skeleton flushes: the pending statements are launched, nothing waits.
enum class flush_point : std::uint8_t { loop, pipeline, skeleton };
void flush(context_impl& ctx, flush_point at);

} // namespace loom::detail
