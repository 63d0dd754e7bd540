// Several outputs from one statement:
//
//   loom::tie(a, b) = std::make_tuple(x + y, x - y);
//   loom::tie(x, y) = std::make_tuple(y, x);   // every value is read before any target is written
//   loom::tie(M.row(1), M.row(2)) = std::make_tuple(M.row(2), M.row(1));  // views, rows, blocks
//
// A target is a loom::vector, a view of one (a slice, a matrix's row or column, loom::reversed)
// or a block of a matrix. Each value may be an expression, a vector or a host scalar. Every
// value is computed from the vectors as they were before the statement, as one std::tie
// assignment of values computed first would; a target named twice takes the last value. Every
// target and value is checked (lengths, contexts, extents) before the first output is
// recorded, so a tie that throws leaves every vector as it was. The outputs are recorded as
// consecutive statements under the context's lock, so the fusion pass puts them in one kernel
// that reads each input once. A value that reads a vector an earlier output writes goes through
// a temporary, which fusion keeps in registers (docs/tie.md).
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>

#include "loom/expr/operands.hpp"
#include "loom/vector.hpp"

namespace loom {

template <class T> class matrix;
template <class T> class matrix_block;

namespace detail {

// What loom::tie may write: a vector (held by reference), a view or a matrix block (small
// handles, held by value so that `M.row(1)` may be a temporary).
template <class X> struct tie_output : std::false_type {};
template <class T> struct tie_output<vector<T>> : std::true_type { using stored = vector<T>&; };
template <class T> struct tie_output<vector_view<T>> : std::true_type { using stored = vector_view<T>; };
template <class T> struct tie_output<matrix_block<T>> : std::true_type { using stored = matrix_block<T>; };

// A temporary holding `value` as `target` would hold it: same element type, context and shape.
template <class T, class V> vector<T> held_value(const vector<T>& target, const V& value) {
    vector<T> t(context(shared_context_of(*target.buffer())), target.size());
    t = value;
    return t;
}
template <class T, class V> vector<T> held_value(const vector_view<T>& target, const V& value) {
    vector<T> t(context(shared_context_of(*target.buffer())), target.size());
    t = value;
    return t;
}
template <class T, class V> matrix<T> held_value(const matrix_block<T>& target, const V& value) {
    matrix<T> t(context(shared_context_of(*target.buffer())), target.rows(), target.cols());
    t = value;
    return t;
}

} // namespace detail

template <class... X> class vector_tie {
public:
    explicit vector_tie(typename detail::tie_output<X>::stored... targets) : targets_(targets...) {}

    template <class... E> vector_tie& operator=(const std::tuple<E...>& values) {
        static_assert(sizeof...(E) == sizeof...(X), "loom::tie: as many values as targets");
        assign(values, std::index_sequence_for<X...>{});
        return *this;
    }
    // The same for a temporary tuple (`loom::tie(ax, ay) = loom::sum(std::make_tuple(...),
    // axis)`): a value that is a temporary result alone holding its memory gives that memory to
    // its target in place of a copy (loom::vector's operator= of such a value).
    template <class... E> vector_tie& operator=(std::tuple<E...>&& values) {
        static_assert(sizeof...(E) == sizeof...(X), "loom::tie: as many values as targets");
        assign(std::move(values), std::index_sequence_for<X...>{});
        return *this;
    }

    // The targets, in order (references to the vectors, views and blocks named).
    const std::tuple<typename detail::tie_output<X>::stored...>& targets() const { return targets_; }

private:
    // Whether value k reads the buffer of a target written before it.
    template <std::size_t K, class Values, std::size_t... J>
    bool reads_earlier_target(const Values& values, std::index_sequence<J...>) const {
        return ((J < K && std::get<J>(targets_).buffer() &&
                 reads_value(std::get<K>(values), std::get<J>(targets_).buffer().get())) ||
                ...);
    }
    template <class V> static bool reads_value(const V& v, const detail::buffer* b) {
        if constexpr (expr::is_expression_v<V> || expr::is_operand_object<V>::value)
            return expr::reads_buffer(v, b);
        else
            return false; // a host scalar
    }

    template <class Values, std::size_t... K> void assign(Values&& values, std::index_sequence<K...> order) {
        // Every target needs a context; the first one's lock keeps the outputs together.
        ((std::get<K>(targets_).buffer() ? void()
                                         : throw error("loom::tie: target " + std::to_string(K) +
                                                       " is an empty loom::vector; construct it with a context "
                                                       "and a size first")),
         ...);
        std::unique_lock<std::recursive_mutex> lock(
            detail::context_mutex(*detail::context_of(*std::get<0>(targets_).buffer())));
        // Every output is checked before the first is recorded: a tie that throws writes nothing.
        (std::get<K>(targets_).check_assignment(std::get<K>(values)), ...);
        // Values that read an earlier target are computed into temporaries first, all of them
        // before any target is written.
        using held_type = std::tuple<std::optional<decltype(detail::held_value(
            std::declval<const std::decay_t<typename detail::tie_output<X>::stored>&>(), std::get<K>(values)))>...>;
        held_type held;
        ((reads_earlier_target<K>(values, order)
              ? void(std::get<K>(held).emplace(detail::held_value(std::get<K>(targets_), std::get<K>(values))))
              : void()),
         ...);
        ((std::get<K>(held) ? void(std::get<K>(targets_) = *std::get<K>(held))
                            : void(std::get<K>(targets_) = value_for_target<K>(std::forward<Values>(values)))),
         ...);
    }

    // Value K as target K's assignment takes it: a temporary result (an rvalue tuple's
    // vector_ref terminal) as an rvalue, which may give a vector target its memory; anything else
    // (a vector, an expression) as a const lvalue, copied as always.
    template <std::size_t K, class Values> static decltype(auto) value_for_target(Values&& values) {
        using value_type = std::tuple_element_t<K, std::decay_t<Values>>;
        using target_type = std::decay_t<std::tuple_element_t<K, std::tuple<X...>>>;
        if constexpr (!std::is_lvalue_reference_v<Values> && expr::is_vector<target_type>::value &&
                      expr::is_vector_temporary<value_type, typename target_type::value_type>::value)
            return std::move(std::get<K>(values));
        else
            return std::as_const(std::get<K>(values));
    }

    std::tuple<typename detail::tie_output<X>::stored...> targets_;
};

// loom::tie(a, b, ...) = std::make_tuple(e1, e2, ...): several outputs assigned in one statement.
// Each target is a loom::vector, a view (x.slice(...), M.row(i), M.col(j), loom::reversed(x)) or
// a matrix block (M.block(...)).
template <class... X> vector_tie<std::decay_t<X>...> tie(X&&... targets) {
    static_assert((detail::tie_output<std::decay_t<X>>::value && ...),
                  "loom::tie: each target must be a loom::vector, a view of one (slice, row, column, reversed) or a "
                  "matrix block");
    static_assert(((!std::is_same_v<typename detail::tie_output<std::decay_t<X>>::stored, std::decay_t<X>&> ||
                    (std::is_lvalue_reference_v<X> && !std::is_const_v<std::remove_reference_t<X>>)) &&
                   ...),
                  "loom::tie: a loom::vector target must be a named, non-const vector");
    return vector_tie<std::decay_t<X>...>(targets...);
}

} // namespace loom
