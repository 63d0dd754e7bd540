// loom::matrix<T>: rows x cols elements in row-major order on a device; its row and column views,
// its blocks (operands read in place, and targets) and its transpose; reshape, flatten, grid and
// copy. Part of loom/matrix.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "loom/expr/extent_check.hpp"
#include "loom/matrix/terminal.hpp"
#include "loom/stencil.hpp"
#include "loom/vector.hpp"

namespace loom {

namespace expr {

// A matrix read in place at other positions: element (i, j) reads source(first_row + i,
// first_col + j), a block, or source(j, i) when Transposed. A read at other indices than the
// element's own, as a broadcast: the fusion pass treats it as a gather. The window's bounds
// were checked on the host; its origin and the source's width are kernel arguments, so another
// block of the same shape type compiles nothing.
template <class T, bool Transposed> struct matrix_window {
    matrix_ref<T> source;
    std::uint64_t first_row, first_col, rows, cols; // rows x cols: the window's own shape

    // How an expression holds a writable block (loom::matrix_block): as its window.
    template <class Block> static matrix_window of(const Block& b) { return b.window(); }

    static detail::node_ref lower(detail::shape_builder& b) {
        const std::uint32_t slot = b.gather_source(dtype_v<T>);
        const detail::node_ref r0 = b.operand_slot(dtype::u64), c0 = b.operand_slot(dtype::u64),
                               width = b.operand_slot(dtype::u64);
        const detail::node_ref row = b.apply(opcode::add, r0, b.position(Transposed ? 1 : 0));
        const detail::node_ref col = b.apply(opcode::add, c0, b.position(Transposed ? 0 : 1));
        return b.gather(slot, b.apply(opcode::add, b.apply(opcode::mul, row, width), col), false);
    }
    void bind(detail::statement_recorder& r) const {
        r.vector_slot(source.memory.get());
        r.scalar_slot(&first_row, sizeof first_row);
        r.scalar_slot(&first_col, sizeof first_col);
        r.scalar_slot(&source.cols, sizeof source.cols);
    }
    first_operand_t operand() const { return {source.memory.get() ? &source.memory.get() : nullptr, rows * cols}; }
    bool reads(const detail::buffer* b) const { return source.reads(b); }
    void extents(extent_check& c) const { c.term({rows, cols}); }
};
template <class T, bool Transposed> struct terminal_value_type<matrix_window<T, Transposed>> { using type = T; };

} // namespace expr

// The transpose of A, read in place (no copy): element (i, j) is A(j, i), a cols x rows
// operand of 2-D expressions. `B = loom::transpose(A);` and `A = loom::transpose(A)` (square:
// computed into a temporary first, as any statement reading its target elsewhere) both work.
template <class T> auto transpose(const matrix<T>& a) {
    return expr::make_terminal(expr::matrix_window<T, true>{expr::matrix_ref<T>::of(a), 0, 0, a.cols(), a.rows()});
}

// A rows x cols block of a matrix, from (first_row, first_col) (loom::matrix::block): read in
// place as an operand of 2-D expressions, and assigned to, a statement over the block's elements
// that writes them and leaves the rest of the matrix as it was. Its positions (index<0>(),
// index<1>()) are the block's own.
template <class T> class matrix_block {
public:
    using value_type = T;

    explicit matrix_block(expr::matrix_window<T, false> w) : window_(std::move(w)) {}
    matrix_block(const matrix_block&) = default;

    std::size_t rows() const { return window_.rows; }
    std::size_t cols() const { return window_.cols; }

    // block = 2-D expression (of rows() x cols()), matrix, block, host scalar or loom::scalar.
    template <class E> matrix_block& operator=(const E& e) { return assign(e); }
    matrix_block& operator=(const matrix_block& other) { return assign(other); }
    LOOM_COMPOUND_ASSIGNMENTS(matrix_block)
    // Throws what `*this = value` would throw, and records nothing (loom::tie checks every
    // output before it writes the first).
    template <class E> void check_assignment(const E& e) {
        check_extents(e);
        record(e, statement_use::check_only);
    }
    // The matrix's storage this block writes, and its context.
    const detail::buffer_ptr& buffer() const { return window_.source.memory.get(); }

    // ---- as an expression terminal: its window (expressions hold it so) ----
    const expr::matrix_window<T, false>& window() const { return window_; }
    static detail::node_ref lower(detail::shape_builder& b) { return expr::matrix_window<T, false>::lower(b); }
    void bind(detail::statement_recorder& r) const { window_.bind(r); }
    expr::first_operand_t operand() const { return window_.operand(); }
    bool reads(const detail::buffer* b) const { return window_.reads(b); }
    void extents(expr::extent_check& c) const { window_.extents(c); }

private:
    template <class E> void check_extents(const E& e) const {
        expr::extent_check c("a matrix block assignment");
        c.target({window_.rows, window_.cols});
        expr::collect_extents(e, c);
        c.finish();
    }
    template <class E> matrix_block& assign(const E& e) {
        const detail::buffer_ptr& target = window_.source.memory.get();
        check_extents(e);
        if constexpr (expr::is_expression_v<E> || expr::is_operand_object<E>::value) {
            if (expr::reads_buffer(e, target.get())) {
                // The value reads the matrix this block writes: compute it whole first.
                matrix<T> value(context(detail::shared_context_of(*target)), window_.rows, window_.cols);
                value = e;
                return store(value);
            }
        }
        return store(e);
    }

    // Element (i, j) of the block is element (first_row + i) * width + first_col + j of the matrix.
    static detail::node_ref index(detail::shape_builder& b) {
        const detail::node_ref r0 = b.operand_slot(dtype::u64), c0 = b.operand_slot(dtype::u64),
                               width = b.operand_slot(dtype::u64);
        const detail::node_ref row = b.apply(opcode::add, r0, b.position(0));
        return b.apply(opcode::add, b.apply(opcode::mul, row, width), b.apply(opcode::add, c0, b.position(1)));
    }

    template <class E> matrix_block& store(const E& e) {
        record(e, statement_use::commit);
        return *this;
    }
    enum class statement_use { commit, check_only };
    template <class E> void record(const E& e, statement_use use) {
        if (window_.rows == 0 || window_.cols == 0) return;
        const detail::shape* const shape = expr::lowered_once(
            [&] {
                detail::shape_builder b;
                const detail::node_ref value = expr::lower(b, e);
                return b.finish_block_assignment(value, dtype_v<T>, index(b));
            },
            e);
        const detail::buffer_ptr& target = window_.source.memory.get();
        detail::statement_recorder recorder(*detail::context_of(*target));
        expr::bind(recorder, e);
        recorder.scalar_slot(&window_.first_row, sizeof window_.first_row);
        recorder.scalar_slot(&window_.first_col, sizeof window_.first_col);
        recorder.scalar_slot(&window_.source.cols, sizeof window_.source.cols);
        recorder.vector_slot(target);
        recorder.scalar_slot(&window_.cols, sizeof window_.cols); // the block's width, for its positions
        const detail::written_span span{std::int64_t(window_.first_row * window_.source.cols + window_.first_col),
                                        std::int64_t(window_.source.cols), window_.rows * window_.cols, window_.cols};
        if (use == statement_use::commit)
            recorder.commit_view_assignment(shape, target, window_.rows * window_.cols, &span);
        else
            recorder.check_statement(shape, window_.rows * window_.cols);
    }

    expr::matrix_window<T, false> window_;
};

namespace expr {
template <class T> struct is_device_object<loom::matrix_block<T>> : std::true_type {};
template <class T> struct terminal_value_type<loom::matrix_block<T>> { using type = T; };
template <class T> struct holder_of<loom::matrix_block<T>> { using type = matrix_window<T, false>; };
} // namespace expr

// rows x cols elements on a device, row-major: element (i, j) is element i * cols + j of its
// storage, a loom::vector of rows * cols elements.
template <class T> class matrix {
    static_assert(is_element_type_v<T>, "loom::matrix<T>: T must be float, double or an integer type of 8 to 64 bits");

public:
    using value_type = T;

    // An empty matrix with no device; assign another matrix to give it one.
    matrix() = default;

    // rows x cols elements, zero-initialised (the fill is a statement, fused into what follows).
    matrix(const context& ctx, std::size_t rows, std::size_t cols) : matrix(ctx, rows, cols, T(0)) {}
    matrix(const context& ctx, std::size_t rows, std::size_t cols, T value)
        : storage_(ctx, elements(rows, cols), value), rows_(rows), cols_(cols) {}
    // Row-major host data: element (i, j) is host[i * cols + j].
    matrix(const context& ctx, std::size_t rows, std::size_t cols, const std::vector<T>& host)
        : storage_(ctx, checked_host(rows, cols, host.size(), "host vector"), host.data()), rows_(rows), cols_(cols) {}
    // (A template, so that `matrix(ctx, r, c, 0)` stays a fill.)
    template <class P, std::enable_if_t<std::is_same_v<P, const T*> || std::is_same_v<P, T*>, int> = 0>
    matrix(const context& ctx, std::size_t rows, std::size_t cols, P host)
        : storage_(ctx, elements(rows, cols), host), rows_(rows), cols_(cols) {}

    // The value of a 2-D expression: its context is its first vector's, its shape the one its
    // matrices and broadcasts give.
    template <class E, std::enable_if_t<expr::is_expression_v<E>, int> = 0> matrix(const E& e) {
        shaped_like(e);
        assign(e);
    }
    // A temporary result that alone holds its memory (`loom::matrix<float> m = loom::sum(a,
    // loom::axis<2>);`): the matrix takes that memory where the context allows it, as
    // loom::vector does (detail::adopt_memory), and copies it otherwise.
    template <class E, std::enable_if_t<expr::is_temporary_of<E, expr::matrix_ref<T>>::value, int> = 0> matrix(E&& e) {
        expr::matrix_ref<T>& result = expr::proto::value(e);
        rows_ = result.rows;
        cols_ = result.cols;
        // The result's claim moved into a vector terminal, held here alone, which the storage
        // takes as loom::vector takes one (no fill of its own first, which would be pending).
        auto elements = expr::make_terminal(expr::vector_ref<T>(std::move(result.memory), rows_ * cols_));
        storage_ = vector<T>(std::move(elements));
    }

    // The value of a block (its shape).
    template <class U> matrix(const matrix_block<U>& b) : matrix(expr::make_terminal(b.window())) {}

    // A device copy: a statement, so it fuses.
    matrix(const matrix& other) = default;
    matrix(matrix&& other) noexcept : storage_(std::move(other.storage_)), rows_(other.rows_), cols_(other.cols_) {
        other.rows_ = other.cols_ = 0;
    }

    // Takes the other's shape, as std::vector takes its length.
    matrix& operator=(const matrix& other) {
        if (this != &other) {
            storage_ = other.storage_;
            rows_ = other.rows_;
            cols_ = other.cols_;
        }
        return *this;
    }
    matrix& operator=(matrix&& other) noexcept {
        if (this != &other) {
            storage_ = std::move(other.storage_);
            rows_ = other.rows_;
            cols_ = other.cols_;
            other.rows_ = other.cols_ = 0;
        }
        return *this;
    }

    // A = 2-D expression; A = another matrix of another type (same shape); A = host scalar or
    // loom::scalar (every element). The shapes are checked now (loom::length_error).
    template <class E, std::enable_if_t<expr::is_expression_v<E>, int> = 0> matrix& operator=(const E& e) {
        return assign(e);
    }
    // A = a temporary result of A's shape that alone holds its memory: taken, as above.
    template <class E, std::enable_if_t<expr::is_temporary_of<E, expr::matrix_ref<T>>::value, int> = 0>
    matrix& operator=(E&& e) {
        const expr::matrix_ref<T>& result = expr::proto::value(e);
        if (result.rows == rows_ && result.cols == cols_ && take(e)) return *this;
        return assign(e);
    }
    template <class U> matrix& operator=(const matrix<U>& other) { return assign(other); }
    template <class U> matrix& operator=(const matrix_block<U>& b) { return assign(b); }
    // A = a view of rows * cols elements (a slice, a loom::strided view of A's shape).
    template <class V, std::enable_if_t<expr::is_view<V>::value, int> = 0> matrix& operator=(const V& view) {
        return assign(view);
    }
    template <class U> matrix& operator=(const scalar<U>& s) { return assign(s); }
    template <class S, std::enable_if_t<std::is_arithmetic_v<S>, int> = 0> matrix& operator=(S value) {
        return assign(value);
    }

    // A += e, A -= e, ...: the statement A = A op e.
    LOOM_COMPOUND_ASSIGNMENTS(matrix)

    std::size_t rows() const { return rows_; }
    std::size_t cols() const { return cols_; }
    std::size_t size() const { return storage_.size(); } // rows * cols
    bool empty() const { return storage_.empty(); }

    // Row-major: element (i, j) at i * cols() + j.
    std::vector<T> to_host() const { return storage_.to_host(); }
    // The elements as a vector of rows * cols (the same device memory, no copy), for 1-D
    // operations: loom::sum(A.elements()) is the sum of every element.
    const vector<T>& elements() const { return storage_; }

    // Row i and column j as views (loom/view.hpp) that read and assign like vectors of cols()
    // and rows() elements; a row is contiguous, a column strided. Out of range: loom::error.
    vector_view<T> row(std::size_t i) {
        if (i >= rows_) throw error("loom: row " + std::to_string(i) + " is out of range for a " + shape() + " matrix");
        return storage_.slice(i * cols_, cols_);
    }
    vector_view<T> col(std::size_t j) {
        if (j >= cols_)
            throw error("loom: column " + std::to_string(j) + " is out of range for a " + shape() + " matrix");
        return storage_.slice(j, rows_, std::ptrdiff_t(cols_));
    }

    // The rows x cols block from (first_row, first_col), read in place: an operand of 2-D
    // expressions (C = A.block(0, 0, 8, 8) * 2.0f), and of a non-const matrix also a target
    // (A.block(0, 0, 8, 8) = B * 2.0f; loom::matrix_block). A block reaching outside: loom::error.
    auto block(std::size_t first_row, std::size_t first_col, std::size_t rows, std::size_t cols) const {
        return expr::make_terminal(window(first_row, first_col, rows, cols));
    }
    matrix_block<T> block(std::size_t first_row, std::size_t first_col, std::size_t rows, std::size_t cols) {
        return matrix_block<T>(window(first_row, first_col, rows, cols));
    }

    // One element through the host (flushes and moves one element: slow, for a few elements).
    typename vector<T>::element_proxy operator()(std::size_t i, std::size_t j) { return storage_[at(i, j)]; }
    T operator()(std::size_t i, std::size_t j) const { return storage_[at(i, j)]; }

    // ---- as an expression terminal (see expr/lower.hpp) ----
    static detail::node_ref lower(detail::shape_builder& b) { return b.vector_slot(dtype_v<T>); }
    void bind(detail::statement_recorder& r) const { r.vector_slot(storage_.buffer()); }
    expr::first_operand_t operand() const { return {storage_.buffer() ? &storage_.buffer() : nullptr, size()}; }
    bool reads(const detail::buffer* b) const { return storage_.buffer().get() == b; }
    void extents(expr::extent_check& c) const { c.term({rows_, cols_}); }
    const detail::buffer_ptr& buffer() const { return storage_.buffer(); }
    const expr::shared_claim& claim() const { return storage_.claim(); } // how expressions hold it

    // Host to device (loom::copy): host.size() must be rows * cols.
    void upload(const std::vector<T>& host) {
        checked_host(rows_, cols_, host.size(), "host vector");
        copy(host, storage_);
    }

    // loom::reshape, loom::flatten: a matrix or vector over the same device buffer, no copy.
    static matrix over(const vector<T>& elements, std::size_t rows, std::size_t cols) {
        if (elements.size() != matrix::elements(rows, cols))
            throw length_error("loom::reshape: a vector of " + std::to_string(elements.size()) + " elements is not a " +
                               std::to_string(rows) + " x " + std::to_string(cols) + " matrix (" +
                               std::to_string(rows * cols) + " elements); the element counts must match");
        matrix m;
        m.storage_ = elements.share();
        m.rows_ = rows;
        m.cols_ = cols;
        return m;
    }
    vector<T> shared_elements() const { return storage_.share(); }

private:
    std::string shape() const { return std::to_string(rows_) + " x " + std::to_string(cols_); }

    expr::matrix_window<T, false> window(std::size_t first_row, std::size_t first_col, std::size_t rows,
                                         std::size_t cols) const {
        if (first_row > rows_ || rows > rows_ - first_row || first_col > cols_ || cols > cols_ - first_col)
            throw error("loom: a " + std::to_string(rows) + " x " + std::to_string(cols) + " block from (" +
                        std::to_string(first_row) + ", " + std::to_string(first_col) + ") reaches outside a " +
                        shape() + " matrix");
        return {expr::matrix_ref<T>::of(*this), first_row, first_col, rows, cols};
    }

    static std::size_t elements(std::size_t rows, std::size_t cols) {
        if (rows != 0 && cols > ~std::size_t(0) / rows)
            throw error("loom: a matrix of " + std::to_string(rows) + " x " + std::to_string(cols) +
                        " elements does not fit in memory's index range");
        return rows * cols;
    }
    static std::size_t checked_host(std::size_t rows, std::size_t cols, std::size_t n, const char* what) {
        if (n != elements(rows, cols))
            throw length_error("loom: a " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix takes " +
                               std::to_string(rows * cols) + " elements, and the " + what + " has " +
                               std::to_string(n));
        return n;
    }
    std::size_t at(std::size_t i, std::size_t j) const {
        if (i >= rows_ || j >= cols_)
            throw error("loom: element (" + std::to_string(i) + ", " + std::to_string(j) + ") is out of range for a " +
                        shape() + " matrix");
        return i * cols_ + j;
    }

    // The shape and context of 2-D expression e, and new storage for it.
    template <class E> void shaped_like(const E& e) {
        expr::extent_check c("a matrix built from an expression");
        expr::collect_extents(e, c);
        c.finish();
        const expr::first_operand_t first = expr::first_operand(e);
        if (!first.buffer)
            throw error("loom: a matrix built from an expression takes its context from the expression's matrices "
                        "and vectors, and these are empty (no context)");
        const context ctx(detail::shared_context_of(**first.buffer));
        storage_ = vector<T>(ctx, c.extent(0) * c.extent(1));
        rows_ = c.extent(0);
        cols_ = c.extent(1);
    }
    // Whether this matrix took the memory of temporary result e (detail::adopt_memory).
    template <class E> bool take(const E& e) {
        const expr::counted_buffer& result = expr::proto::value(e).memory;
        return storage_.buffer() && result.sole_holder() && detail::adopt_memory(storage_.buffer(), result.get());
    }

    template <class E> matrix& assign(const E& e) {
        if (!storage_.buffer())
            throw error("loom: assignment to an empty loom::matrix; construct it with a context, rows and columns "
                        "first");
        expr::extent_check c("a matrix assignment");
        c.target({rows_, cols_});
        expr::collect_extents(e, c);
        c.finish();
        // Lowered once per (expression type, element type): later statements reuse the shape.
        const expr::matrix_statement& statement =
            expr::lowered_once([&] { return expr::matrix_statement_of<T>(e); }, e);
        detail::statement_recorder recorder(*detail::context_of(*storage_.buffer()));
        expr::bind(recorder, e);
        if (statement.takes_columns) {
            const std::uint64_t cols = cols_;
            recorder.scalar_slot(&cols, sizeof cols);
        }
        recorder.commit_assignment(statement.shape, storage_.buffer());
        return *this;
    }

    vector<T> storage_;
    std::size_t rows_ = 0, cols_ = 0;
};

// x's elements as a rows x cols matrix (row-major), without a copy: the two name one device
// buffer, so what either writes the other reads, in statement order. rows * cols must be
// x.size() (loom::length_error otherwise). The same for another shape of a matrix's elements.
template <class T> matrix<T> reshape(const vector<T>& x, std::size_t rows, std::size_t cols) {
    return matrix<T>::over(x, rows, cols);
}
template <class T> matrix<T> reshape(const matrix<T>& m, std::size_t rows, std::size_t cols) {
    return matrix<T>::over(m.elements(), rows, cols);
}
// A matrix's elements, row-major, as a vector over the same device buffer (no copy).
template <class T> vector<T> flatten(const matrix<T>& m) { return m.shared_elements(); }

// The matrix as a 2-D grid for stencil reads in matrix statements: loom::at(g, di, dj) reads
// element (i + dj, j + di), di along a row and dj down a column (loom/stencil.hpp).
template <class T> auto grid(const matrix<T>& m) { return grid(m.elements(), m.cols(), m.rows()); }

// Device to host, row-major.
template <class T> void copy(const matrix<T>& m, std::vector<T>& host) { copy(m.elements(), host); }
// Host to device: host.size() must be rows * cols (loom::length_error naming the shape).
template <class T> void copy(const std::vector<T>& host, matrix<T>& m) { m.upload(host); }

} // namespace loom
