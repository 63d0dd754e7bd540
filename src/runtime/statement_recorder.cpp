// Recording statements and moving data: the calls the header-only front end makes.
#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "ir/shape.hpp"
#include "loom/detail/shape_builder.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/parted_buffer.hpp"
#include "runtime/parts/parts_device.hpp"
#include "runtime/parts/statements_across_parts.hpp"
#include "support/log.hpp"

namespace loom::detail {

buffer_ptr new_scalar_buffer(const context_ptr& ctx, dtype type) {
    if (ctx->several()) return new_replicated_buffer(ctx, type);
    return new_buffer(ctx, 1, type);
}

buffer_ptr new_buffer(const context_ptr& ctx, std::uint64_t length, dtype type) {
    if ((component_dtype(type) == dtype::f64 || type == dtype::c128) && !ctx->info().fp64)
        throw error("loom: the device " + ctx->info().name +
                    " does not support double precision (no cl_khr_fp64); use float vectors, or pick a device "
                    "with fp64 through LOOM_DEVICE");
    // Refused here, before anything is recorded, rather than when a flush allocates it:
    // a failing flush would take the pending statements of other vectors with it. Every byte
    // count of the buffer (allocation, wrap, transfers) is then below 2^64.
    if (length > std::numeric_limits<std::uint64_t>::max() / size_of(type))
        throw out_of_memory("loom: a vector of " + std::to_string(length) + " " + name_of(type) + " elements (" +
                            std::to_string(size_of(type)) +
                            " bytes each) exceeds the addressable size: its byte "
                            "count does not fit in 64 bits; use smaller vectors");
    const std::uint64_t bytes = length * size_of(type);
    if (length > ctx->info().max_allocation / size_of(type))
        throw out_of_memory("loom: out of device memory: a vector of " + std::to_string(length) + " " + name_of(type) +
                            " elements (" + std::to_string(bytes) + " bytes) exceeds the largest allocation " +
                            ctx->info().name + " allows (" + std::to_string(ctx->info().max_allocation) +
                            " bytes); use smaller vectors");
    if (ctx->several()) return new_parted_buffer(ctx, length, type);
    auto b = std::make_shared<buffer>();
    b->ctx = ctx.get();
    b->length = length;
    b->type = type;
    return b;
}

std::uint64_t length_of(const buffer& b) { return b.length; }
context_impl* context_of(const buffer& b) { return b.ctx; }
context_ptr shared_context_of(const buffer& b) { return b.ctx->shared_from_this(); }
// A part of a named buffer is named too: each part's fusion keeps the stores of what a vector names.
void attach_vector(buffer& b) {
    ++b.vector_refs;
    for (const buffer_ptr& part : b.parts) attach_vector(*part);
}
void detach_vector(buffer& b) {
    --b.vector_refs;
    for (const buffer_ptr& part : b.parts) detach_vector(*part);
}

std::recursive_mutex& context_mutex(context_impl& ctx) { return ctx.mutex(); }

void name_buffer(buffer& b, const char* name) {
    const std::string text = name ? name : "";
    if (text.empty()) throw error("loom::name: the name is empty; give the vector a name such as \"pressure\"");
    for (unsigned char c : text)
        if (c < 0x20 || c == 0x7F)
            throw error("loom::name: the name '" + text +
                        "' holds a control character (a newline, a tab...); logs and kernel headers are lines "
                        "of text, so use printable characters");
    std::lock_guard<std::recursive_mutex> guard(b.ctx->mutex()); // a flush on another thread may read it
    b.name = text;
    for (std::size_t k = 0; k < b.parts.size(); ++k)
        name_buffer(*b.parts[k], (text + "[part " + std::to_string(k) + "]").c_str());
}

namespace {
// A transfer's elements lie inside the buffer, so its byte offset and count fit as the buffer's do.
void check_transfer(const buffer& b, std::uint64_t first, std::uint64_t count, const char* what) {
    if (count > b.length || first > b.length - count)
        throw error(std::string("loom: a ") + what + " of " + std::to_string(count) + " elements from position " +
                    std::to_string(first) + " does not fit in a vector of " + std::to_string(b.length) +
                    " elements; copy a range inside the vector");
}
} // namespace

void upload(buffer& b, std::uint64_t first, std::uint64_t count, const void* host) {
    check_transfer(b, first, count, "copy to the device");
    if (!b.parts.empty()) return upload_parts(b, first, count, host);
    context_impl& ctx = *b.ctx;
    std::lock_guard<std::recursive_mutex> guard(ctx.mutex());
    logging::context_scope scope(ctx.id());
    ctx.flush(flush_cause::host_write); // pending statements may read the old contents
    ctx.execution().allocate(b);
    ctx.device().write(*b.memory, first * size_of(b.type), host, count * size_of(b.type));
    note_write(b);
    ctx.note_host_sync("host write");
}

void download(buffer& b, std::uint64_t first, std::uint64_t count, void* host) {
    check_transfer(b, first, count, "copy to the host");
    if (!b.parts.empty()) return download_parts(b, first, count, host);
    context_impl& ctx = *b.ctx;
    std::lock_guard<std::recursive_mutex> guard(ctx.mutex());
    logging::context_scope scope(ctx.id());
    ctx.flush(flush_cause::host_read);
    ctx.execution().allocate(b);
    ctx.device().read(*b.memory, first * size_of(b.type), host, count * size_of(b.type));
    ctx.note_host_sync("host read");
}

// A statement's lines in the log (a flush at a limit, a skeleton's launch) name its context.
statement_recorder::statement_recorder(context_impl& ctx)
    : ctx_(ctx), lock_(ctx.mutex()), first_slot_(ctx.queue().slots.size()) {
    logging::context_scope::enter_context(ctx.id());
}

statement_recorder::~statement_recorder() {
    logging::context_scope::leave_context();
    if (committed_) return;
    std::vector<fusion::bound_slot>& slots = ctx_.queue().slots;
    slots.resize(slots.size() > recorded_ ? slots.size() - recorded_ : 0); // a failed flush may have cleared them
}

void statement_recorder::vector_slot(const buffer_ptr& b) {
    if (!b)
        throw error("loom: an empty loom::vector (default-constructed or moved from) is used in an expression; "
                    "construct it with a context and a size, or assign a vector to it, first");
    ctx_.queue().slots.push_back({b, 0});
    ++recorded_;
}

void statement_recorder::device_scalar_slot(const buffer_ptr& b) {
    if (!b)
        throw error("loom: an empty loom::scalar (default-constructed or moved from) is used in an expression; "
                    "construct it with a context first");
    ctx_.queue().slots.push_back({b, 0});
    ++recorded_;
}

void statement_recorder::scalar_slot(const void* value, unsigned bytes) {
    fusion::bound_slot slot;
    std::memcpy(slot.bits.word, value, bytes);
    ctx_.queue().slots.push_back(std::move(slot));
    ++recorded_;
}

namespace {

// The shape of `target = source` for two vectors of one type, built once per type.
const shape* copy_shape(dtype t) {
    static const shape* shapes[dtype_count] = {};
    static std::mutex& lock = *new std::mutex; // never destroyed: a static context records at exit
    std::lock_guard<std::mutex> guard(lock);
    const shape*& s = shapes[std::size_t(t)];
    if (!s) {
        shape_builder b;
        s = b.finish_assignment(b.vector_slot(t), t);
    }
    return s;
}

} // namespace

std::uint64_t statement_recorder::view_length() const {
    if (view_max_ == 0 && view_min_ == ~std::uint64_t(0)) return 0;
    if (view_min_ != view_max_)
        throw length_error("loom: length mismatch: views of " + std::to_string(view_min_) + " and " +
                           std::to_string(view_max_) +
                           " elements in one expression; views and vectors in one "
                           "expression need equal lengths");
    return view_min_;
}

void statement_recorder::same_context(const buffer& b, const char* what) const {
    if (b.ctx != &ctx_)
        throw error(std::string("loom: ") + what +
                    " names another context than the expression's vectors or target; use one context");
}

void statement_recorder::view_extent(std::uint64_t count) {
    view_min_ = std::min(view_min_, count);
    view_max_ = std::max(view_max_, count);
}

void statement_recorder::check_operands(const shape* s, std::uint64_t length) const {
    const fusion::statement_queue& q = ctx_.queue();
    for (std::size_t i = first_slot_; i < q.slots.size(); ++i) {
        const buffer* b = q.slots[i].buffer.get();
        if (!b) continue;
        if (b->ctx != &ctx_)
            throw error("loom: an expression mixes vectors from two contexts; copy the data into one context "
                        "(loom::copy through the host) before combining them");
        const slot_info& slot = s->slots[i - first_slot_];
        if (slot.broadcast || slot.any_length) continue; // a device scalar, a gathered or viewed vector
        if (b->length != length)
            throw length_error("loom: length mismatch: assigning an expression over " + std::to_string(b->length) +
                               " elements to a vector of " + std::to_string(length) +
                               " elements; element-wise expressions need vectors of equal length");
    }
    if (view_max_ != 0 || view_min_ != ~std::uint64_t(0))
        if (view_min_ != length || view_max_ != length)
            throw length_error("loom: length mismatch: a view of " +
                               std::to_string(view_min_ == length ? view_max_ : view_min_) +
                               " elements in a statement over " + std::to_string(length) +
                               " elements; views and vectors in one statement need equal lengths");
    if (s->uses_f64 && !ctx_.info().fp64)
        throw error("loom: this expression computes in double, which the device " + ctx_.info().name +
                    " does not support; write float literals (2.0f) or cast to float, or pick a device with fp64");
}

void statement_recorder::check_statement(const shape* written, std::uint64_t length) const {
    check_operands(ctx_.statement_form(written), length);
}

void statement_recorder::commit_view_assignment(const shape* written, const buffer_ptr& target, std::uint64_t length,
                                                const written_span* span) {
    if (ctx_.several()) throw error(needs_one_device(partwise_refusal(*written), ctx_.parts().size()));
    const shape* s = ctx_.statement_form(written);
    check_operands(s, length);
    fusion::statement_queue& q = ctx_.queue();
    q.statements.push_back({s, target, std::uint32_t(first_slot_), length, span ? *span : written_span{}});
    note_write(*target);
    committed_ = true;
    ctx_.after_record();
}

void statement_recorder::commit_assignment(const shape* written, const buffer_ptr& target) {
    if (ctx_.several()) {
        // Each part's share of the statement goes to the part's own queue (statements_across_parts.hpp).
        check_operands(written, target->length);
        commit_across_parts(ctx_, written, ctx_.queue().slots.data() + first_slot_, target);
        ctx_.queue().slots.resize(first_slot_);
        committed_ = true;
        return;
    }
    const shape* s = ctx_.statement_form(written);
    fusion::statement_queue& q = ctx_.queue();
    const std::uint64_t length = target->length;
    check_operands(s, length);
    bool reads_own_target_at_other_indices = false;
    for (std::size_t k = 0; k < s->slots.size(); ++k)
        reads_own_target_at_other_indices |= s->slots[k].neighbour && q.slots[first_slot_ + k].buffer == target;
    if (reads_own_target_at_other_indices) {
        // x = f(shift(x, 1)): every work-item must read x before any writes it, so the
        // statement computes into a temporary and a second statement copies it back
        // (the fusion pass puts a kernel boundary between them).
        buffer_ptr temp = new_buffer(ctx_.shared_from_this(), length, target->type);
        q.statements.push_back({s, temp, std::uint32_t(first_slot_), length});
        const std::uint32_t copy_slot = std::uint32_t(q.slots.size());
        q.slots.push_back({std::move(temp), 0});
        q.statements.push_back({copy_shape(target->type), target, copy_slot, length});
    } else {
        q.statements.push_back({s, target, std::uint32_t(first_slot_), length});
    }
    note_write(*target);
    committed_ = true;
    ctx_.after_record();
}

} // namespace loom::detail
