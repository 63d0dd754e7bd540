// Positions and broadcasts in 2-D and 3-D expressions: loom::index<D>() (the element's row,
// column or position along axis D) and vectors laid along an axis (loom::as_row,
// loom::as_column, loom::along<D>), read at the element's position; and whether an expression
// type is 3-D (is_3d). Part of loom/matrix.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "loom/expr/extent_check.hpp"
#include "loom/vector.hpp"

namespace loom {
namespace expr {

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
    // x gives extent Axis (in a 2-D expression; a 3-D one checks it against its arrays'). Along
    // axis 2 of a 2-D expression: a loom::error.
    template <unsigned Rank> void extents(basic_extent_check<Rank>& c) const { c.along(Axis, source.size); }
};
template <class T, unsigned Axis> struct terminal_value_type<broadcast_read<T, Axis>> { using type = T; };
template <class T> struct terminal_is_3d<broadcast_read<T, 2>> : std::true_type {};

} // namespace expr

// The element's row (D = 0) or column (D = 1) in a 2-D expression, or its position along axis
// D = 0, 1 or 2 of a 3-D one (a loom::array3 statement), a std::uint64_t.
template <int D> auto index() {
    static_assert(D >= 0 && D <= 2,
                  "loom::index<D>(): D is 0 (the row) or 1 (the column), or 2 (the third axis of a 3-D array)");
    return expr::make_terminal(expr::position<unsigned(D)>{});
}

// x as a row repeated down every row of a 2-D expression: element (i, j) is x[j]; x gives the
// expression x.size() columns.
template <class T> auto as_row(const vector<T>& x) {
    return expr::make_terminal(expr::broadcast_read<T, 1>{expr::vector_ref<T>::of(x)});
}

// x as a column repeated across every column: element (i, j) is x[i]; x gives x.size() rows.
template <class T> auto as_column(const vector<T>& x) {
    return expr::make_terminal(expr::broadcast_read<T, 0>{expr::vector_ref<T>::of(x)});
}

// x laid along axis D of a multi-dimensional expression, repeated along the others: element
// (i0, i1) or (i0, i1, i2) is x[iD], and x gives the expression x.size() along D. In 2-D,
// along<0>(x) is loom::as_column(x) and along<1>(x) is loom::as_row(x); along<2>(x) makes the
// expression 3-D (loom/array3.hpp).
template <int D, class T> auto along(const vector<T>& x) {
    static_assert(D >= 0 && D <= 2, "loom::along<D>(x): D is the axis x lies along, 0, 1 or 2");
    return expr::make_terminal(expr::broadcast_read<T, unsigned(D)>{expr::vector_ref<T>::of(x)});
}

} // namespace loom
