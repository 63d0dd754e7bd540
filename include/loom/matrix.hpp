// Matrices: loom::matrix<T>, rows x cols elements in row-major order on a device, and 2-D
// expressions over them.
//
//   loom::matrix<float> A(ctx, rows, cols, host), C(ctx, rows, cols);
//   C = A * 2.0f + B;                                         // element-wise, fused like vectors
//   C = loom::cast<float>(loom::index<0>() * 10 + loom::index<1>());      // row and column
//   C = A * loom::as_row(x);                                  // (i, j) = A(i, j) * x[j]
//   loom::vector<float> y = loom::sum(A * loom::as_row(x), loom::axis<1>); // y = A x, one kernel
//   A.row(2) = x * 2.0f;                                      // row and column views, as slices
//
// A matrix statement is a vector statement of rows * cols elements: it fuses with the vector
// statements around it, and index<0>/index<1> cost a 64-bit division per element there. A
// reduction along an axis runs when called, as one kernel that computes its input per element
// and folds it at once (no N x N temporary), with the row and column as loop counters; it
// returns a 1-D expression over its result. docs/matrices.md.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "loom/reduce.hpp"
#include "loom/stencil.hpp"
#include "loom/vector.hpp"

namespace loom {

template <class T> class matrix;

namespace expr {

// A matrix is a device object like a vector, and an expression holds it as it holds a vector:
// by its buffer's claim, with its shape (matrix_ref, below).
template <class T> struct is_device_object<loom::matrix<T>> : std::true_type {};
template <class T> struct terminal_value_type<loom::matrix<T>> { using type = T; };
template <class T> struct matrix_ref;
template <class T> struct holder_of<loom::matrix<T>> { using type = matrix_ref<T>; };

// ---- shapes: the rows and columns a 2-D statement's operands give ------------------------

// Checked as operands are met: a matrix gives both extents, loom::as_row(x) the columns,
// loom::as_column(x) the rows, and any other operand (a vector, a view) its length, which must
// be rows * cols. A disagreement is a loom::length_error naming both shapes. The messages are
// written only when one is thrown: recording a statement formats nothing.
class extent_check {
public:
    static constexpr std::uint64_t unknown = ~std::uint64_t(0);

    explicit extent_check(const char* statement) : statement_(statement) {}

    void target(std::uint64_t rows, std::uint64_t cols) { both({source::target, rows, cols}); }
    void matrix(std::uint64_t rows, std::uint64_t cols) { both({source::matrix, rows, cols}); }
    void row_broadcast(std::uint64_t n) { columns({source::row_broadcast, unknown, n}); }
    void column_broadcast(std::uint64_t n) { rows({source::column_broadcast, n, unknown}); }
    // A 1-D operand of n elements: a vector, a view, or another (a gather, a stencil read).
    enum class operand { vector, view, other };
    void elements(std::uint64_t n, operand what) {
        const source s{what == operand::vector ? source::flat_vector
                       : what == operand::view ? source::flat_view
                                               : source::flat_other,
                       n, 0};
        if (flat_.kind == source::none)
            flat_ = s;
        else if (flat_.rows != n)
            mismatch(flat_, s, "lengths");
    }

    // Throws unless the rows and columns are known and every other operand has rows * cols
    // elements.
    void finish() const {
        if (rows_.kind == source::none || cols_.kind == source::none)
            throw error(std::string("loom: ") + statement_ +
                        " needs the rows and columns of its expression, and it names " +
                        (rows_.kind == source::none && cols_.kind == source::none
                             ? "neither (use a loom::matrix, or broadcast vectors with loom::as_row and "
                               "loom::as_column)"
                         : rows_.kind == source::none ? "no rows (add a loom::matrix or a loom::as_column)"
                                                      : "no columns (add a loom::matrix or a loom::as_row)"));
        const std::uint64_t r = rows_.rows, c = cols_.cols;
        if (r != 0 && c > ~std::uint64_t(0) / r)
            throw error(std::string("loom: ") + statement_ + ": " + std::to_string(r) + " x " + std::to_string(c) +
                        " elements do not fit in 64 bits");
        if (flat_.kind != source::none && flat_.rows != r * c)
            throw length_error(std::string("loom: shape mismatch in ") + statement_ + ": " + describe(flat_) +
                               " in an expression over " + std::to_string(r) + " x " + std::to_string(c) + " (" +
                               std::to_string(r * c) + " elements, from " + describe(rows_) +
                               "); broadcast a vector along the rows or columns with loom::as_row or loom::as_column");
    }
    std::uint64_t rows() const { return rows_.rows; }
    std::uint64_t cols() const { return cols_.cols; }

private:
    struct source {
        enum kind_t : std::uint8_t {
            none,
            target,
            matrix,
            row_broadcast,
            column_broadcast,
            flat_vector,
            flat_view,
            flat_other
        };
        kind_t kind = none;
        std::uint64_t rows = 0, cols = 0; // flat: rows is the length
    };
    static std::string extent(std::uint64_t n) { return n == unknown ? "?" : std::to_string(n); }
    static std::string describe(const source& s) {
        const std::string shape = extent(s.rows) + " x " + extent(s.cols);
        switch (s.kind) {
        case source::target: return "the target, a " + shape + " matrix";
        case source::matrix: return "a " + shape + " matrix";
        case source::row_broadcast:
            return "loom::as_row of a vector of " + std::to_string(s.cols) + " elements (" + shape + ")";
        case source::column_broadcast:
            return "loom::as_column of a vector of " + std::to_string(s.rows) + " elements (" + shape + ")";
        case source::flat_vector: return "a vector of " + std::to_string(s.rows) + " elements";
        case source::flat_view: return "a view of " + std::to_string(s.rows) + " elements";
        case source::flat_other: return "an operand of " + std::to_string(s.rows) + " elements";
        case source::none: break;
        }
        return "?";
    }
    [[noreturn]] void mismatch(const source& a, const source& b, const char* what) const {
        throw length_error(std::string("loom: shape mismatch in ") + statement_ + ": " + describe(a) + " and " +
                           describe(b) + " differ in their " + what +
                           "; element-wise matrix expressions need equal shapes");
    }
    void rows(const source& s) {
        if (rows_.kind == source::none)
            rows_ = s;
        else if (rows_.rows != s.rows)
            mismatch(rows_, s, "rows");
    }
    void columns(const source& s) {
        if (cols_.kind == source::none)
            cols_ = s;
        else if (cols_.cols != s.cols)
            mismatch(cols_, s, "columns");
    }
    void both(const source& s) {
        rows(s);
        columns(s);
    }

    const char* statement_;
    source rows_, cols_, flat_;
};

// A terminal kind with 2-D extents offers `void extents(extent_check&) const`.
template <class T, class = void> struct has_extents : std::false_type {};
template <class T>
struct has_extents<T, std::void_t<decltype(std::declval<const T&>().extents(std::declval<extent_check&>()))>>
    : std::true_type {};

template <class E> void collect_extents(const E& e, extent_check& c);

template <class E, std::size_t... I>
void collect_children_extents(const E& e, extent_check& c, std::index_sequence<I...>) {
    (collect_extents(proto::child_c<I>(e), c), ...);
}

template <class E> void collect_extents(const E& e, extent_check& c) {
    if constexpr (!proto::is_expr<E>::value) {
        if constexpr (has_extents<E>::value) {
            e.extents(c);
        } else if constexpr (is_vector<E>::value) {
            c.elements(e.size(), extent_check::operand::vector);
        } else if constexpr (is_view<E>::value) {
            c.elements(e.size(), extent_check::operand::view);
        } else if constexpr (has_operand<E>::value) { // a gather or stencil read: its statement length
            const first_operand_t o = e.operand();
            if (o.buffer) c.elements(o.length, extent_check::operand::other);
        }
    } else if constexpr (std::is_same_v<typename proto::tag_of<E>::type, proto::tag::terminal>) {
        collect_extents(proto::value(e), c);
    } else {
        collect_children_extents(e, c, std::make_index_sequence<proto::arity_of<E>::value>{});
    }
}

// A matrix as an expression holds it: its buffer through the matrix's claim, rows and columns.
// Valid after the matrix is destroyed (it reads the values the matrix last held); a matrix
// assigned another shape or moved from later is not followed.
template <class T> struct matrix_ref {
    counted_buffer memory;
    std::uint64_t rows, cols;

    matrix_ref(counted_buffer m, std::uint64_t r, std::uint64_t c) : memory(std::move(m)), rows(r), cols(c) {}
    static matrix_ref of(const loom::matrix<T>& m) { return {counted_buffer(m.claim()), m.rows(), m.cols()}; }

    static detail::node_ref lower(detail::shape_builder& b) { return b.vector_slot(dtype_v<T>); }
    void bind(detail::statement_recorder& r) const { r.vector_slot(memory.get()); }
    first_operand_t operand() const { return {memory.get() ? &memory.get() : nullptr, rows * cols}; }
    bool reads(const detail::buffer* b) const { return memory.get().get() == b; }
    void extents(extent_check& c) const { c.matrix(rows, cols); }
};
template <class T> struct terminal_value_type<matrix_ref<T>> { using type = T; };

// ---- positions and broadcasts ---------------------------------------------------------------

// loom::index<Axis>(): the element's row (0) or column (1); in a 3-D expression its position
// along axis 0, 1 or 2 (loom/array3.hpp).
template <unsigned Axis> struct position {
    static detail::node_ref lower(detail::shape_builder& b) { return b.position(Axis); }
    void bind(detail::statement_recorder&) const {}
};
template <unsigned Axis> struct terminal_value_type<position<Axis>> { using type = std::uint64_t; };

// Whether an expression type is 3-D: it holds loom::index<2>() or a 3-D array (loom/array3.hpp
// marks its terminals). A reduction along an axis of one runs as loom/array3.hpp says.
template <class V> struct terminal_is_3d : std::false_type {};
template <> struct terminal_is_3d<position<2>> : std::true_type {};
template <class E, class = void> struct is_3d : terminal_is_3d<std::decay_t<E>> {};
template <class E, class I> struct children_3d;
template <class E, std::size_t... I> struct children_3d<E, std::index_sequence<I...>>
    : std::disjunction<is_3d<std::decay_t<typename proto::result_of::child_c<E, I>::type>>...> {};
template <class E, class Tag = typename proto::tag_of<E>::type> struct expression_is_3d
    : children_3d<E, std::make_index_sequence<proto::arity_of<E>::value>> {};
template <class E> struct expression_is_3d<E, proto::tag::terminal>
    : terminal_is_3d<std::decay_t<typename proto::result_of::value<const E&>::type>> {};
template <class E> struct is_3d<E, std::enable_if_t<proto::is_expr<E>::value>> : expression_is_3d<E> {};
template <class E> inline constexpr bool is_3d_v = is_3d<std::decay_t<E>>::value;

// A vector read at the element's position along Axis: its column (Axis 1: loom::as_row), its
// row (Axis 0: loom::as_column), or in a 3-D expression its position along axis 0, 1 or 2
// (loom::along). A read at another index than the element's own: the fusion pass treats it as
// a gather.
template <class T, unsigned Axis> struct broadcast_read {
    vector_ref<T> source;

    static detail::node_ref lower(detail::shape_builder& b) {
        const std::uint32_t slot = b.gather_source(dtype_v<T>);
        return b.gather(slot, b.position(Axis), false); // the extents were checked on the host
    }
    void bind(detail::statement_recorder& r) const { r.vector_slot(source.memory.get()); }
    first_operand_t operand() const { return source.operand(); }
    bool reads(const detail::buffer* b) const { return source.reads(b); }
    void extents(extent_check& c) const {
        if constexpr (Axis == 1)
            c.row_broadcast(source.size);
        else if constexpr (Axis == 0)
            c.column_broadcast(source.size);
        else
            throw error("loom: loom::along<2>(x) lays x along the third axis of a 3-D expression, and this "
                        "expression is 2-D; add a loom::array3 or use loom::along<0> or loom::along<1>");
    }
    // In a 3-D expression (loom/array3.hpp's extent_check3): x gives extent Axis.
    template <class Check3> void extents3(Check3& c) const { c.along(Axis, source.size); }
};
template <class T, unsigned Axis> struct terminal_value_type<broadcast_read<T, Axis>> { using type = T; };
template <class T> struct terminal_is_3d<broadcast_read<T, 2>> : std::true_type {};

// The shape of `matrix<T> = e`, built once per type pair, and whether the statement binds
// the column count last (it has positions).
struct matrix_statement {
    const detail::shape* shape = nullptr;
    bool takes_columns = false;
};
// The same for an array of `rank` axes (3: loom::array3, which binds its last two extents).
template <class T, class E> matrix_statement array_statement_of(const E& e, unsigned rank) {
    detail::shape_builder b;
    matrix_statement s;
    s.shape = b.finish_array_assignment(lower(b, e), dtype_v<T>, rank, s.takes_columns);
    return s;
}
template <class T, class E> matrix_statement matrix_statement_of(const E& e) { return array_statement_of<T>(e, 2); }

// The input of a reduction along an axis of the values of e... (one, or a tuple's), lowered in
// order into one shape, once per list of expression types.
template <class... E> const detail::shape* axis_input_shape(const E&... e) {
    return lowered_once(
        [&] {
            detail::shape_builder b;
            const detail::node_ref roots[] = {lower(b, e)...};
            return b.finish_axis_input(roots, unsigned(sizeof...(E)));
        },
        e...);
}

} // namespace expr

// The element's row (D = 0) or column (D = 1) in a 2-D expression, or its position along axis
// D = 0, 1 or 2 of a 3-D one (a loom::array3 statement), a std::uint64_t.
template <int D> auto index() {
    static_assert(D >= 0 && D <= 2,
                  "loom::index<D>(): D is 0 (the row) or 1 (the column), or 2 (the third axis of a 3-D array)");
    return expr::proto::make_expr<expr::proto::tag::terminal, expr::domain>(expr::position<unsigned(D)>{});
}

// x as a row repeated down every row of a 2-D expression: element (i, j) is x[j]; x gives the
// expression x.size() columns.
template <class T> auto as_row(const vector<T>& x) {
    return expr::proto::make_expr<expr::proto::tag::terminal, expr::domain>(
        expr::broadcast_read<T, 1>{expr::vector_ref<T>::of(x)});
}

// x as a column repeated across every column: element (i, j) is x[i]; x gives x.size() rows.
template <class T> auto as_column(const vector<T>& x) {
    return expr::proto::make_expr<expr::proto::tag::terminal, expr::domain>(
        expr::broadcast_read<T, 0>{expr::vector_ref<T>::of(x)});
}

// x laid along axis D of a multi-dimensional expression, repeated along the others: element
// (i0, i1) or (i0, i1, i2) is x[iD], and x gives the expression x.size() along D. In 2-D,
// along<0>(x) is loom::as_column(x) and along<1>(x) is loom::as_row(x); along<2>(x) makes the
// expression 3-D (loom/array3.hpp).
template <int D, class T> auto along(const vector<T>& x) {
    static_assert(D >= 0 && D <= 2, "loom::along<D>(x): D is the axis x lies along, 0, 1 or 2");
    return expr::proto::make_expr<expr::proto::tag::terminal, expr::domain>(
        expr::broadcast_read<T, unsigned(D)>{expr::vector_ref<T>::of(x)});
}

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
    void extents(extent_check& c) const { c.matrix(rows, cols); }
};
template <class T, bool Transposed> struct terminal_value_type<matrix_window<T, Transposed>> { using type = T; };

} // namespace expr

// The transpose of A, read in place (no copy): element (i, j) is A(j, i), a cols x rows
// operand of 2-D expressions. `B = loom::transpose(A);` and `A = loom::transpose(A)` (square:
// computed into a temporary first, as any statement reading its target elsewhere) both work.
template <class T> auto transpose(const matrix<T>& a) {
    return expr::proto::make_expr<expr::proto::tag::terminal, expr::domain>(
        expr::matrix_window<T, true>{expr::matrix_ref<T>::of(a), 0, 0, a.cols(), a.rows()});
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
        c.target(window_.rows, window_.cols);
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
        auto elements = expr::proto::make_expr<expr::proto::tag::terminal, expr::domain>(
            expr::vector_ref<T>(std::move(result.memory), rows_ * cols_));
        storage_ = vector<T>(std::move(elements));
    }

    // The value of a block (its shape).
    template <class U> matrix(const matrix_block<U>& b)
        : matrix(expr::proto::make_expr<expr::proto::tag::terminal, expr::domain>(b.window())) {}

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
        return expr::proto::make_expr<expr::proto::tag::terminal, expr::domain>(
            window(first_row, first_col, rows, cols));
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
    void extents(expr::extent_check& c) const { c.matrix(rows_, cols_); }
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
        storage_ = vector<T>(ctx, c.rows() * c.cols());
        rows_ = c.rows();
        cols_ = c.cols();
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
        c.target(rows_, cols_);
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

// ---- reductions along an axis -------------------------------------------------------------

namespace expr {

// The result of a reduction along an axis: a 1-D operand over the device memory the reduction
// wrote, which it owns (copies share it, counted as a vector's, so that a statement that writes
// it, the fill of a reduction over an empty axis, keeps its store). `y = loom::sum(A,
// loom::axis<1>)` gives y that memory where nothing else can see the exchange
// (loom::vector's operator= of a temporary, detail::adopt_memory), and is otherwise an
// ordinary statement (a copy into y's own memory, fused with what follows and guarded inside
// loom::loop_while); the result goes into larger expressions as any vector does.
template <class R> using axis_result = vector_ref<R>;

} // namespace expr

namespace detail {

// What the front end asks of the library; defined in src/skeleton/axis_reduce.cpp. The
// input's slots are the last ones recorded in the context's queue (by a statement_recorder
// that is never committed); the pending statements have run.
struct axis_reduce_call {
    const shape* input = nullptr;
    unsigned axis = 1;
    std::uint64_t rows = 0, cols = 0;
    // Per value of the input (one, or each of a tuple's): its operation and its output buffer.
    const skeleton_operation* ops = nullptr;
    const buffer_ptr* outputs = nullptr;
    std::size_t values = 1;
};
void run_axis_reduce(context_impl& ctx, const axis_reduce_call& call);

// `target = value` for a buffer of R: every element the value (the fold of nothing).
template <class R> void fill(context_impl& ctx, const buffer_ptr& target, R value) {
    static const shape* const s = expr::assignment_shape<R>(value);
    statement_recorder recorder(ctx);
    expr::bind(recorder, value);
    recorder.commit_assignment(s, target);
}

// The folds of the rows (Axis 1) or columns (Axis 0) of each of `inputs` with op, from its
// identity, all in one kernel launched now (after the pending statements), each into new device
// memory; returned as a tuple of expressions over them. The inputs are one 2-D expression
// together: their extents must agree, and their equal terms are computed once per element.
// The same along axis 0 or 2 of 3-D expressions, giving matrices (loom/array3.hpp).
template <int Axis, class... E, class... R, class Op, std::size_t... K>
auto reduce_each_along3(const std::tuple<const E&...>& inputs, const std::tuple<R...>& identities, const Op& op,
                        const char* what, std::index_sequence<K...>);

// Along axis 0 or 1 of 2-D expressions: one vector each.
template <int Axis, class... E, class... R, class Op, std::size_t... K>
auto reduce_each_along2(const std::tuple<const E&...>& inputs, const std::tuple<R...>& identities, const Op& op,
                        const char* what, std::index_sequence<K...>) {
    constexpr std::size_t count = sizeof...(E);
    static_assert(count > 0, "loom: a reduction of a tuple along an axis needs at least one expression");
    expr::extent_check c(what);
    (expr::collect_extents(std::get<K>(inputs), c), ...);
    c.finish();
    const std::uint64_t rows = c.rows(), cols = c.cols();
    const buffer_ptr* first = nullptr; // the context: the first input's that names a vector
    ((first = first ? first : expr::first_buffer(std::get<K>(inputs))), ...);
    if (!first)
        throw error(std::string("loom: ") + what +
                    " needs at least one loom::vector or loom::matrix (with a context) in its input");
    context_impl& ctx = *context_of(**first);
    const std::uint64_t size = Axis == 1 ? rows : cols;
    std::tuple<expr::axis_result<R>...> results{
        expr::axis_result<R>(expr::counted_buffer(new_buffer(shared_context_of(**first), size, dtype_v<R>)), size)...};
    if (rows == 0 || cols == 0) {
        if (size) (fill(ctx, std::get<K>(results).memory.get(), std::get<K>(identities)), ...);
    } else {
        const skeleton_operation ops[count] = {expr::operation<R>(op, std::get<K>(identities))...};
        const buffer_ptr outputs[count] = {std::get<K>(results).memory.get()...};
        const shape* input = expr::axis_input_shape(std::get<K>(inputs)...);
        std::unique_lock<std::recursive_mutex> lock(context_mutex(ctx));
        run_pending(ctx);
        statement_recorder recorder(ctx);
        (expr::bind(recorder, std::get<K>(inputs)), ...); // in axis_input_shape's order
        run_axis_reduce(ctx, {input, unsigned(Axis), rows, cols, ops, outputs, count});
    }
    return std::make_tuple(
        expr::proto::make_expr<expr::proto::tag::terminal, expr::domain>(std::move(std::get<K>(results)))...);
}

template <int Axis, class... E, class... R, class Op, std::size_t... K>
auto reduce_each_along(const std::tuple<const E&...>& inputs, const std::tuple<R...>& identities, const Op& op,
                       const char* what, std::index_sequence<K...> order) {
    static_assert((expr::is_operand_v<E> && ...),
                  "loom: the input of a reduction must be a loom::matrix or a Loom expression");
    static_assert(((!std::is_same_v<R, bool>)&&...),
                  "loom: a reduction along an axis gives a vector, which holds no bool");
    if constexpr ((expr::is_3d_v<E> || ...)) {
        return reduce_each_along3<Axis>(inputs, identities, op, what, order);
    } else {
        static_assert(Axis < 2, "loom: loom::axis<2> folds the last axis of a 3-D expression (a loom::array3 or "
                                "loom::index<2>()); a 2-D expression has axes 0 and 1");
        return reduce_each_along2<Axis>(inputs, identities, op, what, order);
    }
}

// The fold of e's rows (Axis 1) or columns (Axis 0) with op, from identity, launched now (after
// the pending statements) into new device memory; returned as an expression over it.
template <int Axis, class R, class E, class Op>
auto reduce_along(const E& e, R identity, const Op& op, const char* what) {
    return std::get<0>(reduce_each_along<Axis>(std::tuple<const E&>(e), std::make_tuple(identity), op, what,
                                               std::index_sequence<0>{}));
}

// min and max of bool values fold int32s: a vector holds no bool.
template <class E> using axis_value_t =
    std::conditional_t<std::is_same_v<value_type_t<E>, bool>, std::int32_t, value_type_t<E>>;

} // namespace detail

// The sum of each row (loom::axis<1>: over the columns, rows() values) or of each column
// (loom::axis<0>: cols() values) of a 2-D expression, in sum_type_t<E>. Computed when called
// (after the pending statements), in one kernel that computes e's terms in registers; the
// result is a 1-D expression to assign (`y = loom::sum(A * loom::as_row(x), loom::axis<1>);`,
// into y's own memory) or to use in a larger one (`ax = G * loom::sum(...)`).
template <class E, int Axis> auto sum(const E& e, axis_t<Axis>) {
    using R = sum_type_t<E>;
    return detail::reduce_along<Axis>(e, R(0), detail::plus_operation{}, "loom::sum along an axis");
}
template <class E, int Axis> auto product(const E& e, axis_t<Axis>) {
    using R = sum_type_t<E>;
    return detail::reduce_along<Axis>(e, R(1), detail::multiplies_operation{}, "loom::product along an axis");
}
// NaN elements are skipped, as loom::min(e) skips them; a row of none gives +infinity (min)
// or -infinity (max), the largest or lowest value for integers.
template <class E, int Axis> auto min(const E& e, axis_t<Axis>) {
    using R = detail::axis_value_t<E>;
    return detail::reduce_along<Axis>(e, detail::min_identity<R>(), detail::min_operation{}, "loom::min along an axis");
}
template <class E, int Axis> auto max(const E& e, axis_t<Axis>) {
    using R = detail::axis_value_t<E>;
    return detail::reduce_along<Axis>(e, detail::max_identity<R>(), detail::max_operation{}, "loom::max along an axis");
}
// Several reductions of one 2-D shape in one kernel: `loom::sum(std::make_tuple(e0, e1, ...),
// loom::axis<1>)` gives a std::tuple of the sums of e0, e1, ... along the axis, as separate calls
// would, in one pass that computes the terms the expressions share once per element (N-Body's
// three force components: one distance and weight per pair, not three). Each result is a 1-D
// expression, as one reduction's; assign them together with loom::tie or one at a time:
//   loom::tie(ax, ay, az) = loom::sum(std::make_tuple(w * dx, w * dy, w * dz), loom::axis<1>);
template <class... E, int Axis> auto sum(const std::tuple<E...>& e, axis_t<Axis>) {
    return detail::reduce_each_along<Axis>(std::tuple<const E&...>(e), std::make_tuple(sum_type_t<E>(0)...),
                                           detail::plus_operation{}, "loom::sum of a tuple along an axis",
                                           std::index_sequence_for<E...>{});
}
template <class... E, int Axis> auto product(const std::tuple<E...>& e, axis_t<Axis>) {
    return detail::reduce_each_along<Axis>(std::tuple<const E&...>(e), std::make_tuple(sum_type_t<E>(1)...),
                                           detail::multiplies_operation{}, "loom::product of a tuple along an axis",
                                           std::index_sequence_for<E...>{});
}
template <class... E, int Axis> auto min(const std::tuple<E...>& e, axis_t<Axis>) {
    return detail::reduce_each_along<Axis>(
        std::tuple<const E&...>(e), std::make_tuple(detail::min_identity<detail::axis_value_t<E>>()...),
        detail::min_operation{}, "loom::min of a tuple along an axis", std::index_sequence_for<E...>{});
}
template <class... E, int Axis> auto max(const std::tuple<E...>& e, axis_t<Axis>) {
    return detail::reduce_each_along<Axis>(
        std::tuple<const E&...>(e), std::make_tuple(detail::max_identity<detail::axis_value_t<E>>()...),
        detail::max_operation{}, "loom::max of a tuple along an axis", std::index_sequence_for<E...>{});
}

// A user operation, traced like loom::reduce's: associative and commutative, with `identity`
// its identity; the result's type is the identity's.
template <class E, class T, class Op, int Axis> auto reduce(const E& e, T identity, const Op& op, axis_t<Axis>) {
    static_assert(is_element_type_v<T>, "loom::reduce: the identity's type (the result type) must be an element type");
    return detail::reduce_along<Axis>(e, identity, op, "loom::reduce along an axis");
}

} // namespace loom
