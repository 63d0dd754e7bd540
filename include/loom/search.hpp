// Searching an expression (docs/search-and-compaction.md), in the names Thrust, Boost.Compute and
// the standard library give them. Each is one reduction, or two, over the expression, fused with
// it; nothing is copied to the host but the answer.
//
//   std::uint64_t first = loom::find_if(x > 2.0f);       // x.size() when none is
//   auto [value, at] = loom::min_element(x * y);
//   bool ok = loom::all_of(loom::isfinite(x));
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
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

namespace detail {

// min_element and max_element of values of 32 bits or fewer (float, the integers, bool) with
// fewer than 2^32 elements are one reduction: the min (or max) of a 64-bit key whose high half
// orders as the values do and whose low half is the index (or, for a max, its complement), so
// the smallest key is the smallest value's first place. Wider values, or more elements, take
// two reductions: the extremum, then the first place holding it.
template <class T> inline constexpr bool keyed_extremum_v = std::is_arithmetic_v<T> && sizeof(T) <= 4;

// The key's high half: an unsigned 32-bit order of the values. A float's bits with the sign bit
// set when it is positive and every bit flipped when negative (the radix sort's order), after
// -0.0 is made +0.0 (x + 0.0f) so the two zeros tie, as they compare equal.
template <class E> auto value_order(const E& e) {
    using T = value_type_t<E>;
    if constexpr (std::is_floating_point_v<T>) {
        const auto bits = as_bits(e + 0.0f);
        return bits ^ (cast<std::uint32_t>(cast<std::int32_t>(bits) >> 31) | 0x80000000u);
    } else if constexpr (std::is_signed_v<T>) {
        return cast<std::uint32_t>(cast<std::int32_t>(e)) ^ 0x80000000u;
    } else {
        return cast<std::uint32_t>(e);
    }
}

// The key of each element for a min (Largest false) or a max. A NaN takes the key no number
// has (all ones for a min, zero for a max), so it is found only where there is nothing else.
template <bool Largest, class E> auto extremum_key(const E& e) {
    const auto high = cast<std::uint64_t>(value_order(e)) << 32;
    const auto key = [&] {
        if constexpr (Largest)
            return high | (std::uint64_t(0xffffffffu) - index());
        else
            return high | index();
    }();
    if constexpr (std::is_floating_point_v<value_type_t<E>>)
        return where(isnan(e), Largest ? std::uint64_t(0) : ~std::uint64_t(0), key);
    else
        return key;
}

template <bool Largest, class T> T extremum_identity() { return Largest ? max_identity<T>() : min_identity<T>(); }

// The element a reduced key names; with no number in an input of n elements (every one NaN),
// {min's or max's identity, n}, as the two-reduction form gives.
template <bool Largest, class T> element<T> element_of_key(std::uint64_t key, std::uint64_t n) {
    const auto high = std::uint32_t(key >> 32), low = std::uint32_t(key);
    element<T> found{T{}, Largest ? std::uint64_t(0xffffffffu - low) : low};
    if constexpr (std::is_floating_point_v<T>) {
        if (high == (Largest ? 0u : 0xffffffffu)) return {extremum_identity<Largest, T>(), n};
        const std::uint32_t bits = (high & 0x80000000u) ? high ^ 0x80000000u : ~high;
        std::memcpy(&found.value, &bits, sizeof bits);
    } else if constexpr (std::is_signed_v<T>) {
        found.value = T(std::int32_t(high ^ 0x80000000u));
    } else {
        found.value = T(high);
    }
    return found;
}

template <bool Largest, class E> element<value_type_t<E>> extremum_element(const E& e, const char* what) {
    using T = value_type_t<E>;
    if constexpr (keyed_extremum_v<T>) {
        const std::uint64_t n = search_length(e, what);
        if (n == 0) return {extremum_identity<Largest, T>(), 0};
        if (n <= std::uint64_t(0xffffffffu) + 1) {
            const auto key = extremum_key<Largest>(e);
            return element_of_key<Largest, T>(Largest ? max(key) : min(key), n);
        }
    }
    const T m = Largest ? max(e) : min(e);
    return {m, find_if(e == m)};
}

} // namespace detail

// The smallest value and the index of its first occurrence, in one reduction for values of up to
// 32 bits (see detail::keyed_extremum_v). NaN elements are skipped, as loom::min skips them; with
// no number at all the value is min's (+infinity) and the index the length. -0.0 and +0.0 are
// equal (the first of them is found); a float minimum of zero is returned as +0.0. An empty input
// gives {min's, 0}.
template <class E> element<value_type_t<E>> min_element(const E& e) {
    return detail::extremum_element<false>(e, "loom::min_element");
}
// The largest value and the index of its first occurrence (std::max_element's), as min_element.
template <class E> element<value_type_t<E>> max_element(const E& e) {
    return detail::extremum_element<true>(e, "loom::max_element");
}
// Both: min_element's and max_element's (the first place of each, as Thrust's minmax_element).
template <class E> std::pair<element<value_type_t<E>>, element<value_type_t<E>>> minmax_element(const E& e) {
    return {min_element(e), max_element(e)};
}

} // namespace loom
