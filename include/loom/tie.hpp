// Several outputs from one statement:
//
//   loom::tie(a, b) = std::make_tuple(x + y, x - y);
//   loom::tie(x, y) = std::make_tuple(y, x);   // every value is read before any target is written
//
// Each value may be an expression, a vector or a host scalar. Every value is computed from the
// vectors as they were before the statement, as one std::tie assignment of values computed first
// would; a target named twice takes the last value. The outputs are recorded as consecutive
// statements under the context's lock, so the fusion pass puts them in one kernel that reads
// each input once. A value that reads a vector an earlier output writes goes through a
// temporary, which fusion keeps in registers (docs/tie.md).
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

template <class... T> class vector_tie {
public:
    explicit vector_tie(vector<T>&... targets) : targets_(targets...) {}

    template <class... E> vector_tie& operator=(const std::tuple<E...>& values) {
        static_assert(sizeof...(E) == sizeof...(T), "loom::tie: as many values as targets");
        assign(values, std::index_sequence_for<T...>{});
        return *this;
    }
    // The same for a temporary tuple (`loom::tie(ax, ay) = loom::sum(std::make_tuple(...),
    // axis)`): a value that is a temporary result alone holding its memory gives that memory to
    // its target in place of a copy (loom::vector's operator= of such a value).
    template <class... E> vector_tie& operator=(std::tuple<E...>&& values) {
        static_assert(sizeof...(E) == sizeof...(T), "loom::tie: as many values as targets");
        assign(std::move(values), std::index_sequence_for<T...>{});
        return *this;
    }

private:
    // Whether value k reads the buffer of a target written before it.
    template <std::size_t K, class Values, std::size_t... J>
    bool reads_earlier_target(const Values& values, std::index_sequence<J...>) const {
        return ((J < K && std::get<J>(targets_).buffer() &&
                 reads_value(std::get<K>(values), std::get<J>(targets_).buffer().get())) ||
                ...);
    }
    template <class V> static bool reads_value(const V& v, const detail::buffer* b) {
        if constexpr (expr::is_expression_v<V> || expr::is_vector<V>::value)
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
        // Values that read an earlier target are computed into temporaries first, all of them
        // before any target is written.
        std::tuple<std::optional<vector<T>>...> held;
        ((reads_earlier_target<K>(values, order) ? void(std::get<K>(held).emplace(make_held<K>(values))) : void()),
         ...);
        ((std::get<K>(held) ? void(std::get<K>(targets_) = *std::get<K>(held))
                            : void(std::get<K>(targets_) = value_for_target<K>(std::forward<Values>(values)))),
         ...);
    }

    // Value K as target K's assignment takes it: a temporary result (an rvalue tuple's
    // vector_ref terminal) as an rvalue, which may give the target its memory; anything else
    // (a vector, an expression) as a const lvalue, copied as always.
    template <std::size_t K, class Values> static decltype(auto) value_for_target(Values&& values) {
        using value_type = std::tuple_element_t<K, std::decay_t<Values>>;
        using target_value = std::tuple_element_t<K, std::tuple<T...>>;
        if constexpr (!std::is_lvalue_reference_v<Values> && expr::is_vector_temporary<value_type, target_value>::value)
            return std::move(std::get<K>(values));
        else
            return std::as_const(std::get<K>(values));
    }

    // A temporary of target K's type, context and length, holding value K.
    template <std::size_t K, class Values> auto make_held(const Values& values) {
        using target_type = std::tuple_element_t<K, std::tuple<vector<T>...>>;
        const target_type& target = std::get<K>(targets_);
        target_type t(context(detail::shared_context_of(*target.buffer())), target.size());
        t = std::get<K>(values);
        return t;
    }

    std::tuple<vector<T>&...> targets_;
};

// loom::tie(a, b, ...) = std::make_tuple(e1, e2, ...): several vectors assigned in one statement.
template <class... T> vector_tie<T...> tie(vector<T>&... targets) { return vector_tie<T...>(targets...); }

} // namespace loom
