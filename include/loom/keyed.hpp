// Keyed operations (docs/keyed-operations.md): scans and reductions over the segments of equal
// consecutive keys, in the names Thrust and Boost.Compute give them.
//
//   loom::inclusive_scan_by_key(keys, values, out);       // out[i]: sum of values since the segment's start
//   loom::exclusive_scan_by_key(keys, values, out, 0.0f); // ... before i, from 0 at each segment's start
//   std::uint64_t m = loom::reduce_by_key(keys, values, keys_out, values_out); // one sum per segment
//   loom::reduce_by_key(keys, values, keys_out, values_out, -INFINITY,
//                       [](auto a, auto b) { return loom::max(a, b); });    // any associative operation
//
// A segment is a run of consecutive equal keys (compared with ==: each NaN key is a segment of its
// own); sort first (loom::sort_by_key) to gather equal keys. The keys and the values may be any
// expressions of one length; both are computed in the scan's passes. The operation is evaluated
// in the output's type and must be associative, with `identity` its identity. Pending statements
// run first; an output too short is a loom::length_error that leaves every vector as it was.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "loom/reduce.hpp"
#include "loom/vector.hpp"

namespace loom {
namespace detail {

struct keyed_scan_call {
    const shape* input = nullptr; // the keys (root) and the values (more_roots[0])
    const skeleton_operation* op = nullptr;
    bool exclusive = false;
    scalar_bits init;              // exclusive: each segment's first output
    std::uint64_t view_length = 0; // the elements of the input's views, or 0
};
// Defined in src/runtime/run_keyed_scan.cpp; the input's slots are the last ones recorded.
void run_keyed_scan(context_impl& ctx, const keyed_scan_call& call, const buffer_ptr& output);
// reduce_by_key (call.op over the values, inclusive): each segment's key and folded value into the
// outputs; returns the segments' count, read back. More segments than either output holds is a
// loom::length_error with neither output written.
std::uint64_t run_reduce_by_key(context_impl& ctx, const keyed_scan_call& call, const buffer_ptr& keys_out,
                                const buffer_ptr& values_out);

template <class K> void check_keys() {
    using key = expr::value_type_t<K>;
    static_assert(std::is_arithmetic_v<key> || std::is_same_v<key, bool>,
                  "loom: the keys of a keyed operation are integers, booleans or real numbers (compared with ==)");
}

template <class K, class E, class T, class Op>
void keyed_scan(const K& keys, const E& values, vector<T>& out, bool exclusive, T init, T identity, const Op& op) {
    static_assert(expr::is_operand_v<K> && expr::is_operand_v<E>,
                  "loom: the keys and values of a keyed scan must be loom::vectors or Loom expressions");
    check_keys<K>();
    if (!out.buffer()) {
        const bool empty = (!expr::first_buffer(keys) || length_of(**expr::first_buffer(keys)) == 0) &&
                           (!expr::first_buffer(values) || length_of(**expr::first_buffer(values)) == 0);
        if (empty) return;
        throw length_error("loom: keyed scan into an empty loom::vector; construct the output with a context and the "
                           "keys' length first");
    }
    context_impl& ctx = expr::first_buffer(keys)     ? expr::context_of_expression(keys, "loom keyed scan")
                        : expr::first_buffer(values) ? expr::context_of_expression(values, "loom keyed scan")
                                                     : *context_of(*out.buffer());
    std::unique_lock<std::recursive_mutex> lock(context_mutex(ctx));
    run_pending(ctx);
    const skeleton_operation s = expr::operation<T>(op, identity);
    keyed_scan_call call;
    call.input = expr::values_shape(keys, values);
    call.op = &s;
    call.exclusive = exclusive;
    call.init = scalar_bits::of(init);
    statement_recorder recorder(ctx);
    expr::bind(recorder, keys); // in values_shape's order
    expr::bind(recorder, values);
    call.view_length = recorder.view_length();
    run_keyed_scan(ctx, call, out.buffer());
}

// reduce_by_key: one plan of three passes (src/skeleton/plan_keyed_scan.hpp) writes each
// segment's key and value; the count is read back, and more segments than an output holds is a
// loom::length_error with neither output written.
template <class KT, class E, class KO, class T, class Op>
std::uint64_t reduce_segments(const vector<KT>& keys, const E& values, vector<KO>& keys_out, vector<T>& values_out,
                              T identity, const Op& op) {
    static_assert(expr::is_operand_v<E>, "loom::reduce_by_key: the values must be a loom::vector or a Loom expression");
    check_keys<vector<KT>>();
    if (keys.size() == 0) return 0;
    if (!keys_out.buffer() || !values_out.buffer())
        throw length_error("loom::reduce_by_key: an output is an empty loom::vector; give each output room for "
                           "every segment (at most the keys' length)");
    context_impl& ctx = *context_of(*keys.buffer());
    std::unique_lock<std::recursive_mutex> lock(context_mutex(ctx));
    run_pending(ctx);
    const skeleton_operation s = expr::operation<T>(op, identity);
    keyed_scan_call call;
    call.input = expr::values_shape(keys, values);
    call.op = &s;
    statement_recorder recorder(ctx);
    expr::bind(recorder, keys); // in values_shape's order
    expr::bind(recorder, values);
    call.view_length = recorder.view_length();
    return run_reduce_by_key(ctx, call, keys_out.buffer(), values_out.buffer());
}

} // namespace detail

// out[i] = values[h] + ... + values[i], h the first index of i's segment.
template <class K, class E, class T> void inclusive_scan_by_key(const K& keys, const E& values, vector<T>& out) {
    detail::keyed_scan(keys, values, out, false, T(0), T(0), detail::plus_operation{});
}
// out[i] = identity op values[h] op ... op values[i], op associative with identity `identity`.
template <class K, class E, class T, class Op>
void inclusive_scan_by_key(const K& keys, const E& values, vector<T>& out, typename vector<T>::value_type identity,
                           const Op& op) {
    detail::keyed_scan(keys, values, out, false, identity, identity, op);
}

// out[i] = init + values[h] + ... + values[i - 1] (init at each segment's first element).
template <class K, class E, class T>
void exclusive_scan_by_key(const K& keys, const E& values, vector<T>& out, typename vector<T>::value_type init = T(0)) {
    detail::keyed_scan(keys, values, out, true, init, T(0), detail::plus_operation{});
}
// out[i] = init op values[h] op ... op values[i - 1].
template <class K, class E, class T, class Op>
void exclusive_scan_by_key(const K& keys, const E& values, vector<T>& out, typename vector<T>::value_type init,
                           typename vector<T>::value_type identity, const Op& op) {
    detail::keyed_scan(keys, values, out, true, init, identity, op);
}

// keys_out[s] = segment s's key, values_out[s] = the sum of its values; returns the number of
// segments. The keys are a vector; the values any expression of their length.
template <class KT, class E, class KO, class T>
std::uint64_t reduce_by_key(const vector<KT>& keys, const E& values, vector<KO>& keys_out, vector<T>& values_out) {
    return detail::reduce_segments(keys, values, keys_out, values_out, T(0), detail::plus_operation{});
}
// ... values_out[s] = identity op the segment's values, in order.
template <class KT, class E, class KO, class T, class Op>
std::uint64_t reduce_by_key(const vector<KT>& keys, const E& values, vector<KO>& keys_out, vector<T>& values_out,
                            typename vector<T>::value_type identity, const Op& op) {
    return detail::reduce_segments(keys, values, keys_out, values_out, identity, op);
}

} // namespace loom
