// Sorting (docs/sorting.md): loom::sort and loom::sort_by_key, ascending or descending, stable,
// on keys of every integer type, float and double, by a least-significant-digit radix sort.
//
//   loom::sort(x);                                  // x in ascending order, in place
//   loom::sort(x, loom::descending);                // ... descending
//   loom::sort(x * x, y);                           // y = the squares of x, sorted (the product is
//                                                   // computed in the sort's first passes)
//   loom::sort_by_key(keys, values);                // values reordered as the keys are
//   loom::sort_by_key(keys, loom::tie(a, b, c));    // several value vectors
//   loom::sort(x, [](auto a, auto b) { return loom::abs(a) < loom::abs(b); });  // a comparator
//
// Without a comparator the sort is a radix sort; with one (a traced lambda of two keys, true where
// the first goes before the second, like std::sort's; it may capture host scalars) a merge sort,
// of any element type the comparator can compare. A comparator that is not a strict weak order
// leaves the keys in an unspecified arrangement (never a hang or an access out of bounds).
// Floating-point keys sort in IEEE 754's totalOrder: -NaN, -inf, ..., -0.0, +0.0, ..., +inf,
// +NaN (a NaN's sign is its sign bit), so -0.0 comes before +0.0 and NaNs go to the ends. Keys
// that compare equal keep their order (stable), in both directions. Pending statements run
// first. A failure (a build error, no memory for the sort's scratch) leaves every vector as it
// was: the sort allocates everything before its first pass.
#pragma once

#include <array>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "loom/reduce.hpp"
#include "loom/tie.hpp"
#include "loom/vector.hpp"

namespace loom {

// The order loom::sort and loom::sort_by_key give when passed loom::descending.
struct descending_order {};
inline constexpr descending_order descending{};

namespace detail {

struct sort_call {
    const shape* input = nullptr;  // the keys
    std::uint64_t view_length = 0; // the elements of the input's views, or 0
    bool descending = false;
    const skeleton_operation* less = nullptr; // a merge sort's comparator, or null (a radix sort)
};
// Defined in src/runtime/run_sort.cpp; the input's slots are the last ones recorded. outputs[0]
// takes the sorted keys, outputs[1 ..count) are the value vectors moved with them.
void run_sort(context_impl& ctx, const sort_call& call, const buffer_ptr* outputs, std::size_t count);

template <class T> constexpr bool sortable_key_v = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

// The value vectors a sort moves with its keys: at most six.
constexpr std::size_t max_sorted_values = 6;

// Whether C is a comparator argument: neither a direction nor an operand.
template <class C> constexpr bool comparator_v =
    !std::is_same_v<std::decay_t<C>, descending_order> && !expr::is_operand_v<C> && !std::is_arithmetic_v<C>;

// A comparator of two T keys traced as an operation whose result, converted to T, is nonzero
// where the first goes before the second.
template <class T, class C> skeleton_operation comparator_of(const C& less) { return expr::operation<T>(less, T(0)); }

template <class E, std::size_t N> void sort_expression(const E& keys, const std::array<buffer_ptr, N>& outputs,
                                                       bool descending, const skeleton_operation* less = nullptr) {
    static_assert(expr::is_operand_v<E>, "loom::sort: the keys must be a loom::vector or a Loom expression");
    if (!outputs[0]) { // an output without a context: only an empty sort is one
        bool empty = !expr::first_buffer(keys) || length_of(**expr::first_buffer(keys)) == 0;
        for (std::size_t k = 1; k < N; ++k) empty = empty && (!outputs[k] || length_of(*outputs[k]) == 0);
        if (empty) return;
        throw length_error("loom::sort: the output is an empty loom::vector and the keys are not; construct the "
                           "output with a context and the keys' length");
    }
    for (std::size_t k = 1; k < N; ++k)
        if (!outputs[k])
            throw length_error("loom::sort_by_key: a value vector is empty and the keys are not; give every value "
                               "vector the keys' length");
    context_impl& ctx =
        expr::first_buffer(keys) ? expr::context_of_expression(keys, "loom sort") : *context_of(*outputs[0]);
    std::unique_lock<std::recursive_mutex> lock(context_mutex(ctx));
    run_pending(ctx);
    sort_call call;
    call.input = expr::input_shape(keys);
    call.descending = descending;
    call.less = less;
    statement_recorder recorder(ctx);
    expr::bind(recorder, keys);
    call.view_length = recorder.view_length();
    run_sort(ctx, call, outputs.data(), N);
}

template <class K, class... V> void sort_pairs(vector<K>& keys, bool descending, vector<V>&... values) {
    static_assert(sortable_key_v<K>, "loom::sort_by_key: the keys must be integers, float or double");
    static_assert(sizeof...(V) <= max_sorted_values, "loom::sort_by_key: at most six value vectors");
    sort_expression(keys, std::array<buffer_ptr, 1 + sizeof...(V)>{keys.buffer(), values.buffer()...}, descending);
}

template <class K, class C, class... V> void sort_pairs_by(vector<K>& keys, const C& less, vector<V>&... values) {
    static_assert(sizeof...(V) <= max_sorted_values, "loom::sort_by_key: at most six value vectors");
    const skeleton_operation op = comparator_of<K>(less);
    sort_expression(keys, std::array<buffer_ptr, 1 + sizeof...(V)>{keys.buffer(), values.buffer()...}, false, &op);
}

} // namespace detail

// keys in ascending order (descending with loom::descending), in place; stable.
template <class T> void sort(vector<T>& keys) {
    static_assert(detail::sortable_key_v<T>, "loom::sort: the keys must be integers, float or double");
    detail::sort_expression(keys, std::array<detail::buffer_ptr, 1>{keys.buffer()}, false);
}
template <class T> void sort(vector<T>& keys, descending_order) {
    static_assert(detail::sortable_key_v<T>, "loom::sort: the keys must be integers, float or double");
    detail::sort_expression(keys, std::array<detail::buffer_ptr, 1>{keys.buffer()}, true);
}

// out = the keys (a vector or any expression of out's length, converted to out's type) sorted.
template <class E, class T, class = std::enable_if_t<expr::is_operand_v<E>>> void sort(const E& keys, vector<T>& out) {
    static_assert(detail::sortable_key_v<T>, "loom::sort: the output must hold integers, float or double");
    detail::sort_expression(keys, std::array<detail::buffer_ptr, 1>{out.buffer()}, false);
}
template <class E, class T, class = std::enable_if_t<expr::is_operand_v<E>>>
void sort(const E& keys, vector<T>& out, descending_order) {
    static_assert(detail::sortable_key_v<T>, "loom::sort: the output must hold integers, float or double");
    detail::sort_expression(keys, std::array<detail::buffer_ptr, 1>{out.buffer()}, true);
}

// keys (in place, or an expression into out) in the comparator's order: a stable merge sort.
template <class T, class C, class = std::enable_if_t<detail::comparator_v<C>>>
void sort(vector<T>& keys, const C& less) {
    const detail::skeleton_operation op = detail::comparator_of<T>(less);
    detail::sort_expression(keys, std::array<detail::buffer_ptr, 1>{keys.buffer()}, false, &op);
}
template <class E, class T, class C, class = std::enable_if_t<expr::is_operand_v<E> && detail::comparator_v<C>>>
void sort(const E& keys, vector<T>& out, const C& less) {
    const detail::skeleton_operation op = detail::comparator_of<T>(less);
    detail::sort_expression(keys, std::array<detail::buffer_ptr, 1>{out.buffer()}, false, &op);
}

// keys sorted in place, and the values moved as their keys are: values[i] ends where keys[i]
// does. Stable. The values are any element type; several go in loom::tie(a, b, ...).
template <class K, class V> void sort_by_key(vector<K>& keys, vector<V>& values) {
    detail::sort_pairs(keys, false, values);
}
template <class K, class V> void sort_by_key(vector<K>& keys, vector<V>& values, descending_order) {
    detail::sort_pairs(keys, true, values);
}
template <class K, class... V> void sort_by_key(vector<K>& keys, const vector_tie<vector<V>...>& values) {
    std::apply([&](auto&... v) { detail::sort_pairs(keys, false, v...); }, values.targets());
}
template <class K, class... V>
void sort_by_key(vector<K>& keys, const vector_tie<vector<V>...>& values, descending_order) {
    std::apply([&](auto&... v) { detail::sort_pairs(keys, true, v...); }, values.targets());
}
// ... in the comparator's order (a stable merge sort).
template <class K, class V, class C, class = std::enable_if_t<detail::comparator_v<C>>>
void sort_by_key(vector<K>& keys, vector<V>& values, const C& less) {
    detail::sort_pairs_by(keys, less, values);
}
template <class K, class... V, class C, class = std::enable_if_t<detail::comparator_v<C>>>
void sort_by_key(vector<K>& keys, const vector_tie<vector<V>...>& values, const C& less) {
    std::apply([&](auto&... v) { detail::sort_pairs_by(keys, less, v...); }, values.targets());
}

} // namespace loom
