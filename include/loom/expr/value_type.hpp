// The C++ type of an expression's value, at compile time: what a reduction returns, and what
// the operators' compile-time checks look at.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "loom/expr/domain.hpp"

namespace loom::expr {

// ---- the C++ type of an expression's value, at compile time ---------------------------
// Mirrors the IR's typing rules (src/ir/promotion.cpp), which are C++'s; the reduction
// front end checks it against the lowered shape, so a drift is caught at run time.

template <class V, class = void> struct terminal_value_type { using type = std::decay_t<V>; };
template <class T> struct terminal_value_type<vector<T>> { using type = T; };
template <class T> struct terminal_value_type<scalar<T>> { using type = T; };
template <> struct terminal_value_type<index_tag> { using type = std::uint64_t; };
template <class T, class Policy, unsigned Dimensions> struct neighbour_read; // loom/stencil.hpp
template <class T, class Policy, unsigned Dimensions>
struct terminal_value_type<neighbour_read<T, Policy, Dimensions>> {
    using type = T;
};
template <class T> struct terminal_value_type<vector_view<T>> { using type = T; };
template <class T, class I> struct gather_read; // loom/view.hpp
template <class T, class I> struct terminal_value_type<gather_read<T, I>> { using type = T; };
template <class V, V v> struct terminal_value_type<std::integral_constant<V, v>> { using type = V; };

template <class E, class = void> struct value_type_of;

template <class E> using value_type_t = typename value_type_of<std::decay_t<E>>::type;

// A complex type's component type; a real type itself.
template <class T> struct component { using type = T; };
template <class T> struct component<std::complex<T>> { using type = T; };
template <class T> using component_t = typename component<T>::type;

// Short vectors (docs/vector-types.md): C++'s rules component by component, a scalar operand
// broadcast. with_width_t<T, N> is the vector of N components of type T (T itself for N == 1).
template <class T> struct vector_width : std::integral_constant<unsigned, 1> {};
template <class T, unsigned N> struct vector_width<short_vector<T, N>> : std::integral_constant<unsigned, N> {};
template <class T> struct vector_component { using type = T; };
template <class T, unsigned N> struct vector_component<short_vector<T, N>> { using type = T; };
template <class T> using vector_component_t = typename vector_component<T>::type;
template <class T, unsigned N> struct with_width { using type = short_vector<T, N>; };
template <class T> struct with_width<T, 1> { using type = T; };
template <class T, unsigned N> using with_width_t = typename with_width<T, N>::type;
// The width of an operation's result: the vector operands' (the front end checks they agree).
template <class... A> inline constexpr unsigned result_width_v = std::max({vector_width<A>::value...});

// loom::as_bits's result: the unsigned integer of T's width (for T a real type; a complex, bool
// or short vector operand is rejected before this is read).
template <class T> using bits_type_t =
    std::conditional_t<sizeof(T) == 1, std::uint8_t,
                       std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                          std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;

template <class T> using promoted_t =
    with_width_t<decltype(+std::declval<vector_component_t<T>>()), vector_width<T>::value>;

// C++'s usual arithmetic conversions, and Loom's rule where an operand is complex (which C++
// leaves to std::complex's same-type operators): the result is complex, its component type
// that of the two component types (docs/complex.md): complex<float> * double is complex<double>.
template <class A, class B, class = void> struct arithmetic {
    using type = decltype(std::declval<A>() + std::declval<B>());
};
template <class A, class B> struct arithmetic<A, B, std::enable_if_t<is_complex_v<A> || is_complex_v<B>>> {
    using type = std::complex<decltype(std::declval<component_t<A>>() + std::declval<component_t<B>>())>;
};
template <class A, class B> struct arithmetic<A, B, std::enable_if_t<is_short_vector_v<A> || is_short_vector_v<B>>> {
    using type =
        with_width_t<typename arithmetic<vector_component_t<A>, vector_component_t<B>>::type, result_width_v<A, B>>;
};
template <class A, class B> using arithmetic_t = typename arithmetic<A, B>::type;
template <class A> using scalar_math1_t =
    std::conditional_t<is_complex_v<A>, A, std::conditional_t<std::is_same_v<A, float>, float, double>>;
template <class A> using math1_t = with_width_t<scalar_math1_t<vector_component_t<A>>, vector_width<A>::value>;
template <class A, class B> using math2_t = with_width_t<
    std::conditional_t<std::is_same_v<vector_component_t<A>, float> && std::is_same_v<vector_component_t<B>, float>,
                       float, double>,
    result_width_v<A, B>>;
// The complex type a real operand becomes in real(), imag(), arg() and conj(): float gives
// complex<float>, integers and double complex<double>, as <complex>'s overloads for reals do.
template <class A> using as_complex_t = std::conditional_t<is_complex_v<A>, A, std::complex<math1_t<A>>>;

template <class Fn, class... A> struct call_value_type;
template <class T, class A> struct call_value_type<cast_tag<T>, A> { using type = T; };
template <class R, class... P, class... A> struct call_value_type<source_call<R, P...>, A...> { using type = R; };
// loom::get<I> and loom::make_vec<V> (loom/expr/functions.hpp).
template <std::size_t I, class A> struct call_value_type<component_tag<I>, A> { using type = vector_component_t<A>; };
template <class V, class... A> struct call_value_type<make_vector_tag<V>, A...> { using type = V; };

template <opcode Op, class A> struct call_value_type<function_tag<Op>, A> {
    static auto pick() {
        if constexpr (Op == opcode::length)
            return static_cast<vector_component_t<math1_t<A>>*>(nullptr);
        else if constexpr (Op == opcode::abs && is_short_vector_v<A>)
            return static_cast<std::conditional_t<std::is_floating_point_v<vector_component_t<A>>, A, promoted_t<A>>*>(
                nullptr);
        else if constexpr (Op == opcode::abs && is_complex_v<A>)
            return static_cast<component_t<A>*>(nullptr); // the magnitude
        else if constexpr (Op == opcode::abs)
            return static_cast<std::conditional_t<std::is_floating_point_v<A>, A, promoted_t<A>>*>(nullptr);
        else if constexpr (Op == opcode::real || Op == opcode::imag || Op == opcode::arg)
            return static_cast<component_t<as_complex_t<A>>*>(nullptr);
        else if constexpr (Op == opcode::conj)
            return static_cast<as_complex_t<A>*>(nullptr);
        else if constexpr (Op == opcode::isnan || Op == opcode::isinf || Op == opcode::isfinite ||
                           Op == opcode::isnormal || Op == opcode::signbit)
            return static_cast<bool*>(nullptr);
        else if constexpr (Op == opcode::popcount || Op == opcode::clz || Op == opcode::ctz)
            return static_cast<int*>(nullptr); // as C++20's std::popcount, std::countl_zero
        else if constexpr (Op == opcode::as_bits)
            return static_cast<bits_type_t<A>*>(nullptr);
        else
            return static_cast<math1_t<A>*>(nullptr);
    }
    using type = std::remove_pointer_t<decltype(pick())>;
};
template <opcode Op, class A, class B> struct call_value_type<function_tag<Op>, A, B> {
    static auto pick() {
        if constexpr (Op == opcode::min || Op == opcode::max)
            return static_cast<arithmetic_t<A, B>*>(nullptr);
        else if constexpr (Op == opcode::polar)
            return static_cast<std::complex<math2_t<A, B>>*>(nullptr);
        else if constexpr (Op == opcode::ldexp)
            return static_cast<math1_t<A>*>(nullptr);
        else if constexpr (Op == opcode::dot)
            return static_cast<vector_component_t<math2_t<A, B>>*>(nullptr);
        else
            return static_cast<math2_t<A, B>*>(nullptr);
    }
    using type = std::remove_pointer_t<decltype(pick())>;
};
template <opcode Op, class A, class B, class C> struct call_value_type<function_tag<Op>, A, B, C> {
    using type = std::conditional_t<
        Op == opcode::select, std::conditional_t<std::is_same_v<B, C>, B, arithmetic_t<B, C>>,
        std::conditional_t<Op == opcode::clamp, arithmetic_t<arithmetic_t<A, B>, C>, math2_t<math2_t<A, B>, C>>>;
};

template <class Tag, class E, class I> struct node_value_type;
template <class Tag, class E, std::size_t... I> struct node_value_type<Tag, E, std::index_sequence<I...>> {
    template <std::size_t K> using child = value_type_t<typename proto::result_of::child_c<E, K>::type>;
    static auto pick() {
        if constexpr (std::is_same_v<Tag, proto::tag::function>) {
            using fn =
                std::decay_t<typename proto::result_of::value<typename proto::result_of::child_c<E, 0>::type>::type>;
            return static_cast<typename call_value_type<fn, child<I + 1>...>::type*>(nullptr);
        } else if constexpr (sizeof...(I) == 1) {
            using A = child<0>;
            if constexpr (std::is_same_v<Tag, proto::tag::logical_not>)
                return static_cast<bool*>(nullptr);
            else
                return static_cast<promoted_t<A>*>(nullptr);
        } else {
            using A = child<0>;
            using B = child<1>;
            if constexpr (std::is_same_v<Tag, proto::tag::less> || std::is_same_v<Tag, proto::tag::greater> ||
                          std::is_same_v<Tag, proto::tag::less_equal> ||
                          std::is_same_v<Tag, proto::tag::greater_equal> || std::is_same_v<Tag, proto::tag::equal_to> ||
                          std::is_same_v<Tag, proto::tag::not_equal_to> ||
                          std::is_same_v<Tag, proto::tag::logical_and> || std::is_same_v<Tag, proto::tag::logical_or>)
                return static_cast<bool*>(nullptr);
            else if constexpr (std::is_same_v<Tag, proto::tag::shift_left> ||
                               std::is_same_v<Tag, proto::tag::shift_right>)
                return static_cast<with_width_t<vector_component_t<promoted_t<A>>, result_width_v<A, B>>*>(nullptr);
            else
                return static_cast<arithmetic_t<A, B>*>(nullptr);
        }
    }
    using type = std::remove_pointer_t<decltype(pick())>;
};

template <class E> struct value_type_of<E, std::enable_if_t<!proto::is_expr<E>::value>> {
    using type = typename terminal_value_type<E>::type;
};
template <class E> struct value_type_of<E, std::enable_if_t<proto::is_expr<E>::value>> {
    using tag = typename proto::tag_of<E>::type;
    static auto pick() {
        if constexpr (std::is_same_v<tag, proto::tag::terminal>)
            return static_cast<
                typename terminal_value_type<std::decay_t<typename proto::result_of::value<const E&>::type>>::type*>(
                nullptr);
        else if constexpr (std::is_same_v<tag, proto::tag::function>)
            return static_cast<
                typename node_value_type<tag, E, std::make_index_sequence<proto::arity_of<E>::value - 1>>::type*>(
                nullptr);
        else
            return static_cast<
                typename node_value_type<tag, E, std::make_index_sequence<proto::arity_of<E>::value>>::type*>(nullptr);
    }
    using type = std::remove_pointer_t<decltype(pick())>;
};

} // namespace loom::expr
