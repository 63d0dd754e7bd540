// Tracing C++ lambdas into Loom expressions. A lambda is called with symbolic arguments
// of the trace domain, whose nodes hold their children BY VALUE (vectors excepted, held
// by reference), so the tree a lambda returns never refers to the lambda's parameters,
// locals or temporaries. rebuild() moves a tree between the trace domain and Loom's
// domain, copying every node and keeping vectors by reference.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "loom/expr/domain.hpp"
#include "loom/expr/functions.hpp"
#include "loom/expr/lower.hpp"

namespace loom {
namespace expr {

template <class E> struct traced;

struct trace_domain : proto::domain<proto::generator<traced>> {
    // Expressions and host scalars by value; a loom::vector as a terminal referring to it.
    template <class T>
    struct as_child : std::conditional_t<is_vector<std::remove_cv_t<T>>::value, proto_base_domain::as_child<T>,
                                         proto_base_domain::as_expr<T>> {};
};

template <class E> struct traced : proto::extends<E, traced<E>, trace_domain> {
    using base = proto::extends<E, traced<E>, trace_domain>;
    traced(const E& e = E()) : base(e) {}
};

template <class E>
inline constexpr bool is_traced_v =
    proto::is_expr<std::decay_t<E>>::value &&
    std::is_same_v<typename proto::domain_of<std::decay_t<E>>::type, trace_domain>;

// An argument of a traced reduction or scan operation: the N-th operand (0 = the
// accumulated value, 1 = the next element), of type T. Lowers to a scalar slot.
template <class T, int N> struct operand_tag {
    static constexpr int index = N;
};
template <class T> struct is_operand_tag : std::false_type {};
template <class T, int N> struct is_operand_tag<operand_tag<T, N>> : std::true_type {};

// Found by lower() through argument-dependent lookup: an operand is a scalar slot.
template <class T, int N> detail::node_ref lower_terminal(detail::shape_builder& b, const operand_tag<T, N>&) {
    return b.scalar_slot(dtype_v<T>);
}

template <class Domain, class E> auto rebuild(const E& e);

template <class Domain, class Tag, class E, std::size_t... I> auto rebuild_children(const E& e, std::index_sequence<I...>) {
    return proto::make_expr<Tag, Domain>(rebuild<Domain>(proto::child_c<I>(e))...);
}

// The tree e as a tree of Domain, every node copied; vectors stay referenced.
template <class Domain, class E> auto rebuild(const E& e) {
    if constexpr (!proto::is_expr<E>::value) {
        if constexpr (is_vector<E>::value) return proto::make_expr<proto::tag::terminal, Domain>(boost::cref(e));
        else return proto::make_expr<proto::tag::terminal, Domain>(e);
    } else {
        using tag = typename proto::tag_of<E>::type;
        if constexpr (std::is_same_v<tag, proto::tag::terminal>) {
            return rebuild<Domain>(proto::value(e));
        } else {
            return rebuild_children<Domain, tag>(e, std::make_index_sequence<proto::arity_of<E>::value>{});
        }
    }
}

// A map argument as the traced lambda sees it.
template <class A> auto as_traced(const A& a) {
    if constexpr (is_traced_v<A>) return a;
    else return rebuild<trace_domain>(a);
}

// A traced function node: like call<Op>, in the trace domain.
template <class A> decltype(auto) trace_child(A&& a) {
    if constexpr (is_vector<std::decay_t<A>>::value) return boost::cref(a);
    else return std::decay_t<A>(std::forward<A>(a));
}

template <opcode Op, class... A> auto trace_call(A&&... args) {
    return proto::make_expr<proto::tag::function, trace_domain>(function_tag<Op>{},
                                                                trace_child(std::forward<A>(args))...);
}

} // namespace expr

// Inside a traced lambda, Loom's functions take symbolic arguments and build traced nodes.
// (A call that mixes a symbolic argument with a loom::vector is ambiguous on purpose: pass
// the vector to map() as an argument, or capture it and combine it with an operator.)
template <class... A> using enable_if_traced_call = std::enable_if_t<(expr::is_traced_v<A> || ...), int>;

#define LOOM_TRACED_UNARY(name)                                                                                    \
    template <class A, enable_if_traced_call<A> = 0> auto name(A&& a) {                                            \
        return expr::trace_call<opcode::name>(std::forward<A>(a));                                                 \
    }
#define LOOM_TRACED_BINARY(name)                                                                                   \
    template <class A, class B, enable_if_traced_call<A, B> = 0> auto name(A&& a, B&& b) {                         \
        return expr::trace_call<opcode::name>(std::forward<A>(a), std::forward<B>(b));                             \
    }
#define LOOM_TRACED_TERNARY(name, op)                                                                              \
    template <class A, class B, class C, enable_if_traced_call<A, B, C> = 0> auto name(A&& a, B&& b, C&& c) {      \
        return expr::trace_call<opcode::op>(std::forward<A>(a), std::forward<B>(b), std::forward<C>(c));           \
    }

LOOM_TRACED_UNARY(sin)
LOOM_TRACED_UNARY(cos)
LOOM_TRACED_UNARY(tan)
LOOM_TRACED_UNARY(asin)
LOOM_TRACED_UNARY(acos)
LOOM_TRACED_UNARY(atan)
LOOM_TRACED_UNARY(sinh)
LOOM_TRACED_UNARY(cosh)
LOOM_TRACED_UNARY(tanh)
LOOM_TRACED_UNARY(exp)
LOOM_TRACED_UNARY(exp2)
LOOM_TRACED_UNARY(log)
LOOM_TRACED_UNARY(log2)
LOOM_TRACED_UNARY(log10)
LOOM_TRACED_UNARY(log1p)
LOOM_TRACED_UNARY(expm1)
LOOM_TRACED_UNARY(sqrt)
LOOM_TRACED_UNARY(rsqrt)
LOOM_TRACED_UNARY(cbrt)
LOOM_TRACED_UNARY(fabs)
LOOM_TRACED_UNARY(abs)
LOOM_TRACED_UNARY(floor)
LOOM_TRACED_UNARY(ceil)
LOOM_TRACED_UNARY(round)
LOOM_TRACED_UNARY(trunc)
LOOM_TRACED_UNARY(erf)
LOOM_TRACED_UNARY(erfc)
LOOM_TRACED_UNARY(tgamma)
LOOM_TRACED_UNARY(lgamma)
LOOM_TRACED_BINARY(atan2)
LOOM_TRACED_BINARY(pow)
LOOM_TRACED_BINARY(hypot)
LOOM_TRACED_BINARY(fmod)
LOOM_TRACED_BINARY(fmin)
LOOM_TRACED_BINARY(fmax)
LOOM_TRACED_BINARY(min)
LOOM_TRACED_BINARY(max)
LOOM_TRACED_TERNARY(clamp, clamp)
LOOM_TRACED_TERNARY(fma, fma)
LOOM_TRACED_TERNARY(where, select)

#undef LOOM_TRACED_UNARY
#undef LOOM_TRACED_BINARY
#undef LOOM_TRACED_TERNARY

template <class T, class A, enable_if_traced_call<A> = 0> auto cast(A&& a) {
    static_assert(std::is_arithmetic_v<T>, "loom::cast<T>: T must be an arithmetic type");
    return expr::proto::make_expr<expr::proto::tag::function, expr::trace_domain>(expr::cast_tag<T>{},
                                                                                  expr::trace_child(std::forward<A>(a)));
}

namespace expr {

// ---- the C++ type of an expression's value, at compile time ---------------------------
// Mirrors the IR's typing rules (src/ir/promotion.cpp), which are C++'s; the reduction
// front end checks it against the lowered shape, so a drift is caught at run time.

template <class V, class = void> struct terminal_value_type { using type = std::decay_t<V>; };
template <class T> struct terminal_value_type<vector<T>> { using type = T; };
template <> struct terminal_value_type<index_tag> { using type = std::uint64_t; };
template <class T, int N> struct terminal_value_type<operand_tag<T, N>> { using type = T; };

template <class E, class = void> struct value_type_of;

template <class E> using value_type_t = typename value_type_of<std::decay_t<E>>::type;

template <class T> using promoted_t = decltype(+std::declval<T>());
template <class A, class B> using arithmetic_t = decltype(std::declval<A>() + std::declval<B>());
template <class A> using math1_t = std::conditional_t<std::is_same_v<A, float>, float, double>;
template <class A, class B>
using math2_t = std::conditional_t<std::is_same_v<A, float> && std::is_same_v<B, float>, float, double>;

template <class Fn, class... A> struct call_value_type;
template <class T, class A> struct call_value_type<cast_tag<T>, A> { using type = T; };
template <opcode Op, class A> struct call_value_type<function_tag<Op>, A> {
    using type = std::conditional_t<Op == opcode::abs, std::conditional_t<std::is_floating_point_v<A>, A, promoted_t<A>>,
                                    math1_t<A>>;
};
template <opcode Op, class A, class B> struct call_value_type<function_tag<Op>, A, B> {
    using type = std::conditional_t<Op == opcode::min || Op == opcode::max, arithmetic_t<A, B>, math2_t<A, B>>;
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
            using fn = std::decay_t<typename proto::result_of::value<typename proto::result_of::child_c<E, 0>::type>::type>;
            return static_cast<typename call_value_type<fn, child<I + 1>...>::type*>(nullptr);
        } else if constexpr (sizeof...(I) == 1) {
            using A = child<0>;
            if constexpr (std::is_same_v<Tag, proto::tag::logical_not>) return static_cast<bool*>(nullptr);
            else return static_cast<promoted_t<A>*>(nullptr);
        } else {
            using A = child<0>;
            using B = child<1>;
            if constexpr (std::is_same_v<Tag, proto::tag::less> || std::is_same_v<Tag, proto::tag::greater> ||
                          std::is_same_v<Tag, proto::tag::less_equal> || std::is_same_v<Tag, proto::tag::greater_equal> ||
                          std::is_same_v<Tag, proto::tag::equal_to> || std::is_same_v<Tag, proto::tag::not_equal_to> ||
                          std::is_same_v<Tag, proto::tag::logical_and> || std::is_same_v<Tag, proto::tag::logical_or>)
                return static_cast<bool*>(nullptr);
            else if constexpr (std::is_same_v<Tag, proto::tag::shift_left> || std::is_same_v<Tag, proto::tag::shift_right>)
                return static_cast<promoted_t<A>*>(nullptr);
            else return static_cast<arithmetic_t<A, B>*>(nullptr);
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
            return static_cast<typename terminal_value_type<
                std::decay_t<typename proto::result_of::value<const E&>::type>>::type*>(nullptr);
        else if constexpr (std::is_same_v<tag, proto::tag::function>)
            return static_cast<typename node_value_type<tag, E, std::make_index_sequence<proto::arity_of<E>::value - 1>>::type*>(nullptr);
        else
            return static_cast<typename node_value_type<tag, E, std::make_index_sequence<proto::arity_of<E>::value>>::type*>(nullptr);
    }
    using type = std::remove_pointer_t<decltype(pick())>;
};

} // namespace expr
} // namespace loom
