// The matrix as an expression terminal: how a 2-D expression holds a loom::matrix (matrix_ref:
// its buffer's claim and its rows and columns), and the shape of a matrix or 3-D array statement,
// lowered once per expression type (matrix_statement). Part of loom/matrix.hpp.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "loom/expr/extent_check.hpp"
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
    void extents(extent_check& c) const { c.term({rows, cols}); }
};
template <class T> struct terminal_value_type<matrix_ref<T>> { using type = T; };

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

} // namespace expr
} // namespace loom
