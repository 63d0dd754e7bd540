// Where an expression's context and length come from: its first vector operand, found left to
// right (a view or neighbour read counts as its vector). Used by everything that takes an
// expression without a target: a vector built from an expression, reductions and scans.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "loom/detail/runtime.hpp"
#include "loom/error.hpp"
#include "loom/expr/domain.hpp"

namespace loom::expr {

struct first_operand_t {
    const detail::buffer_ptr* buffer = nullptr; // nullptr: the expression names no vector
    std::uint64_t length = 0;                   // the statement length it gives (a view's count)
};

// A terminal kind defined elsewhere that reads vectors offers `first_operand_t operand() const`
// (what gives the statement its length) and `bool reads(const detail::buffer*) const`.
template <class T, class = void> struct has_operand : std::false_type {};
template <class T> struct has_operand<T, std::void_t<decltype(std::declval<const T&>().operand())>> : std::true_type {};

template <class E> first_operand_t first_operand(const E& e);

template <class E, std::size_t... I> first_operand_t first_operand_of_children(const E& e, std::index_sequence<I...>) {
    first_operand_t found;
    ((found = found.buffer ? found : first_operand(proto::child_c<I>(e))), ...);
    return found;
}

template <class E> first_operand_t first_operand(const E& e) {
    if constexpr (!proto::is_expr<E>::value) {
        if constexpr (is_vector<E>::value)
            return {e.buffer() ? &e.buffer() : nullptr, e.size()};
        else if constexpr (has_operand<E>::value)
            return e.operand();
        else
            return {};
    } else if constexpr (std::is_same_v<typename proto::tag_of<E>::type, proto::tag::terminal>) {
        return first_operand(proto::value(e));
    } else {
        return first_operand_of_children(e, std::make_index_sequence<proto::arity_of<E>::value>{});
    }
}

// Whether the expression reads the buffer b (through a vector, a view or a neighbour read).
template <class E> bool reads_buffer(const E& e, const detail::buffer* b);

template <class E, std::size_t... I>
bool children_read_buffer(const E& e, const detail::buffer* b, std::index_sequence<I...>) {
    return (reads_buffer(proto::child_c<I>(e), b) || ...);
}

template <class E> bool reads_buffer(const E& e, const detail::buffer* b) {
    if constexpr (!proto::is_expr<E>::value) {
        if constexpr (is_vector<E>::value)
            return e.buffer().get() == b;
        else if constexpr (has_operand<E>::value)
            return e.reads(b);
        else
            return false;
    } else if constexpr (std::is_same_v<typename proto::tag_of<E>::type, proto::tag::terminal>) {
        return reads_buffer(proto::value(e), b);
    } else {
        return children_read_buffer(e, b, std::make_index_sequence<proto::arity_of<E>::value>{});
    }
}

// The buffer of the first vector in the expression, or nullptr.
template <class E> const detail::buffer_ptr* first_buffer(const E& e) { return first_operand(e).buffer; }

// The context an expression's vectors live in (checked against every vector later).
template <class E> detail::context_impl& context_of_expression(const E& e, const char* what) {
    const detail::buffer_ptr* b = first_buffer(e);
    if (!b)
        throw error(std::string("loom: ") + what +
                    " needs at least one loom::vector (with a context) in its input expression");
    return *detail::context_of(**b);
}

} // namespace loom::expr
