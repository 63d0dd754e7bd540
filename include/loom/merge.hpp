// Merging (docs/sorting.md, "Merging"): loom::merge and loom::merge_by_key, two sorted vectors
// into one sorted vector, as std::merge and thrust::merge_by_key do.
//
//   loom::merge(a, b, out);                        // a and b ascending (loom::sort's order)
//   loom::merge(a, b, out, loom::descending);      // ... both descending
//   loom::merge(a, b, out, [](auto x, auto y) { return loom::abs(x) < loom::abs(y); });
//   loom::merge_by_key(keys_a, keys_b, values_a, values_b, keys_out, values_out);
//   loom::merge_by_key(ka, kb, loom::tie(pa, qa), loom::tie(pb, qb), keys, loom::tie(p, q));
//
// Without a comparator the inputs are in loom::sort's order: integers by value, floating point in
// IEEE 754's totalOrder (-0.0 before +0.0, NaNs at the ends), ascending, or descending with
// loom::descending. With a comparator (a traced lambda of two keys, true where the first goes
// before the second, as loom::sort's) in the comparator's order, of any element type it compares.
// Stable: of equal keys, a's come first, each input's in their order. Inputs that are not sorted
// in the merge's order give an unspecified arrangement of their elements (never an access out of
// bounds). out holds a.size() + b.size() elements and is neither input; the values go with their
// keys. Pending statements run first. One pass over the outputs: each work-item finds where its
// outputs start in a and b by a binary search, then merges.
#pragma once

#include <array>
#include <cstddef>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>

#include "loom/sort.hpp"
#include "loom/tie.hpp"
#include "loom/vector.hpp"

namespace loom {
namespace detail {

struct merge_call {
    bool descending = false;
    const skeleton_operation* less = nullptr; // the comparator, or null: loom::sort's order
};
// Defined in src/runtime/run_merge.cpp. buffers: the merged keys, then each value vector's output
// (`values` of them, at most six); then a's keys, b's keys, then per value vector a's and b's.
void run_merge(context_impl& ctx, const merge_call& call, const buffer_ptr* buffers, std::size_t values);

template <std::size_t N> void merge_buffers(const std::array<buffer_ptr, N>& buffers, const merge_call& call) {
    static_assert(N % 3 == 0 && N / 3 - 1 <= max_sorted_values, "loom::merge_by_key: at most six value vectors");
    constexpr std::size_t values = N / 3 - 1;
    const std::size_t outputs = 1 + values;
    context_impl* ctx = nullptr;
    bool empty = true; // no element in any input or output: nothing to merge
    for (const buffer_ptr& b : buffers)
        if (b) {
            ctx = ctx ? ctx : context_of(*b);
            empty = empty && length_of(*b) == 0;
        }
    if (empty) return;
    for (std::size_t k = 0; k < outputs; ++k)
        if (!buffers[k])
            throw length_error(std::string("loom::merge: the ") + (k == 0 ? "output" : "values' output") +
                               " is an empty loom::vector and the inputs are not; construct it with a context and "
                               "the inputs' summed length");
    std::unique_lock<std::recursive_mutex> lock(context_mutex(*ctx));
    run_pending(*ctx);
    run_merge(*ctx, call, buffers.data(), values);
}

template <class T> void merge_keys(const vector<T>& a, const vector<T>& b, vector<T>& out, const merge_call& call) {
    merge_buffers(std::array<buffer_ptr, 3>{out.buffer(), a.buffer(), b.buffer()}, call);
}

template <class K, class V> void merge_pairs(const vector<K>& keys_a, const vector<K>& keys_b,
                                             const vector<V>& values_a, const vector<V>& values_b, vector<K>& keys_out,
                                             vector<V>& values_out, const merge_call& call) {
    merge_buffers(std::array<buffer_ptr, 6>{keys_out.buffer(), values_out.buffer(), keys_a.buffer(), keys_b.buffer(),
                                            values_a.buffer(), values_b.buffer()},
                  call);
}

// merge_by_key's buffers with several value vectors (loom::tie), in run_merge's order.
template <class K, class A, class B, class O, std::size_t... I>
void merge_tied(const vector<K>& keys_a, const vector<K>& keys_b, const A& values_a, const B& values_b,
                vector<K>& keys_out, const O& values_out, std::index_sequence<I...>, const merge_call& call) {
    std::array<buffer_ptr, 3 + 3 * sizeof...(I)> buffers;
    std::size_t k = 0;
    buffers[k++] = keys_out.buffer();
    ((buffers[k++] = std::get<I>(values_out).buffer()), ...);
    buffers[k++] = keys_a.buffer();
    buffers[k++] = keys_b.buffer();
    ((buffers[k++] = std::get<I>(values_a).buffer(), buffers[k++] = std::get<I>(values_b).buffer()), ...);
    merge_buffers(buffers, call);
}

template <class K, class... V> void merge_ties(const vector<K>& keys_a, const vector<K>& keys_b,
                                               const vector_tie<vector<V>...>& values_a,
                                               const vector_tie<vector<V>...>& values_b, vector<K>& keys_out,
                                               const vector_tie<vector<V>...>& values_out, const merge_call& call) {
    merge_tied(keys_a, keys_b, values_a.targets(), values_b.targets(), keys_out, values_out.targets(),
               std::index_sequence_for<V...>{}, call);
}

} // namespace detail

// out = the merge of a and b, both sorted ascending in loom::sort's order; stable.
template <class T> void merge(const vector<T>& a, const vector<T>& b, vector<T>& out) {
    static_assert(detail::sortable_key_v<T>, "loom::merge: the keys must be integers, float or double");
    detail::merge_keys(a, b, out, {});
}
// ... both sorted descending.
template <class T> void merge(const vector<T>& a, const vector<T>& b, vector<T>& out, descending_order) {
    static_assert(detail::sortable_key_v<T>, "loom::merge: the keys must be integers, float or double");
    detail::merge_keys(a, b, out, {true, nullptr});
}
// ... both sorted in the comparator's order.
template <class T, class C, class = std::enable_if_t<detail::comparator_v<C>>>
void merge(const vector<T>& a, const vector<T>& b, vector<T>& out, const C& less) {
    const detail::skeleton_operation op = detail::comparator_of<T>(less);
    detail::merge_keys(a, b, out, {false, &op});
}

// keys_out = the merge of keys_a and keys_b (as loom::merge), and values_out their values:
// values_a[i] goes where keys_a[i] does, values_b[j] where keys_b[j] does.
template <class K, class V> void merge_by_key(const vector<K>& keys_a, const vector<K>& keys_b,
                                              const vector<V>& values_a, const vector<V>& values_b, vector<K>& keys_out,
                                              vector<V>& values_out) {
    static_assert(detail::sortable_key_v<K>, "loom::merge_by_key: the keys must be integers, float or double");
    detail::merge_pairs(keys_a, keys_b, values_a, values_b, keys_out, values_out, {});
}
template <class K, class V> void merge_by_key(const vector<K>& keys_a, const vector<K>& keys_b,
                                              const vector<V>& values_a, const vector<V>& values_b, vector<K>& keys_out,
                                              vector<V>& values_out, descending_order) {
    static_assert(detail::sortable_key_v<K>, "loom::merge_by_key: the keys must be integers, float or double");
    detail::merge_pairs(keys_a, keys_b, values_a, values_b, keys_out, values_out, {true, nullptr});
}
template <class K, class V, class C, class = std::enable_if_t<detail::comparator_v<C>>>
void merge_by_key(const vector<K>& keys_a, const vector<K>& keys_b, const vector<V>& values_a,
                  const vector<V>& values_b, vector<K>& keys_out, vector<V>& values_out, const C& less) {
    const detail::skeleton_operation op = detail::comparator_of<K>(less);
    detail::merge_pairs(keys_a, keys_b, values_a, values_b, keys_out, values_out, {false, &op});
}

// ... with several value vectors moved with the keys (up to six, any element types):
// loom::merge_by_key(ka, kb, loom::tie(pa, qa), loom::tie(pb, qb), keys, loom::tie(p, q)).
template <class K, class... V> void merge_by_key(const vector<K>& keys_a, const vector<K>& keys_b,
                                                 const vector_tie<vector<V>...>& values_a,
                                                 const vector_tie<vector<V>...>& values_b, vector<K>& keys_out,
                                                 const vector_tie<vector<V>...>& values_out) {
    static_assert(detail::sortable_key_v<K>, "loom::merge_by_key: the keys must be integers, float or double");
    detail::merge_ties(keys_a, keys_b, values_a, values_b, keys_out, values_out, {});
}
template <class K, class... V> void merge_by_key(const vector<K>& keys_a, const vector<K>& keys_b,
                                                 const vector_tie<vector<V>...>& values_a,
                                                 const vector_tie<vector<V>...>& values_b, vector<K>& keys_out,
                                                 const vector_tie<vector<V>...>& values_out, descending_order) {
    static_assert(detail::sortable_key_v<K>, "loom::merge_by_key: the keys must be integers, float or double");
    detail::merge_ties(keys_a, keys_b, values_a, values_b, keys_out, values_out, {true, nullptr});
}
template <class K, class... V, class C, class = std::enable_if_t<detail::comparator_v<C>>>
void merge_by_key(const vector<K>& keys_a, const vector<K>& keys_b, const vector_tie<vector<V>...>& values_a,
                  const vector_tie<vector<V>...>& values_b, vector<K>& keys_out,
                  const vector_tie<vector<V>...>& values_out, const C& less) {
    const detail::skeleton_operation op = detail::comparator_of<K>(less);
    detail::merge_ties(keys_a, keys_b, values_a, values_b, keys_out, values_out, {false, &op});
}

} // namespace loom
