// Binary searches in a sorted vector, every value of an expression at once
// (docs/search-and-compaction.md), in the names Thrust and the standard library give them:
//
//   loom::lower_bound(sorted, values, places);   // places[i]: the first j with !(sorted[j] < values[i])
//   loom::upper_bound(sorted, values, places);   // ... the first j with values[i] < sorted[j]
//   loom::equal_range(sorted, values, first, last); // both: the range of keys equal to values[i]
//   loom::binary_search(sorted, values, found);  // found[i]: 1 where values[i] is in sorted, else 0
//   std::uint64_t j = loom::lower_bound(sorted, 2.5f);   // one value, the place read back
//
// `sorted` is in loom::sort's order: ascending (floats in IEEE totalOrder: -0 before +0, NaN
// last), or descending with loom::descending as the last argument. The values may be any
// expression, converted to the sorted vector's type; the output is a vector of an integer type
// of the values' length. One pass, a work-item a value; pending statements run first.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "loom/reduce.hpp"
#include "loom/sort.hpp"
#include "loom/vector.hpp"

namespace loom {
namespace detail {

enum class search_kind : std::uint8_t { lower, upper, found };

struct search_call {
    const shape* input = nullptr; // the values (root)
    search_kind kind = search_kind::lower;
    bool descending = false;
    std::uint64_t view_length = 0; // the elements of the values' views, or 0
};
// Defined in src/runtime/run_search.cpp; the values' slots, then the sorted vector's, are the
// last recorded.
void run_search(context_impl& ctx, const search_call& call, const buffer_ptr& sorted, const buffer_ptr& output);

template <class T, class E, class R>
void search(const vector<T>& sorted, const E& values, vector<R>& out, search_kind kind, bool descending) {
    static_assert(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>,
                  "loom::lower_bound: the sorted vector holds numbers (integers or floating point)");
    static_assert(expr::is_operand_v<E> || std::is_arithmetic_v<E>,
                  "loom::lower_bound: the values are a loom::vector, a Loom expression or a host number");
    static_assert(std::is_integral_v<R> && !std::is_same_v<R, bool>,
                  "loom::lower_bound: the output holds places, a vector of an integer type (binary_search: 0 or 1)");
    if (!out.buffer()) {
        if (!expr::first_buffer(values) || length_of(**expr::first_buffer(values)) == 0) return;
        throw length_error("loom::lower_bound: the output is an empty loom::vector; give it the values' length");
    }
    context_impl& ctx = *context_of(*out.buffer());
    std::unique_lock<std::recursive_mutex> lock(context_mutex(ctx));
    run_pending(ctx);
    search_call call;
    call.input = expr::input_shape(expr::as_operand(values));
    call.kind = kind;
    call.descending = descending;
    statement_recorder recorder(ctx);
    expr::bind(recorder, expr::as_operand(values));
    call.view_length = recorder.view_length();
    recorder.vector_slot(sorted.buffer()); // the input's last slot
    run_search(ctx, call, sorted.buffer(), out.buffer());
}

} // namespace detail

// places[i] = the first index j of `sorted` whose key does not go before values[i] (sorted.size()
// where every key does): std::lower_bound's answer for each value.
template <class T, class E, class R> void lower_bound(const vector<T>& sorted, const E& values, vector<R>& places) {
    detail::search(sorted, values, places, detail::search_kind::lower, false);
}
template <class T, class E, class R>
void lower_bound(const vector<T>& sorted, const E& values, vector<R>& places, descending_order) {
    detail::search(sorted, values, places, detail::search_kind::lower, true);
}
// places[i] = the first index j whose key goes after values[i]: std::upper_bound's answer.
template <class T, class E, class R> void upper_bound(const vector<T>& sorted, const E& values, vector<R>& places) {
    detail::search(sorted, values, places, detail::search_kind::upper, false);
}
template <class T, class E, class R>
void upper_bound(const vector<T>& sorted, const E& values, vector<R>& places, descending_order) {
    detail::search(sorted, values, places, detail::search_kind::upper, true);
}
// first[i], last[i] = lower_bound's and upper_bound's places: the range of keys equal to
// values[i] (std::equal_range's), in two passes.
template <class T, class E, class R>
void equal_range(const vector<T>& sorted, const E& values, vector<R>& first, vector<R>& last) {
    lower_bound(sorted, values, first);
    upper_bound(sorted, values, last);
}
template <class T, class E, class R>
void equal_range(const vector<T>& sorted, const E& values, vector<R>& first, vector<R>& last, descending_order) {
    lower_bound(sorted, values, first, descending);
    upper_bound(sorted, values, last, descending);
}
// found[i] = 1 where a key equal to values[i] (in the sort's order) is in sorted, else 0.
template <class T, class E, class R> void binary_search(const vector<T>& sorted, const E& values, vector<R>& found) {
    detail::search(sorted, values, found, detail::search_kind::found, false);
}
template <class T, class E, class R>
void binary_search(const vector<T>& sorted, const E& values, vector<R>& found, descending_order) {
    detail::search(sorted, values, found, detail::search_kind::found, true);
}

namespace detail {
// One host value's place in sorted (0 for an empty one): a one-element search, read back.
template <class T, class V> std::uint64_t place_of(const vector<T>& sorted, V value, search_kind kind) {
    if (!sorted.buffer()) return 0;
    const context ctx(shared_context_of(*sorted.buffer()));
    vector<std::uint64_t> place(ctx, 1);
    search(sorted, vector<T>(ctx, 1, T(value)), place, kind, false);
    return place[0];
}
} // namespace detail

// One host value's place: std::lower_bound's and std::upper_bound's answers, read back.
template <class T, class V, std::enable_if_t<std::is_arithmetic_v<V>, int> = 0>
std::uint64_t lower_bound(const vector<T>& sorted, V value) {
    return detail::place_of(sorted, value, detail::search_kind::lower);
}
template <class T, class V, std::enable_if_t<std::is_arithmetic_v<V>, int> = 0>
std::uint64_t upper_bound(const vector<T>& sorted, V value) {
    return detail::place_of(sorted, value, detail::search_kind::upper);
}

} // namespace loom
