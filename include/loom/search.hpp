// Searching an expression (docs/search-and-compaction.md), in the names Thrust, Boost.Compute and
// the standard library give them. Each is one reduction, or two, over the expression, fused with
// it; nothing is copied to the host but the answer.
//
//   std::uint64_t first = loom::find_if(x > 2.0f);       // x.size() when none is
//   auto [value, at] = loom::min_element(x * y);
//   bool ok = loom::all_of(loom::isfinite(x));
#pragma once

#include <cstdint>
#include <utility>

#include "loom/expr/functions.hpp"
#include "loom/expr/operands.hpp"
#include "loom/reduce.hpp"

namespace loom {

// A value and where it is: the element's index, or the input's length where there is none.
template <class T> struct element {
    T value{};
    std::uint64_t index = 0;
};

namespace detail {

// The length of a search's input (its first vector's, or a view's), for "not found".
template <class E> std::uint64_t search_length(const E& e, const char* what) {
    const expr::first_operand_t first = expr::first_operand(e);
    if (!first.buffer)
        throw error(std::string("loom: ") + what +
                    " needs at least one loom::vector (with a context) in its input expression, or "
                    "loom::index(ctx, n)");
    return first.length;
}

} // namespace detail

// The number of elements for which the predicate is true (nonzero): loom::count.
template <class E> std::uint64_t count_if(const E& predicate) { return count(predicate); }
template <class E> bool any_of(const E& predicate) { return any(predicate); }
template <class E> bool all_of(const E& predicate) { return all(predicate); }
template <class E> bool none_of(const E& predicate) { return !any(predicate); }

// The index of the first element for which the predicate is true, or the input's length when
// there is none (std::find_if's last): one reduction, the smallest index of a true element.
template <class E> std::uint64_t find_if(const E& predicate) {
    detail::check_truth_input<E>();
    const std::uint64_t n = detail::search_length(predicate, "loom::find_if");
    if (n == 0) return 0;
    return min(where(predicate, index(), n));
}
// The first element equal to `value`.
template <class E, class T> std::uint64_t find(const E& e, const T& value) { return find_if(e == value); }

// The smallest value and the index of its first occurrence (two reductions: the minimum, then
// find_if of it). NaN elements are skipped, as loom::min skips them; with no number at all the
// value is min's (+infinity) and the index the length. An empty input gives {min's, 0}.
template <class E> element<value_type_t<E>> min_element(const E& e) {
    const value_type_t<E> m = min(e);
    return {m, find_if(e == m)};
}
template <class E> element<value_type_t<E>> max_element(const E& e) {
    const value_type_t<E> m = max(e);
    return {m, find_if(e == m)};
}
// Both, from one minmax reduction and two searches.
template <class E> std::pair<element<value_type_t<E>>, element<value_type_t<E>>> minmax_element(const E& e) {
    const auto [lo, hi] = minmax(e);
    return {{lo, find_if(e == lo)}, {hi, find_if(e == hi)}};
}

} // namespace loom
