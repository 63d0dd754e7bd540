// Loom's Boost.Proto domain: the expression wrapper, the terminal tags, how nodes are built, and
// the operators. loom::vector is not itself a Proto expression; the operators below wrap it in a
// terminal that holds its buffer, so building an expression never copies a vector.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include <boost/core/ref.hpp>
#include <boost/proto/core.hpp>

#include "loom/dtype.hpp"
#include "loom/expr/opcode.hpp"

namespace loom {

template <class T> class vector;
template <class T> class scalar;
template <class T> class vector_view;

// A base of every Loom expression node, so that argument-dependent lookup of an unqualified call
// (sin(x + y), where(x > 0, x, y), sum(x * x)) searches namespace loom: an expression's own class
// and its children's lie in loom::expr and boost::proto, where Loom's functions are not.
struct expression_anchor {};

namespace expr {

namespace proto = boost::proto;

template <class E> struct expression;
template <class T> struct is_vector : std::false_type {};
template <class T> struct is_vector<loom::vector<T>> : std::true_type {};
template <class T> struct is_device_scalar : std::false_type {};
template <class T> struct is_device_scalar<loom::scalar<T>> : std::true_type {};
// The objects that live on a device and start an expression: held by reference in it.
template <class T> struct is_device_object : std::bool_constant<is_vector<T>::value || is_device_scalar<T>::value> {};
// A view of a vector (loom/view.hpp): a few numbers and the vector's buffer, held by value in an
// expression, so an expression over a view may outlive the view object and the vector.
template <class T> struct is_view : std::false_type {};
template <class T> struct is_view<loom::vector_view<T>> : std::true_type {};
// What starts an expression through an operator: a device object or a view.
template <class T> struct is_operand_object : std::bool_constant<is_device_object<T>::value || is_view<T>::value> {};

template <class T> struct vector_ref; // loom/expr/vector_ref.hpp
template <class T> struct scalar_ref;

// How an expression holds a device object: by its buffer's claim, as holder_of<T>::type
// (held_t<T>). Vectors and device scalars here, matrices in loom/matrix.hpp.
template <class T> struct holder_of {};
template <class T> struct holder_of<loom::vector<T>> { using type = vector_ref<T>; };
template <class T> struct holder_of<loom::scalar<T>> { using type = scalar_ref<T>; };
template <class T, class = void> struct has_holder : std::false_type {};
template <class T> struct has_holder<T, std::void_t<typename holder_of<T>::type>> : std::true_type {};
template <class T> inline constexpr bool is_held_v = has_holder<T>::value;
template <class T> using held_t = typename holder_of<T>::type;

// Children are held by value, a vector, device scalar or matrix as held_t (its buffer, shared
// and counted as a vector's), so an expression kept in a variable stays valid when the objects it
// names are destroyed, and an expression returned from a function never refers to a temporary
// that has died. A node is a few pointers and host scalars. Loom builds every node itself
// (make_node, below) and moves a temporary child into its parent: only a named expression used
// again is copied, so a statement written in one line costs one count per terminal, not one per
// terminal and level of the tree (Proto's own builders copy each child from a const reference).
// The grammar matches nothing, which keeps Proto's built-in operators (and its operator+= and
// friends, so `v += x * y` reaches loom::vector's members) out of overload resolution: Loom's
// operators below are the only ones that build Loom nodes.
struct grammar : proto::not_<proto::_> {};

struct domain : proto::domain<proto::generator<expression>, grammar> {};

// Host memory where a device operand goes: a container or range (std::vector, std::array), a
// pointer or an array. Rejected where the operator builds its node, not later at the statement.
template <class T, class = void> struct is_range : std::false_type {};
template <class T> struct is_range<T, std::void_t<decltype(std::declval<T&>().begin())>> : std::true_type {};
template <class T> inline constexpr bool is_host_memory_v =
    !is_operand_object<T>::value && (is_range<T>::value || std::is_pointer_v<T> || std::is_array_v<T>);
template <class E, class = void> struct is_host_memory_terminal : std::false_type {};
template <class E>
struct is_host_memory_terminal<E, std::enable_if_t<std::is_same_v<typename E::proto_tag, proto::tag::terminal>>>
    : std::bool_constant<is_host_memory_v<std::remove_cv_t<std::remove_reference_t<typename E::proto_child0>>>> {};

// Every Loom expression node. A regular type: copyable, storable in a std::tuple or a
// std::optional, and default-constructible exactly when its node is (a node that refers to a
// vector is not), which std::is_default_constructible reports without a hard error.
// A Loom operand where a host number goes (std::sin(x), double d = x + y, if (x > y)): the
// conversion exists only to fail with this message. Loom's own operators and functions match
// their operands exactly, so overload resolution never picks it over them.
template <class D> inline constexpr bool no_host_number = false;
#define LOOM_NOT_A_HOST_NUMBER                                                                                         \
    template <class D = void> operator double() const {                                                                \
        static_assert(::loom::expr::no_host_number<D>,                                                                 \
                      "loom: a loom::vector or Loom expression is not a host number: std::sin(x) and the other "       \
                      "<cmath> functions do not take it (call loom::sin(x), or sin(x) unqualified), and its values "   \
                      "reach the host through loom::sum(...), x.to_host() or loom::copy");                             \
        return 0;                                                                                                      \
    }

template <class I> inline constexpr bool no_element_access = false;

template <class E> struct expression : expression_anchor {
    BOOST_PROTO_BASIC_EXTENDS_(E, expression<E>, domain)
    LOOM_NOT_A_HOST_NUMBER
    // Exists only to explain (a subscript is not element-wise).
    template <class I> auto operator[](I&&) const { return element_access<I>(); }
    static_assert(!is_host_memory_terminal<E>::value,
                  "loom: an expression operand must be a loom::vector, a Loom expression or an arithmetic host "
                  "scalar; this one is host memory (a std::vector, an array or a pointer): copy it into a "
                  "loom::vector first");
    template <class N = E, std::enable_if_t<std::is_default_constructible_v<N>, int> = 0> expression()
        : proto_expr_() {}
    expression(const E& e) : proto_expr_(e) {}
    expression(E&& e) : proto_expr_(std::move(e)) {}

private:
    template <class I> static auto element_access() {
        static_assert(no_element_access<I>,
                      "loom: a Loom expression has no subscript: it is computed element by element. "
                      "Element i of a vector is x[i] (one read from the device); the elements of x at the "
                      "indices of a vector or expression idx are loom::gather(x, idx)");
    }
};

// Terminal values other than vectors and host scalars.
struct index_tag {};                              // loom::index()
template <opcode Op> struct function_tag {};      // loom::sin, loom::pow, loom::where, ...
template <class T> struct cast_tag {};            // loom::cast<T>
template <std::size_t I> struct component_tag {}; // loom::get<I>: component I of a short vector
template <class V> struct make_vector_tag {};     // loom::make_vec<V>: a short vector from its components
// A call of loom::function<R(A...)> from source text: the function's id (detail::source_function_id).
template <class R, class... A> struct source_call { std::uint32_t id; };

template <class E> inline constexpr bool is_expression_v =
    proto::is_expr<std::decay_t<E>>::value&& std::is_same_v<typename proto::domain_of<std::decay_t<E>>::type, domain>;

// What may appear as an operand of a Loom function: a vector, a device scalar or a Loom expression.
template <class A> inline constexpr bool is_operand_v = is_operand_object<std::decay_t<A>>::value || is_expression_v<A>;

// A terminal node holding v: by value, or by reference for a boost::cref (the vector a compound
// assignment writes, loom/expr/lower.hpp).
template <class V> using terminal_node = expression<proto::basic_expr<proto::tag::terminal, proto::term<V>, 0>>;
template <class V> auto make_terminal(V&& v) {
    using D = std::decay_t<V>;
    if constexpr (boost::is_reference_wrapper<D>::value) {
        using node = terminal_node<typename D::type&>;
        return node(typename node::proto_base_expr{v.get()});
    } else {
        using node = terminal_node<D>;
        return node(typename node::proto_base_expr{std::forward<V>(v)});
    }
}

// A child as its parent holds it: an expression as it is (moved when a temporary), a device
// object through its holder (held_t), anything else (a host scalar, a function's tag) as a
// terminal holding its value.
template <class A> auto as_child(A&& a) {
    using D = std::decay_t<A>;
    static_assert(!is_device_object<D>::value || is_held_v<D>,
                  "loom: a device object needs a holder_of specialisation to appear in an expression");
    if constexpr (is_expression_v<D>)
        return D(std::forward<A>(a));
    else if constexpr (is_held_v<D>)
        return make_terminal(held_t<D>::of(a));
    else
        return make_terminal(std::forward<A>(a));
}

// The node Tag(children...), each child as as_child holds it, moved in: the type Proto's
// make_expr names for these children, built without its copies.
template <class Tag, class... A> auto make_node(A&&... a) {
    using node = typename proto::result_of::make_expr<Tag, domain, decltype(as_child(std::forward<A>(a)))...>::type;
    return node(typename node::proto_base_expr{as_child(std::forward<A>(a))...});
}

template <opcode Op, class... A> auto call(A&&... args) {
    return make_node<proto::tag::function>(function_tag<Op>{}, std::forward<A>(args)...);
}

} // namespace expr

// x + y, 2 * x, -x, ...: a node when an operand is a Loom operand (a vector, device scalar,
// view, matrix or Loom expression), found by argument-dependent lookup in this namespace (every
// expression derives from loom::expression_anchor). Only element-wise operators are defined:
// compound assignments are loom::vector members that record a statement, and &, *, ++, --,
// comma keep their C++ meaning.
#define LOOM_UNARY(op, name)                                                                                           \
    template <class A, std::enable_if_t<expr::is_operand_v<A>, int> = 0> auto operator op(A&& a) {                     \
        return expr::make_node<boost::proto::tag::name>(std::forward<A>(a));                                           \
    }
#define LOOM_BINARY(op, name)                                                                                          \
    template <class L, class R, std::enable_if_t<expr::is_operand_v<L> || expr::is_operand_v<R>, int> = 0>             \
    auto operator op(L&& l, R&& r) {                                                                                   \
        return expr::make_node<boost::proto::tag::name>(std::forward<L>(l), std::forward<R>(r));                       \
    }
LOOM_UNARY(+, unary_plus)
LOOM_UNARY(-, negate)
LOOM_UNARY(~, complement)
LOOM_UNARY(!, logical_not)
LOOM_BINARY(<<, shift_left)
LOOM_BINARY(>>, shift_right)
LOOM_BINARY(*, multiplies)
LOOM_BINARY(/, divides)
LOOM_BINARY(%, modulus)
LOOM_BINARY(+, plus)
LOOM_BINARY(-, minus)
LOOM_BINARY(<, less)
LOOM_BINARY(>, greater)
LOOM_BINARY(<=, less_equal)
LOOM_BINARY(>=, greater_equal)
LOOM_BINARY(==, equal_to)
LOOM_BINARY(!=, not_equal_to)
LOOM_BINARY(||, logical_or)
LOOM_BINARY(&&, logical_and)
LOOM_BINARY(&, bitwise_and)
LOOM_BINARY(|, bitwise_or)
LOOM_BINARY(^, bitwise_xor)
#undef LOOM_UNARY
#undef LOOM_BINARY

} // namespace loom
