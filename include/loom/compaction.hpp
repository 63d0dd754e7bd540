// Stream compaction (docs/search-and-compaction.md): copy_if, remove_if, partition, unique,
// and reverse, in the names Thrust, Boost.Compute and the standard library give them.
//
//   std::uint64_t kept = loom::copy_if(x, x > 0.0f, y);    // y[0..kept) = the positive x, in order
//   loom::copy_if(x * 2, [](auto v) { return v > 0; }, y); // a traced predicate of the values
//   std::uint64_t first_false = loom::partition(x, x < 1.0f, y);
//
// Each is one plan of three passes (src/skeleton/plan_compact.hpp): each chunk's count of kept
// elements, a scan of the counts, and each chunk's kept values written in order from its place,
// the values' and the predicate's expressions computed in the passes. Stable: kept elements keep
// their order. The count is read back; an output too short is a loom::length_error that leaves it
// as it was (nothing is written when the kept elements do not fit). The output may not be one of
// the values' or the predicate's vectors.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "loom/context.hpp"
#include "loom/expr/functions.hpp"
#include "loom/expr/operands.hpp"
#include "loom/map.hpp"
#include "loom/scan.hpp"
#include "loom/vector.hpp"
#include "loom/view.hpp"

namespace loom {
namespace detail {

// The predicate as an expression over the values: an expression (or vector) as it is, a traced
// callable applied to the values.
template <class E, class P> auto predicate_of(const E& values, const P& predicate) {
    if constexpr (expr::is_operand_v<P>)
        return expr::as_operand(predicate);
    else
        return map(predicate, values);
}

// The context of a compaction's values (their first vector's) and their length.
template <class E> std::pair<context, std::uint64_t> compaction_input(const E& values, const char* what) {
    const expr::first_operand_t first = expr::first_operand(values);
    if (!first.buffer)
        throw error(std::string("loom::") + what +
                    ": the values must name a loom::vector (with a context), or loom::index(ctx, n)");
    return {context(shared_context_of(**first.buffer)), first.length};
}

struct compact_call {
    const shape* input = nullptr;  // the values (root) and the predicate (more_roots[0])
    std::uint64_t view_length = 0; // the elements of the input's views, or 0
    std::uint64_t start = 0;       // the output's first place
    const char* what = "";         // the algorithm, for messages
};
// Defined in src/runtime/run_compact.cpp; the input's slots are the last ones recorded. Writes the
// values kept to output[start ..) and returns how many there are.
std::uint64_t run_compact(context_impl& ctx, const compact_call& call, const buffer_ptr& output);

// Writes the values for which `keep` is true to out[offset ..), in order, and returns how many
// there are.
template <class E, class K, class T>
std::uint64_t compact(const E& values, const K& keep, vector<T>& out, std::uint64_t offset, const char* what) {
    static_assert(!is_complex_v<expr::value_type_t<K>> && !is_short_vector_v<expr::value_type_t<K>>,
                  "loom: a compaction's predicate is a real or integer expression (true where nonzero)");
    const auto [ctx, n] = compaction_input(values, what);
    if (n == 0) return 0;
    if (!out.buffer()) throw error("loom::" + std::string(what) + " into an empty loom::vector");
    const auto kept = where(keep, 1u, 0u); // 0 or 1, added to the place
    context_impl& impl = *ctx.impl();
    std::unique_lock<std::recursive_mutex> lock(context_mutex(impl));
    run_pending(impl);
    compact_call call;
    call.input = expr::values_shape(values, kept);
    call.start = offset;
    call.what = what;
    statement_recorder recorder(impl);
    expr::bind(recorder, values); // in values_shape's order
    expr::bind(recorder, kept);
    call.view_length = recorder.view_length();
    return run_compact(impl, call, out.buffer());
}

} // namespace detail

// out[0 ..) = the values for which the predicate is true, in order; returns how many. The
// predicate is an expression of the values' length (x > 0, a stencil vector) or a traced
// function of the values.
template <class E, class P, class T> std::uint64_t copy_if(const E& values, const P& predicate, vector<T>& out) {
    return detail::compact(values, detail::predicate_of(values, predicate), out, 0, "copy_if");
}

// out[0 ..) = the values for which the predicate is false, in order; returns how many.
template <class E, class P, class T> std::uint64_t remove_if(const E& values, const P& predicate, vector<T>& out) {
    return detail::compact(values, !detail::predicate_of(values, predicate), out, 0, "remove_if");
}

// A stable partition into out: first the values for which the predicate is true, then the
// others, each in order; returns the number of the first (std::stable_partition_copy's split).
template <class E, class P, class T> std::uint64_t partition(const E& values, const P& predicate, vector<T>& out) {
    const auto keep = detail::predicate_of(values, predicate);
    const std::uint64_t n = detail::compaction_input(values, "partition").second;
    if (n > out.size())
        throw length_error("loom::partition: " + std::to_string(n) + " elements go to an output of " +
                           std::to_string(out.size()) + "; make the output at least that long");
    const std::uint64_t first = detail::compact(values, keep, out, 0, "partition");
    detail::compact(values, !keep, out, first, "partition");
    return first;
}

// out[0 ..) = x with each run of equal neighbours made one element (std::unique_copy); returns
// how many. NaN equals nothing, so each NaN stays, as with std::unique.
template <class T> std::uint64_t unique(const vector<T>& x, vector<T>& out) {
    return detail::compact(x, index() == 0 || x != shift(x, -1), out, 0, "unique");
}

// x in reverse order, in place.
template <class T> void reverse(vector<T>& x) {
    const std::uint64_t n = x.size();
    if (n > 1) x = gather(x, n - 1 - index()); // the gather of its own target goes through a temporary
}
// out = x in reverse order.
template <class T> void reverse_copy(const vector<T>& x, vector<T>& out) {
    if (out.size() != x.size())
        throw length_error("loom::reverse_copy: the output has " + std::to_string(out.size()) +
                           " elements and the input " + std::to_string(x.size()));
    if (x.size() > 0) out = gather(x, x.size() - 1 - index());
}

} // namespace loom
