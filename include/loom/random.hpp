// Random numbers inside expressions (docs/random.md): loom::random_uniform<T>(seed),
// loom::random_normal<T>(seed) and loom::random_bits<U>(seed) are terminals that stand anywhere
// an operand does, fused with the arithmetic around them:
//
//   x = mu + sigma * loom::random_normal<float>(seed);
//   loom::vector<float> u = loom::random_uniform<float>(seed, 1); // stream 1 of the same seed
//
// The generator is counter-based, Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random
// numbers: as easy as 1, 2, 3", SC 2011): element i of a statement draws from the counter
// (i, stream) under the key `seed`, so a value depends only on the seed, the stream and the
// element index; the same numbers come on OpenCL and CUDA, fused or not, at every launch
// geometry and kernel form. Seed and stream are kernel arguments, never compiled in: a new seed
// reuses the compiled kernel. Each also takes a counter of the caller's in place of the element
// index: random_uniform<float>(loom::index(ctx, n), seed) runs in a reduction over draws alone.
#pragma once

#include <cstdint>
#include <type_traits>

#include "loom/detail/runtime.hpp"
#include "loom/detail/shape_builder.hpp"
#include "loom/dtype.hpp"
#include "loom/expr/domain.hpp"
#include "loom/expr/value_type.hpp"

namespace loom {
namespace detail {

enum class random_distribution : std::uint8_t {
    uniform, // [0, 1): 24 random bits in a float, 53 in a double
    normal,  // mean 0, standard deviation 1 (Box-Muller over two uniforms)
    bits,    // the generator's first 32 (or 64) bits as an unsigned integer
};

// The device function that draws `d` of `type` for (element index, seed, stream), registered
// once per process (src/codegen/random_draws.cpp writes its text).
std::uint32_t random_function(random_distribution d, dtype type);

} // namespace detail

namespace expr {

// The id of the device function drawing D of type T, registered at its first use.
template <class T, detail::random_distribution D> std::uint32_t random_function_id() {
    static const std::uint32_t id = detail::random_function(D, dtype_v<T>);
    return id;
}

// The types each distribution draws, checked where a draw is written.
template <class T, detail::random_distribution D> constexpr void check_draw_type() {
    if constexpr (D == detail::random_distribution::bits)
        static_assert(std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>,
                      "loom::random_bits<U>: U is std::uint32_t or std::uint64_t");
    else
        static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>,
                      "loom::random_uniform<T> and loom::random_normal<T>: T is float or double "
                      "(loom::random_bits<U> gives integers)");
}

// A draw at the statement's element index.
template <class T, detail::random_distribution D> struct random_draw {
    std::uint64_t seed = 0;
    std::uint64_t stream = 0;

    static detail::node_ref lower(detail::shape_builder& b) {
        const detail::node_ref args[] = {b.index(), b.scalar_slot(dtype::u64), b.scalar_slot(dtype::u64)};
        return b.call(random_function_id<T, D>(), args, 3);
    }
    void bind(detail::statement_recorder& r) const {
        r.scalar_slot(&seed, sizeof seed);
        r.scalar_slot(&stream, sizeof stream);
    }
};
template <class T, detail::random_distribution D> struct terminal_value_type<random_draw<T, D>> { using type = T; };

template <class T, detail::random_distribution D> auto random_terminal(std::uint64_t seed, std::uint64_t stream) {
    check_draw_type<T, D>();
    return make_terminal(random_draw<T, D>{seed, stream});
}

// A draw at a counter the caller computes (an integer expression: loom::index(ctx, n), a
// permutation of the index, ...): a call of the same device function.
template <class T, detail::random_distribution D, class I>
auto random_call(const I& counter, std::uint64_t seed, std::uint64_t stream) {
    check_draw_type<T, D>();
    static_assert(std::is_integral_v<value_type_t<I>> && !std::is_same_v<value_type_t<I>, bool>,
                  "loom::random_*(counter, seed): the counter is an integer expression, such as loom::index(ctx, n)");
    return make_node<proto::tag::function>(
        source_call<T, std::uint64_t, std::uint64_t, std::uint64_t>{random_function_id<T, D>()}, counter, seed, stream);
}
template <class I> using if_counter = std::enable_if_t<is_operand_v<I>, int>;

} // namespace expr

// Uniform on [0, 1): element i is (the generator's first word >> 8) * 2^-24 for a float; for a
// double, 53 bits of its first two words times 2^-53. T is float or double.
template <class T> auto random_uniform(std::uint64_t seed, std::uint64_t stream = 0) {
    return expr::random_terminal<T, detail::random_distribution::uniform>(seed, stream);
}

// Normal, mean 0 and standard deviation 1: sqrt(-2 log u1) cos(2 pi u2), u1 in (0, 1] and u2 in
// [0, 1) drawn as random_uniform draws them (a double's from the generator's four words).
template <class T> auto random_normal(std::uint64_t seed, std::uint64_t stream = 0) {
    return expr::random_terminal<T, detail::random_distribution::normal>(seed, stream);
}

// The generator's bits: its first word (std::uint32_t), or its first two, the first low
// (std::uint64_t).
template <class U> auto random_bits(std::uint64_t seed, std::uint64_t stream = 0) {
    return expr::random_terminal<U, detail::random_distribution::bits>(seed, stream);
}

// Each at the counter `counter` (an integer expression) instead of the element index:
// loom::random_uniform<float>(loom::index(ctx, n), seed) gives a reduction its context and length.
template <class T, class I, expr::if_counter<I> = 0>
auto random_uniform(const I& counter, std::uint64_t seed, std::uint64_t stream = 0) {
    return expr::random_call<T, detail::random_distribution::uniform>(counter, seed, stream);
}
template <class T, class I, expr::if_counter<I> = 0>
auto random_normal(const I& counter, std::uint64_t seed, std::uint64_t stream = 0) {
    return expr::random_call<T, detail::random_distribution::normal>(counter, seed, stream);
}
template <class U, class I, expr::if_counter<I> = 0>
auto random_bits(const I& counter, std::uint64_t seed, std::uint64_t stream = 0) {
    return expr::random_call<U, detail::random_distribution::bits>(counter, seed, stream);
}

} // namespace loom
