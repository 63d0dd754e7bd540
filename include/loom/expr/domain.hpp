// Loom's Boost.Proto domain: the expression wrapper, the terminal tags, and the
// operators. loom::vector is not itself a Proto expression; the operators below wrap it
// in a terminal that refers to it, so building an expression never copies a vector.
#pragma once

#include <cstdint>
#include <type_traits>

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
// names are destroyed. A node is a few pointers and host scalars, so
// copying is cheap, and an expression returned from a function never refers to a temporary
// that has died.
// Assignments are statements, not expressions: a grammar that rejects them keeps Proto's
// own operator+= and friends out of overload resolution, so `v += x * y` reaches
// loom::vector's members, which record the statement.
struct grammar
    : proto::not_<proto::or_<
          proto::or_<proto::assign<proto::_, proto::_>, proto::plus_assign<proto::_, proto::_>,
                     proto::minus_assign<proto::_, proto::_>, proto::multiplies_assign<proto::_, proto::_>,
                     proto::divides_assign<proto::_, proto::_>, proto::modulus_assign<proto::_, proto::_>>,
          proto::or_<proto::bitwise_and_assign<proto::_, proto::_>, proto::bitwise_or_assign<proto::_, proto::_>,
                     proto::bitwise_xor_assign<proto::_, proto::_>, proto::shift_left_assign<proto::_, proto::_>,
                     proto::shift_right_assign<proto::_, proto::_>>>> {};

struct domain : proto::domain<proto::generator<expression>, grammar> {
    template <class T, class Enable = void> struct as_child : proto_base_domain::as_expr<T> {};
    template <class T> struct as_child<
        T, std::enable_if_t<is_device_object<std::remove_const_t<T>>::value && !is_held_v<std::remove_const_t<T>>>>
        : proto_base_domain::as_child<T> {};
    template <class T> struct as_child<T, std::enable_if_t<is_held_v<std::remove_const_t<T>>>> {
        using held = held_t<std::remove_const_t<T>>;
        using result_type = decltype(proto::make_expr<proto::tag::terminal, domain>(std::declval<held>()));
        result_type operator()(T& v) const { return proto::make_expr<proto::tag::terminal, domain>(held::of(v)); }
    };
};

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

template <class E> struct expression : proto::extends<E, expression<E>, domain>, expression_anchor {
    LOOM_NOT_A_HOST_NUMBER
    static_assert(!is_host_memory_terminal<E>::value,
                  "loom: an expression operand must be a loom::vector, a Loom expression or an arithmetic host "
                  "scalar; this one is host memory (a std::vector, an array or a pointer): copy it into a "
                  "loom::vector first");
    using base = proto::extends<E, expression<E>, domain>;
    template <class N = E, std::enable_if_t<std::is_default_constructible_v<N>, int> = 0> expression() : base(N()) {}
    expression(const E& e) : base(e) {}
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

// Children of a function node: host scalars and expression temporaries by value (they
// are small and may be temporaries), device objects as the operators hold them (held_t).
template <class A> decltype(auto) as_child(A&& a) {
    if constexpr (is_held_v<std::decay_t<A>>)
        return held_t<std::decay_t<A>>::of(a);
    else if constexpr (is_device_object<std::decay_t<A>>::value)
        return boost::cref(a);
    else
        return std::decay_t<A>(std::forward<A>(a));
}

template <opcode Op, class... A> auto call(A&&... args) {
    return proto::make_expr<proto::tag::function, domain>(function_tag<Op>{}, as_child(std::forward<A>(args))...);
}

} // namespace expr

// x + y, 2 * x, -x, ...: Proto builds the node when an operand is a loom::vector or a
// loom::scalar (found by argument-dependent lookup in this namespace); nodes that already are Loom
// expressions combine through Proto's own operators. Only element-wise operators are
// defined: compound assignments are loom::vector members that record a statement, and
// &, *, ++, --, comma keep their C++ meaning.
#define LOOM_UNARY(op, name)                                                                                           \
    BOOST_PROTO_DEFINE_UNARY_OPERATOR(op, boost::proto::tag::name, expr::is_operand_object, expr::domain, 0)
#define LOOM_BINARY(op, name)                                                                                          \
    BOOST_PROTO_DEFINE_BINARY_OPERATOR(op, boost::proto::tag::name, expr::is_operand_object, expr::domain)
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
