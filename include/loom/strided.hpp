// A 2-D strided view of a vector (VexCL's slicer and gslice): rows x cols elements, element
// (i, j) at start + i * row_stride + j * col_stride, read and assigned in place.
//
//   auto sub = loom::strided(x, 5, 3, 4, 10, 1);   // rows 0..2 of a 10-wide grid, columns 5..8
//   y = loom::sin(sub) * 2.0f;                      // a read: y has 12 elements (row-major)
//   loom::strided(x, 0, 3, 4, 10, 2) = sub + 1.0f;  // a write: the other elements stay
//   M = loom::strided(x, 0, rows, cols, 1, rows);   // a column-major vector as a matrix
//
// A view is a 2-D operand of matrix statements (rows x cols) and, in vector statements and
// reductions, rows * cols elements in row-major order. Strides may be negative or zero (a
// broadcast along that axis, readable only); every element must lie inside the vector, checked
// when the view is made (loom::error naming the corner outside). A read is a gather for fusion
// (docs/views.md); a write ends its kernel as a view write does, and a value that reads the
// vector it writes is computed into a temporary first.
#pragma once

#include <cstdint>
#include <string>

#include "loom/matrix.hpp"
#include "loom/view.hpp"

namespace loom {

template <class T> class strided_view {
public:
    using value_type = T;

    strided_view(vector<T>& source, std::int64_t start, std::uint64_t rows, std::uint64_t cols, std::int64_t row_stride,
                 std::int64_t col_stride)
        : source_(source.claim()), start_(start), row_stride_(row_stride), col_stride_(col_stride), rows_(rows),
          cols_(cols) {
        check(source.size());
    }
    strided_view(const strided_view&) = default;

    std::uint64_t rows() const { return rows_; }
    std::uint64_t cols() const { return cols_; }
    std::uint64_t size() const { return rows_ * cols_; }

    // view = 2-D expression (of rows() x cols()), vector of size() elements, host scalar or
    // loom::scalar. Every element the view names is written once: a view that names one element
    // twice (a zero stride) cannot be assigned to.
    template <class E> strided_view& operator=(const E& e) { return assign(e); }
    strided_view& operator=(const strided_view& other) { return assign(other); }
    LOOM_COMPOUND_ASSIGNMENTS(strided_view)

    // Throws what `*this = value` would throw, and records nothing (loom::tie checks every
    // output before it writes the first).
    template <class E> void check_assignment(const E& e) {
        check_writable();
        check_extents(e);
        record(e, statement_use::check_only);
    }
    const detail::buffer_ptr& buffer() const { return source_.get(); }

    // ---- as an expression terminal (see expr/lower.hpp) ----
    // Element k of the view, in row-major order, is row k / cols and column k % cols: from the
    // element index, so the view reads alike in vector and matrix statements.
    detail::node_ref lower(detail::shape_builder& b) const {
        const std::uint32_t source = b.gather_source(dtype_v<T>);
        const detail::node_ref k = expr::signed_index(b);
        const detail::node_ref cols = b.operand_slot(dtype::i64);
        const detail::node_ref row = b.apply(opcode::div, k, cols);
        const detail::node_ref col = b.apply(opcode::sub, k, b.apply(opcode::mul, row, cols));
        return b.gather(source, position(b, row, col), false); // bounds checked on the host
    }
    void bind(detail::statement_recorder& r) const {
        r.vector_slot(source_.get());
        const std::int64_t cols = std::int64_t(cols_);
        r.scalar_slot(&cols, sizeof cols);
        bind_position(r);
        r.view_extent(size());
    }
    expr::first_operand_t operand() const { return {&source_.get(), size()}; }
    bool reads(const detail::buffer* b) const { return source_.get().get() == b; }
    void extents(expr::extent_check& c) const { c.term({rows_, cols_}); }

private:
    // start + row * row_stride + col * col_stride, its three values from scalar slots.
    static detail::node_ref position(detail::shape_builder& b, detail::node_ref row, detail::node_ref col) {
        const detail::node_ref start = b.operand_slot(dtype::i64), row_stride = b.operand_slot(dtype::i64),
                               col_stride = b.operand_slot(dtype::i64);
        return b.apply(
            opcode::add, start,
            b.apply(opcode::add, b.apply(opcode::mul, row, row_stride), b.apply(opcode::mul, col, col_stride)));
    }
    void bind_position(detail::statement_recorder& r) const {
        r.scalar_slot(&start_, sizeof start_);
        r.scalar_slot(&row_stride_, sizeof row_stride_);
        r.scalar_slot(&col_stride_, sizeof col_stride_);
    }

    template <class E> void check_extents(const E& e) const {
        expr::extent_check c("a strided view assignment");
        c.target({rows_, cols_});
        expr::collect_extents(e, c);
        c.finish();
    }
    void check_writable() const {
        if (size() > 1 && ((rows_ > 1 && row_stride_ == 0) || (cols_ > 1 && col_stride_ == 0)))
            throw error("loom::strided: a view with a zero stride names one element several times, so it can be read "
                        "but not assigned to");
    }

    template <class E> strided_view& assign(const E& e) {
        check_writable();
        check_extents(e);
        if constexpr (expr::is_expression_v<E> || expr::is_operand_object<E>::value) {
            if (expr::reads_buffer(e, source_.get().get())) {
                // The value reads the vector this view writes: compute it whole first.
                matrix<T> value(context(detail::shared_context_of(*source_.get())), rows_, cols_);
                value = e;
                record(value, statement_use::commit);
                return *this;
            }
        }
        record(e, statement_use::commit);
        return *this;
    }

    enum class statement_use { commit, check_only };
    // The store runs as a matrix block's: over rows x cols elements whose positions (in the
    // value and in the index) are the view's own; the column count is bound last.
    template <class E> void record(const E& e, statement_use use) {
        if (size() == 0) return;
        const detail::shape* const shape = expr::lowered_once(
            [&] {
                detail::shape_builder b;
                const detail::node_ref value = expr::lower(b, e);
                const detail::node_ref row = b.cast(dtype::i64, b.position(0)), col = b.cast(dtype::i64, b.position(1));
                return b.finish_block_assignment(value, dtype_v<T>, position(b, row, col));
            },
            e);
        detail::statement_recorder recorder(*detail::context_of(*source_.get()));
        expr::bind(recorder, e);
        bind_position(recorder);
        recorder.vector_slot(source_.get());
        recorder.scalar_slot(&cols_, sizeof cols_); // the view's width, for its positions
        if (use == statement_use::commit)
            recorder.commit_view_assignment(shape, source_.get(), size());
        else
            recorder.check_statement(shape, size());
    }

    // Every element inside [0, n): the smallest and largest positions are at corners.
    void check(std::uint64_t n) const {
        if (!source_.get())
            throw error("loom::strided: a view of an empty loom::vector; construct the vector with a context and a "
                        "size first");
        if (rows_ == 0 || cols_ == 0) return;
        std::int64_t row_span = 0, col_span = 0, low = 0, high = 0;
        const bool overflow = __builtin_mul_overflow(std::int64_t(rows_ - 1), row_stride_, &row_span) ||
                              __builtin_mul_overflow(std::int64_t(cols_ - 1), col_stride_, &col_span) ||
                              rows_ - 1 > std::uint64_t(INT64_MAX) || cols_ - 1 > std::uint64_t(INT64_MAX) ||
                              __builtin_add_overflow(start_, std::min<std::int64_t>(row_span, 0), &low) ||
                              __builtin_add_overflow(low, std::min<std::int64_t>(col_span, 0), &low) ||
                              __builtin_add_overflow(start_, std::max<std::int64_t>(row_span, 0), &high) ||
                              __builtin_add_overflow(high, std::max<std::int64_t>(col_span, 0), &high);
        if (overflow || low < 0 || high < 0 || std::uint64_t(high) >= n)
            throw error(
                "loom::strided: a view of " + std::to_string(rows_) + " x " + std::to_string(cols_) +
                " elements from " + std::to_string(start_) + " with strides " + std::to_string(row_stride_) + " and " +
                std::to_string(col_stride_) + " reaches " +
                (overflow ? std::string("past the 64-bit range") : "element " + std::to_string(low < 0 ? low : high)) +
                ", outside a vector of " + std::to_string(n) + " elements");
    }

    expr::counted_buffer source_;
    std::int64_t start_, row_stride_, col_stride_;
    std::uint64_t rows_, cols_;
};

namespace expr {
template <class T> struct is_view<loom::strided_view<T>> : std::true_type {};
template <class T> struct terminal_value_type<loom::strided_view<T>> { using type = T; };
} // namespace expr

// rows x cols elements of x, element (i, j) at start + i * row_stride + j * col_stride.
template <class T> strided_view<T> strided(vector<T>& x, std::int64_t start, std::uint64_t rows, std::uint64_t cols,
                                           std::int64_t row_stride, std::int64_t col_stride) {
    return strided_view<T>(x, start, rows, cols, row_stride, col_stride);
}

} // namespace loom
