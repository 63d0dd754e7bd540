// loom::sum(x, loom::compensated): a floating-point sum that keeps the rounding error of every
// addition (Neumaier's compensated summation, with Knuth's TwoSum joining two partial sums), so
// that its error stays near one rounding of the result however long the input is (a plain
// sum's grows with the depth of its tree), and large values that cancel keep the small ones.
// It runs as one reduction over (sum, compensation) pairs, fused with the expression it reads,
// at eight additions and subtractions a step where a plain sum makes one (docs/skeleton-reduce.md).
#pragma once

#include <type_traits>

#include "loom/expr/functions.hpp"
#include "loom/reduce.hpp"
#include "loom/short_vector.hpp"

namespace loom {

struct compensated_t {};
inline constexpr compensated_t compensated{};

template <class E> auto sum(const E& e, compensated_t) {
    using T = value_type_t<E>;
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                  "loom::sum(x, loom::compensated) sums float or double values; an integer sum is exact already");
    using pair = short_vector<T, 2>; // the running sum, and the error its additions left out
    const pair total = reduce(make_vec<pair>(e, T(0)), pair{T(0), T(0)}, [](auto a, auto b) {
        // TwoSum: s + err == a.sum + b.sum exactly, in round-to-nearest, for any magnitudes.
        const auto s = loom::get<0>(a) + loom::get<0>(b);
        const auto b_part = s - loom::get<0>(a);
        const auto err = (loom::get<0>(a) - (s - b_part)) + (loom::get<0>(b) - b_part);
        return make_vec<pair>(s, loom::get<1>(a) + loom::get<1>(b) + err);
    });
    return T(get<0>(total) + get<1>(total));
}

} // namespace loom
