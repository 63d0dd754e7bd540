// Views, gathers and scatters: reading and writing a vector at indices other than the element's own.
//
//   y.slice(0, n / 2) = x.slice(n / 2, n / 2) * 2;     // contiguous slices, read and written
//   z = x.slice(1, n / 2, 2);                          // every other element from 1 (a stride)
//   z = loom::reversed(x) + x;                         // x read back to front
//   y = loom::gather(x, idx);                          // y[i] = x[idx[i]]  (0 where idx[i] is out of range)
//   loom::scatter(y, idx) = x;                         // y[idx[i]] = x[i]  (skipped where out of range)
//
// A view's bounds are checked when the statement is recorded (loom::error naming the extents);
// a gather's and a scatter's indices are device values, checked in the kernel. Where several
// elements scatter to one index, one of their values is stored; which one is unspecified.
//
// Fusion (docs/views.md): a view or gather reads its vector at other indices, like a stencil, so
// a kernel ends before one that reads a vector the kernel writes (the fusion log names it
// gather_read). A statement that writes through a view or scatter ends its kernel: nothing after
// it in the kernel may touch the vector it wrote (view_write), but for slice writes of that
// vector at spans sharing no element, which join it. A statement whose value reads the vector
// it writes through a view computes into a temporary first.
#pragma once

#include <cstdint>
#include <string>

#include "loom/expr/operands.hpp"
#include "loom/expr/vector_ref.hpp"
#include "loom/vector.hpp"

namespace loom {

namespace expr {

// The element index as a signed 64-bit value, for view index arithmetic.
inline detail::node_ref signed_index(detail::shape_builder& b) { return b.cast(dtype::i64, b.index()); }

[[noreturn]] inline void reject_float_index(const char* what) {
    throw error(std::string("loom::") + what +
                ": the index must be an integer expression (cast<int64_t>(...) a "
                "floating-point one)");
}

inline bool is_float_type(dtype t) { return t == dtype::f32 || t == dtype::f64; }

// The index operand of a gather or scatter: an expression by value, a vector or device scalar as
// an expression holds one (vector_ref, scalar_ref).
template <class I> auto index_operand(const I& idx) {
    static_assert(is_operand_v<I>, "loom::gather/scatter: the index must be a loom::vector or a Loom expression");
    return as_child(idx);
}

} // namespace expr

// Elements start, start + stride, ..., count of them, of a vector (stride may be negative).
// In an expression it reads; assigned to, it writes those elements and leaves the others.
template <class T> class vector_view {
public:
    using value_type = T;

    vector_view(vector<T>& source, std::int64_t start, std::uint64_t count, std::int64_t stride)
        : source_(source.claim()), start_(start), count_(count), stride_(stride) {
        check(source.size());
    }

    std::uint64_t size() const { return count_; }

    vector_view(const vector_view&) = default;

    // view = expression (or vector, view, host scalar): a statement over count elements.
    template <class E> vector_view& operator=(const E& e) { return assign(e); }
    vector_view& operator=(const vector_view& other) { return assign(other); }
    // Throws what `*this = value` would throw, and records nothing (loom::tie checks every
    // output before it writes the first).
    template <class E> void check_assignment(const E& e) { record(e, statement_use::check_only); }
    // The vector this view writes, and its context.
    const detail::buffer_ptr& buffer() const { return source_.get(); }

    // ---- as an expression terminal (see expr/lower.hpp) ----
    detail::node_ref lower(detail::shape_builder& b) const {
        const std::uint32_t source = b.gather_source(dtype_v<T>);
        return b.gather(source, index(b), false); // bounds checked on the host
    }
    void bind(detail::statement_recorder& r) const {
        r.vector_slot(source_.get());
        bind_index(r);
        r.view_extent(count_);
    }
    expr::first_operand_t operand() const { return {&source_.get(), count_}; }
    bool reads(const detail::buffer* b) const { return source_.get().get() == b; }

private:
    template <class E> vector_view& assign(const E& e) {
        if constexpr (expr::is_expression_v<E> || expr::is_operand_object<E>::value) {
            if (expr::reads_buffer(e, source_.get().get())) {
                // The value reads the vector this view writes: compute it whole first.
                vector<T> value(context(detail::shared_context_of(*source_.get())), count_);
                value = e;
                return store(value);
            }
        }
        return store(e);
    }

    // start + i * stride, from two scalar slots.
    static detail::node_ref index(detail::shape_builder& b) {
        const detail::node_ref start = b.view_index_slot(false), stride = b.view_index_slot(true);
        return b.apply(opcode::add, start, b.apply(opcode::mul, expr::signed_index(b), stride));
    }
    void bind_index(detail::statement_recorder& r) const {
        r.scalar_slot(&start_, sizeof start_);
        r.scalar_slot(&stride_, sizeof stride_);
    }

    template <class E> vector_view& store(const E& e) {
        record(e, statement_use::commit);
        return *this;
    }
    enum class statement_use { commit, check_only };
    template <class E> void record(const E& e, statement_use use) {
        if (count_ == 0) return;
        const detail::shape* const shape = expr::lowered_once(
            [&] {
                detail::shape_builder b;
                const detail::node_ref value = expr::lower(b, e);
                return b.finish_view_assignment(value, dtype_v<T>, index(b), false);
            },
            e);
        detail::statement_recorder recorder(*detail::context_of(*source_.get()));
        expr::bind(recorder, e);
        bind_index(recorder);
        recorder.vector_slot(source_.get());
        const detail::written_span span{start_, stride_, count_};
        if (use == statement_use::commit)
            recorder.commit_view_assignment(shape, source_.get(), count_, &span);
        else
            recorder.check_statement(shape, count_);
    }

    void check(std::uint64_t source_size) const {
        if (!source_.get())
            throw error("loom: a view of an empty loom::vector; construct the vector with a context and a size first");
        const std::int64_t n = std::int64_t(source_size);
        if (count_ == 0) return;
        // The first and last element must lie in [0, n); computed without overflow.
        const bool fits =
            start_ >= 0 && start_ < n && count_ <= std::uint64_t(n) &&
            (stride_ >= 0 ? (count_ == 1 || std::uint64_t(stride_) <= std::uint64_t(n - 1 - start_) / (count_ - 1))
                          : (count_ == 1 || std::uint64_t(-(stride_ + 1)) + 1 <= std::uint64_t(start_) / (count_ - 1)));
        if (!fits)
            throw error("loom: a view of " + std::to_string(count_) + " elements from " + std::to_string(start_) +
                        " with stride " + std::to_string(stride_) + " reaches outside a vector of " +
                        std::to_string(n) + " elements");
    }

    // The vector's buffer, held as an expression holds a vector (expr/vector_ref.hpp): a view, and
    // an expression over it, stay valid after the vector is destroyed. Like an expression, the
    // view keeps the buffer it was made over: a vector resized or moved from later is not followed.
    expr::counted_buffer source_;
    std::int64_t start_;
    std::uint64_t count_;
    std::int64_t stride_;
};

template <class T> vector_view<T> vector<T>::slice(std::size_t start, std::size_t count, std::ptrdiff_t stride) {
    return vector_view<T>(*this, std::int64_t(start), count, stride);
}

// x read back to front (x.size() elements from the last, stride -1). Assignable.
template <class T> vector_view<T> reversed(vector<T>& x) {
    return vector_view<T>(x, std::int64_t(x.size()) - 1, x.size(), -1);
}

template <class T> void vector<T>::resize(std::size_t n) {
    if (!ctx_)
        throw error("loom: resize(" + std::to_string(n) +
                    ") of a default-constructed loom::vector, which has no context to allocate in; call "
                    "resize(ctx, n), or construct it with (ctx, n)");
    if (buf_ && n == size_) return;
    vector<T> grown(context(ctx_), n); // new elements are zero, as std::vector's value-initialised ones
    const std::size_t kept = buf_ ? (n < size_ ? n : size_) : 0;
    if (kept) grown.slice(0, kept) = slice(0, kept);
    *this = std::move(grown);
}

template <class T> void vector<T>::resize(const context& ctx, std::size_t n) {
    if (ctx_ == ctx.impl()) return resize(n);
    *this = vector<T>(ctx, n);
}

template <class T> template <class U> void vector<T>::resize(const vector<U>& other) {
    if (static_cast<const void*>(&other) == this) return;
    if (!other.buffer()) {
        release();
        return;
    }
    const detail::context_ptr ctx = detail::shared_context_of(*other.buffer());
    if (!buf_ || ctx_ != ctx || size_ != other.size()) *this = vector<T>(context(ctx), other.size());
    assign(other);
}

template <class T> void vector<T>::resize(const std::vector<T>& host) {
    if (!ctx_)
        throw error("loom: resize(host) of a default-constructed loom::vector, which has no context to allocate "
                    "in; construct it with (ctx, host)");
    *this = vector<T>(context(ctx_), host);
}

namespace expr {

// The terminal of loom::gather: source read at the index expression's value.
template <class T, class I> struct gather_read {
    vector_ref<T> source;
    I index;

    using nested_expression = I; // lowered inline: its source-function calls are the statement's (lowered_once.hpp)
    const I& nested() const { return index; }

    detail::node_ref lower(detail::shape_builder& b) const {
        const std::uint32_t slot = b.gather_source(dtype_v<T>);
        const detail::node_ref i = expr::lower(b, index);
        if (is_float_type(b.type_of(i))) reject_float_index("gather");
        return b.gather(slot, i, true);
    }
    void bind(detail::statement_recorder& r) const {
        r.vector_slot(source.memory.get());
        expr::bind(r, index);
        const std::uint64_t n = source.size;
        r.scalar_slot(&n, sizeof n);
    }
    // The statement's length is the index's; the source may have any length.
    first_operand_t operand() const { return first_operand(index); }
    bool reads(const detail::buffer* b) const { return source.reads(b) || reads_buffer(index, b); }
};

} // namespace expr

// x[idx[i]] for every element i of the index expression; 0 where idx[i] is outside x.
template <class T, class I> auto gather(const vector<T>& x, const I& idx) {
    if (!x.buffer()) throw error("loom::gather from an empty loom::vector");
    using index_type = decltype(expr::index_operand(idx));
    return expr::make_terminal(expr::gather_read<T, index_type>{expr::vector_ref<T>::of(x), expr::index_operand(idx)});
}

// The target of loom::scatter(y, idx) = e: y[idx[i]] = e[i]; indices outside y are skipped.
template <class T, class I> class scatter_target {
public:
    scatter_target(vector<T>& target, I index) : target_(&target), index_(std::move(index)) {}

    template <class E> scatter_target& operator=(const E& e) {
        if (!target_->buffer()) throw error("loom::scatter into an empty loom::vector");
        const std::uint64_t length = statement_length(e);
        const detail::buffer* target = target_->buffer().get();
        bool reads_target = expr::reads_buffer(index_, target);
        if constexpr (expr::is_expression_v<E> || expr::is_operand_object<E>::value)
            reads_target = reads_target || expr::reads_buffer(e, target);
        if (reads_target) {
            // The value or the index reads the target: both are computed whole first.
            const context ctx(detail::shared_context_of(*target_->buffer()));
            vector<std::uint64_t> where(ctx, length);
            where = loom::cast<std::uint64_t>(index_);
            vector<T> value(ctx, length);
            value = e;
            scatter_target<T, decltype(expr::index_operand(where))>(*target_, expr::index_operand(where)) = value;
            return *this;
        }
        const detail::shape* const shape = expr::lowered_once(
            [&] {
                detail::shape_builder b;
                const detail::node_ref value = expr::lower(b, e);
                const detail::node_ref i = expr::lower(b, index_);
                if (expr::is_float_type(b.type_of(i))) expr::reject_float_index("scatter");
                return b.finish_view_assignment(value, dtype_v<T>, i, true);
            },
            e, index_);
        detail::statement_recorder recorder(*detail::context_of(*target_->buffer()));
        expr::bind(recorder, e);
        expr::bind(recorder, index_);
        const std::uint64_t n = target_->size();
        recorder.scalar_slot(&n, sizeof n);
        recorder.vector_slot(target_->buffer());
        recorder.commit_view_assignment(shape, target_->buffer(), length);
        return *this;
    }

private:
    // The number of elements scattered: the index's length where it names a vector, else the
    // value's, else the target's (`loom::scatter(y, n - 1 - loom::index()) = x` reverses x into y).
    template <class E> std::uint64_t statement_length(const E& e) const {
        const expr::first_operand_t index = expr::first_operand(index_);
        if (index.buffer) return index.length;
        if constexpr (expr::is_expression_v<E> || expr::is_operand_object<E>::value) {
            const expr::first_operand_t value = expr::first_operand(e);
            if (value.buffer) return value.length;
        }
        return target_->size();
    }

    vector<T>* target_;
    I index_;
};

template <class T, class I> auto scatter(vector<T>& y, const I& idx) {
    return scatter_target<T, decltype(expr::index_operand(idx))>(y, expr::index_operand(idx));
}

// [first, last) of one device vector into another from `out` (or the same one, overlapping or
// not): one statement, no host round trip.
template <class V, class U> detail::vector_iterator<vector<U>>
copy(detail::vector_iterator<V> first, detail::vector_iterator<V> last, detail::vector_iterator<vector<U>> out) {
    detail::check_range(first, last);
    const std::size_t n = std::size_t(last - first);
    if (n == 0) return out;
    if (!out.owner() || out.position() + n > out.owner()->size())
        throw error("loom::copy: " + std::to_string(n) + " elements do not fit from position " +
                    std::to_string(out.position()) + " of a vector of " +
                    std::to_string(out.owner() ? out.owner()->size() : 0) + " elements");
    using T = typename detail::vector_iterator<V>::value_type;
    // Read only: the view of the source is never assigned to.
    vector<T>& source = const_cast<vector<T>&>(*first.owner());
    out.owner()->slice(out.position(), n) = source.slice(first.position(), n);
    return out + std::ptrdiff_t(n);
}

} // namespace loom
