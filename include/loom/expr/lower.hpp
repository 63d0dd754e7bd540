// From a Proto tree to Loom's IR and to a statement's bound values. lower() runs once
// per expression type and yields a shape; bind() runs for every statement and records
// the vectors and scalars in the same order lower() numbered the slots.
#pragma once

#include <tuple>
#include <utility>

#include "loom/detail/runtime.hpp"
#include "loom/detail/shape_builder.hpp"
#include "loom/error.hpp"
#include "loom/expr/domain.hpp"
#include "loom/expr/lowered_once.hpp"
#include "loom/expr/value_type.hpp"

namespace loom::expr {

template <class Tag> struct opcode_of; // Proto tag -> Loom opcode, for the operators
#define LOOM_TAG_OPCODE(proto_tag, op)                                                                                 \
    template <> struct opcode_of<proto::tag::proto_tag> { static constexpr opcode value = opcode::op; };
LOOM_TAG_OPCODE(negate, negate)
LOOM_TAG_OPCODE(unary_plus, unary_plus)
LOOM_TAG_OPCODE(logical_not, logical_not)
LOOM_TAG_OPCODE(complement, bit_not)
LOOM_TAG_OPCODE(plus, add)
LOOM_TAG_OPCODE(minus, sub)
LOOM_TAG_OPCODE(multiplies, mul)
LOOM_TAG_OPCODE(divides, div)
LOOM_TAG_OPCODE(modulus, mod)
LOOM_TAG_OPCODE(shift_left, shift_left)
LOOM_TAG_OPCODE(shift_right, shift_right)
LOOM_TAG_OPCODE(less, less)
LOOM_TAG_OPCODE(greater, greater)
LOOM_TAG_OPCODE(less_equal, less_equal)
LOOM_TAG_OPCODE(greater_equal, greater_equal)
LOOM_TAG_OPCODE(equal_to, equal)
LOOM_TAG_OPCODE(not_equal_to, not_equal)
LOOM_TAG_OPCODE(logical_and, logical_and)
LOOM_TAG_OPCODE(logical_or, logical_or)
LOOM_TAG_OPCODE(bitwise_and, bit_and)
LOOM_TAG_OPCODE(bitwise_or, bit_or)
LOOM_TAG_OPCODE(bitwise_xor, bit_xor)
#undef LOOM_TAG_OPCODE

template <class Tag, class = void> struct is_operator_tag : std::false_type {};
template <class Tag> struct is_operator_tag<Tag, std::void_t<decltype(opcode_of<Tag>::value)>> : std::true_type {};

template <class T> struct is_cast : std::false_type {};
template <class T> struct is_cast<cast_tag<T>> : std::true_type { using type = T; };
template <class T> struct is_function_name : is_cast<T> {};
template <std::size_t I> struct is_function_name<component_tag<I>> : std::true_type {};
template <class V> struct is_function_name<make_vector_tag<V>> : std::true_type {};
template <opcode Op> struct is_function_name<function_tag<Op>> : std::true_type {};
template <class R, class... A> struct is_function_name<source_call<R, A...>> : std::true_type {};
template <class T> struct is_source_call : std::false_type {};
template <class R, class... A> struct is_source_call<source_call<R, A...>> : std::true_type {};
template <class T> struct function_opcode;
// A compile-time constant (std::integral_constant, std::true_type) where a scalar goes: a host
// scalar of its value type.
template <class T> struct is_integral_constant : std::false_type {};
template <class V, V v> struct is_integral_constant<std::integral_constant<V, v>> : std::true_type {};
template <opcode Op> struct function_opcode<function_tag<Op>> { static constexpr opcode value = Op; };

// A terminal kind defined elsewhere (a stencil read, a view, a gather) lowers and binds
// itself: `node_ref lower(shape_builder&) const` (static or not: lowering runs once per type,
// so it may use only types) and `void bind(statement_recorder&) const`.
template <class T, class = void> struct is_custom_terminal : std::false_type {};
template <class T>
struct is_custom_terminal<T,
                          std::void_t<decltype(std::declval<const T&>().lower(std::declval<detail::shape_builder&>()))>>
    : std::true_type {};

// ---- lowering: expression type -> IR nodes -------------------------------------------

template <class V> detail::node_ref lower_terminal(detail::shape_builder& b, const V& v) {
    using T = std::decay_t<V>;
    if constexpr (is_custom_terminal<T>::value)
        return v.lower(b);
    else if constexpr (is_vector<T>::value)
        return b.vector_slot(dtype_v<typename T::value_type>);
    else if constexpr (is_device_scalar<T>::value)
        return b.device_scalar_slot(dtype_v<typename T::value_type>);
    else if constexpr (std::is_same_v<T, index_tag>)
        return b.index();
    else if constexpr (is_integral_constant<T>::value)
        return lower_terminal(b, T::value);
    else {
        static_assert(is_host_number_v<T>, "loom: an expression operand must be a loom::vector, a Loom "
                                           "expression or an arithmetic, std::complex or short vector (loom::float4) "
                                           "host scalar");
        return b.scalar_slot(dtype_v<T>);
    }
}

template <class E> detail::node_ref lower(detail::shape_builder& b, const E& e);

// %, &, |, ^, ~, << and >> take integers, as in C++: a floating-point operand is a compile-time
// error here rather than a loom::error when the statement runs.
template <class Tag, class E> constexpr void check_integral_operands() {
    constexpr bool integral_only =
        std::is_same_v<Tag, proto::tag::modulus> || std::is_same_v<Tag, proto::tag::bitwise_and> ||
        std::is_same_v<Tag, proto::tag::bitwise_or> || std::is_same_v<Tag, proto::tag::bitwise_xor> ||
        std::is_same_v<Tag, proto::tag::complement> || std::is_same_v<Tag, proto::tag::shift_left> ||
        std::is_same_v<Tag, proto::tag::shift_right>;
    if constexpr (integral_only) {
        using A = value_type_t<typename proto::result_of::child_c<E, 0>::type>;
        if constexpr (proto::arity_of<E>::value == 1) {
            static_assert(!std::is_floating_point_v<vector_component_t<A>>,
                          "loom: ~ needs an integer operand; this one is floating point");
        } else {
            using B = value_type_t<typename proto::result_of::child_c<E, 1>::type>;
            static_assert(!std::is_floating_point_v<vector_component_t<A>> &&
                              !std::is_floating_point_v<vector_component_t<B>>,
                          "loom: %, &, |, ^, << and >> need integer operands, and one of these is floating point: "
                          "use loom::fmod for a floating-point remainder, or loom::cast<int>(...) first");
        }
    }
}

// Complex numbers take what std::complex defines (docs/complex.md): + - * /, == and !=, and abs,
// arg, conj, real, imag, exp, log, sqrt. Anything else on a complex operand is rejected here, at
// compile time; the IR's typing rules (src/ir/shape_builder.cpp) say the same at run time.
template <class... A> inline constexpr bool any_complex_v = (is_complex_v<A> || ...);

template <class Tag, class E> constexpr void check_complex_operator() {
    constexpr bool defined = std::is_same_v<Tag, proto::tag::plus> || std::is_same_v<Tag, proto::tag::minus> ||
                             std::is_same_v<Tag, proto::tag::multiplies> || std::is_same_v<Tag, proto::tag::divides> ||
                             std::is_same_v<Tag, proto::tag::negate> || std::is_same_v<Tag, proto::tag::unary_plus> ||
                             std::is_same_v<Tag, proto::tag::equal_to> || std::is_same_v<Tag, proto::tag::not_equal_to>;
    if constexpr (!defined) {
        using A = value_type_t<typename proto::result_of::child_c<E, 0>::type>;
        if constexpr (proto::arity_of<E>::value == 1) {
            static_assert(!is_complex_v<A>, "loom: ! and ~ are not defined for complex operands; complex numbers "
                                            "take + - * /, == and !=");
        } else {
            using B = value_type_t<typename proto::result_of::child_c<E, 1>::type>;
            static_assert(!any_complex_v<A, B>,
                          "loom: complex numbers are not ordered and are not integers: <, >, <=, >=, %, &, |, ^, "
                          "<<, >>, && and || do not take them (compare loom::abs(z), or loom::real(z))");
        }
    }
}

template <opcode Op> inline constexpr bool defined_on_complex_v =
    Op == opcode::abs || Op == opcode::arg || Op == opcode::conj || Op == opcode::real || Op == opcode::imag ||
    Op == opcode::exp || Op == opcode::log || Op == opcode::sqrt;

template <class Fn, class... A> constexpr void check_complex_call() {
    if constexpr (is_cast<Fn>::value) {
        static_assert(is_complex_v<typename is_cast<Fn>::type> || !any_complex_v<A...>,
                      "loom::cast<T>: a complex value does not convert to a real type; take loom::real(z), "
                      "loom::imag(z) or loom::abs(z)");
    } else if constexpr (is_source_call<Fn>::value) {
        static_assert(!any_complex_v<A...>, "loom::function<R(A...)>: a source function takes real arguments; "
                                            "pass loom::real(z) and loom::imag(z)");
    } else if constexpr (function_opcode<Fn>::value == opcode::select) {
        static_assert(!any_complex_v<std::tuple_element_t<0, std::tuple<A...>>>,
                      "loom::where: a complex condition has no truth value; compare it with == or !=");
    } else if constexpr (!defined_on_complex_v<function_opcode<Fn>::value>) {
        static_assert(!any_complex_v<A...>,
                      "loom: this function is not defined for complex operands (complex numbers are not ordered: no "
                      "min, max, clamp, fmin, fmax, fmod); complex operands take abs, arg, conj, real, imag, exp, "
                      "log and sqrt, and polar(r, theta) makes one from real operands");
    }
}

// popcount, clz and ctz count the bits of an integer, and ldexp's exponent is one: rejected here,
// at compile time, as the IR's typing rules do at run time.
template <class Fn, class... A> constexpr void check_integer_call() {
    if constexpr (!is_cast<Fn>::value && !is_source_call<Fn>::value) {
        constexpr opcode op = function_opcode<Fn>::value;
        using first = std::tuple_element_t<0, std::tuple<A...>>;
        if constexpr (op == opcode::popcount || op == opcode::clz || op == opcode::ctz) {
            static_assert(std::is_integral_v<first> && !std::is_same_v<first, bool>,
                          "loom::popcount, loom::clz and loom::ctz count the bits of an integer of 8 to 64 bits, "
                          "and this operand is floating point, complex or bool: convert it with loom::cast<T>(...) "
                          "first");
        } else if constexpr (op == opcode::as_bits) {
            static_assert(std::is_arithmetic_v<first> && !std::is_same_v<first, bool>,
                          "loom::as_bits takes an integer, float or double: the bits of a complex number are "
                          "those of loom::real(z) and loom::imag(z), a bool has none of its own");
        } else if constexpr (op == opcode::ldexp) {
            using exponent = std::tuple_element_t<1, std::tuple<A...>>;
            static_assert(std::is_integral_v<exponent>,
                          "loom::ldexp(x, e): the exponent e must be an integer (convert it with loom::cast<int>)");
        }
    }
}

// Short vectors (docs/vector-types.md) take arithmetic, and bitwise operators and shifts on
// integer components, component by component; a scalar operand is broadcast. Two vectors must
// have one width, and a vector does not meet a complex number. Comparisons and logical operators
// are rejected: OpenCL C gives a mask per component, C++ gives none; compare components instead.
// The IR's typing rules (src/ir/shape_builder.cpp) say the same at run time.
template <class... A> inline constexpr bool any_short_vector_v = (is_short_vector_v<A> || ...);
template <class... A> inline constexpr bool one_width_v = ((vector_width<A>::value == 1 ||
                                                            vector_width<A>::value == result_width_v<A...>)&&...);

template <class... A> constexpr void check_vector_operands() {
    static_assert(one_width_v<A...>,
                  "loom: short vectors of different widths do not combine (a loom::float2 with a "
                  "loom::float4); take components with loom::get<I>, or make one with loom::make_vec");
    static_assert(!any_short_vector_v<A...> || !any_complex_v<A...>,
                  "loom: a short vector does not mix with a complex number");
}

template <class Tag, class E> constexpr void check_vector_operator() {
    using A = value_type_t<typename proto::result_of::child_c<E, 0>::type>;
    if constexpr (proto::arity_of<E>::value == 1) {
        static_assert(!std::is_same_v<Tag, proto::tag::logical_not> || !is_short_vector_v<A>,
                      "loom: ! takes no short vector (no truth value); compare its components, loom::get<I>(v)");
    } else {
        using B = value_type_t<typename proto::result_of::child_c<E, 1>::type>;
        constexpr bool compares =
            std::is_same_v<Tag, proto::tag::less> || std::is_same_v<Tag, proto::tag::greater> ||
            std::is_same_v<Tag, proto::tag::less_equal> || std::is_same_v<Tag, proto::tag::greater_equal> ||
            std::is_same_v<Tag, proto::tag::equal_to> || std::is_same_v<Tag, proto::tag::not_equal_to> ||
            std::is_same_v<Tag, proto::tag::logical_and> || std::is_same_v<Tag, proto::tag::logical_or>;
        static_assert(!compares || !any_short_vector_v<A, B>,
                      "loom: short vectors are not compared as a whole (OpenCL C gives a mask per component, C++ no "
                      "meaning): compare their components, loom::get<I>(v) or loom::x(v), or loom::dot or "
                      "loom::length of them");
        check_vector_operands<A, B>();
    }
}

template <class Fn, class... A> constexpr void check_vector_call() {
    if constexpr (any_short_vector_v<A...>) {
        if constexpr (function_opcode<Fn>::value == opcode::select) {
            static_assert(!is_short_vector_v<std::tuple_element_t<0, std::tuple<A...>>>,
                          "loom::where: the condition is one truth value per element, not a short vector");
        } else {
            constexpr opcode op = function_opcode<Fn>::value;
            static_assert(op != opcode::arg && op != opcode::conj && op != opcode::real && op != opcode::imag &&
                              op != opcode::polar,
                          "loom: arg, conj, real, imag and polar take complex numbers, not short vectors");
            static_assert(
                op != opcode::isnan && op != opcode::isinf && op != opcode::isfinite && op != opcode::isnormal &&
                    op != opcode::signbit && op != opcode::popcount && op != opcode::clz && op != opcode::ctz &&
                    op != opcode::as_bits,
                "loom: isnan ... signbit, popcount, clz, ctz and as_bits of a short vector would give one answer "
                "per component, as a comparison would: apply them to a component, loom::get<I>(v)");
        }
        check_vector_operands<A...>();
    }
}

template <class Fn> struct is_component_call : std::false_type {};
template <std::size_t I> struct is_component_call<component_tag<I>> : std::true_type {
    static constexpr unsigned index = unsigned(I);
};
template <class Fn> struct is_make_vector_call : std::false_type {};
template <class V> struct is_make_vector_call<make_vector_tag<V>> : std::true_type { using type = V; };

template <class E, std::size_t... I>
detail::node_ref lower_call(detail::shape_builder& b, const E& e, std::index_sequence<I...>) {
    using fn = std::decay_t<decltype(proto::value(proto::child_c<0>(e)))>;
    if constexpr (is_component_call<fn>::value) {
        using A = value_type_t<typename proto::result_of::child_c<E, 1>::type>;
        static_assert(is_short_vector_v<A>, "loom::get<I>: the operand is not a short vector (loom::float4, "
                                            "loom::int2, ...); a complex number's parts are loom::real and loom::imag");
        static_assert(is_component_call<fn>::index < vector_width<A>::value,
                      "loom::get<I>: I is past the vector's last component");
        return b.component(lower(b, proto::child_c<1>(e)), is_component_call<fn>::index);
    } else if constexpr (is_make_vector_call<fn>::value) {
        using V = typename is_make_vector_call<fn>::type;
        static_assert(sizeof...(I) == V::width, "loom::make_vec<V>: one operand per component of V");
        static_assert(!any_short_vector_v<value_type_t<typename proto::result_of::child_c<E, I + 1>::type>...> &&
                          !any_complex_v<value_type_t<typename proto::result_of::child_c<E, I + 1>::type>...>,
                      "loom::make_vec<V>: each component is a real scalar expression");
        const detail::node_ref args[] = {lower(b, proto::child_c<I + 1>(e))...};
        return b.make_vector(dtype_v<typename is_make_vector_call<fn>::type>, args, unsigned(sizeof...(I)));
    } else {
        check_complex_call<fn, value_type_t<typename proto::result_of::child_c<E, I + 1>::type>...>();
        check_integer_call<fn, value_type_t<typename proto::result_of::child_c<E, I + 1>::type>...>();
        if constexpr (is_cast<fn>::value) {
            using A = value_type_t<typename proto::result_of::child_c<E, 1>::type>;
            using T = typename is_cast<fn>::type;
            static_assert(!is_short_vector_v<A> || vector_width<T>::value == vector_width<A>::value,
                          "loom::cast<T>: a short vector converts only to a short vector of its width, component by "
                          "component; take a component with loom::get<I>(v)");
            static_assert(!is_short_vector_v<T> || !is_complex_v<A>,
                          "loom::cast<T>: a complex number is no short vector");
        } else if constexpr (!is_source_call<fn>::value) {
            check_vector_call<fn, value_type_t<typename proto::result_of::child_c<E, I + 1>::type>...>();
        }
        // Children are lowered in order, so slots are numbered left to right (as bind() visits them).
        detail::node_ref args[] = {lower(b, proto::child_c<I + 1>(e))...};
        if constexpr (is_cast<fn>::value) {
            return b.cast(dtype_v<typename is_cast<fn>::type>, args[0]);
        } else if constexpr (is_source_call<fn>::value) {
            // Which function is a value: shapes with calls are cached per function (lowered_once.hpp).
            return b.call(proto::value(proto::child_c<0>(e)).id, args, unsigned(sizeof...(I)));
        } else {
            constexpr opcode op = function_opcode<fn>::value;
            if constexpr (sizeof...(I) == 1)
                return b.apply(op, args[0]);
            else if constexpr (sizeof...(I) == 2)
                return b.apply(op, args[0], args[1]);
            else
                return b.apply(op, args[0], args[1], args[2]);
        }
    }
}

template <class E> detail::node_ref lower(detail::shape_builder& b, const E& e) {
    if constexpr (!proto::is_expr<E>::value) {
        return lower_terminal(b, e); // a bare vector or scalar on the right of `=`
    } else {
        using tag = typename proto::tag_of<E>::type;
        if constexpr (std::is_same_v<tag, proto::tag::terminal>) {
            return lower_terminal(b, proto::value(e));
        } else if constexpr (std::is_same_v<tag, proto::tag::function>) {
            return lower_call(b, e, std::make_index_sequence<proto::arity_of<E>::value - 1>{});
        } else {
            static_assert(is_operator_tag<tag>::value,
                          "loom: this operator cannot be used in a device expression (assignment, comma, "
                          "subscript, increment and address-of are not element-wise operations)");
            constexpr opcode op = opcode_of<tag>::value;
            check_complex_operator<tag, E>();
            check_integral_operands<tag, E>();
            check_vector_operator<tag, E>();
            if constexpr (proto::arity_of<E>::value == 1) {
                return b.apply(op, lower(b, proto::child_c<0>(e)));
            } else {
                const detail::node_ref l = lower(b, proto::child_c<0>(e));
                const detail::node_ref r = lower(b, proto::child_c<1>(e));
                return b.apply(op, l, r);
            }
        }
    }
}

// The shape of `target = e` for a target of element type T, built once per type pair.
template <class T, class E>
const detail::shape* assignment_shape(const E& e, detail::statement_target target = detail::statement_target::vector) {
    detail::shape_builder b(target);
    return b.finish_assignment(lower(b, e), dtype_v<T>);
}

// ---- binding: one statement's values, in slot order ---------------------------------

template <class V> void bind_terminal(detail::statement_recorder& r, const V& v) {
    using T = std::decay_t<V>;
    if constexpr (is_custom_terminal<T>::value) {
        v.bind(r);
    } else if constexpr (is_vector<T>::value) {
        r.vector_slot(v.buffer());
    } else if constexpr (is_device_scalar<T>::value) {
        r.device_scalar_slot(v.buffer());
    } else if constexpr (std::is_same_v<T, index_tag> || is_function_name<T>::value) {
        // no value to bind: the index is the element's own, a function name is in the shape
    } else if constexpr (is_integral_constant<T>::value) {
        bind_terminal(r, T::value);
    } else if constexpr (std::is_same_v<T, bool>) {
        const std::int32_t widened = v; // bool scalars travel as int32 (see shape_builder::scalar_slot)
        r.scalar_slot(&widened, sizeof widened);
    } else {
        r.scalar_slot(&v, sizeof v);
    }
}

template <class E> void bind(detail::statement_recorder& r, const E& e);

template <class E, std::size_t... I>
void bind_children(detail::statement_recorder& r, const E& e, std::index_sequence<I...>) {
    (bind(r, proto::child_c<I>(e)), ...);
}

template <class E> void bind(detail::statement_recorder& r, const E& e) {
    if constexpr (!proto::is_expr<E>::value) {
        bind_terminal(r, e);
    } else {
        using tag = typename proto::tag_of<E>::type;
        if constexpr (std::is_same_v<tag, proto::tag::terminal>) {
            bind_terminal(r, proto::value(e));
        } else {
            bind_children(r, e, std::make_index_sequence<proto::arity_of<E>::value>{});
        }
    }
}

} // namespace loom::expr

// The compound assignments of a device object (vector, scalar) whose member
// assign(expression) records `*this = expression`: x op= e is x = x op e.
#define LOOM_COMPOUND_ASSIGNMENT_(Self, op, proto_tag)                                                                 \
    template <class E> Self& operator op(E&& e) {                                                                      \
        return assign(                                                                                                 \
            ::loom::expr::make_node<::loom::expr::proto::tag::proto_tag>(::boost::cref(*this), std::forward<E>(e)));   \
    }
#define LOOM_COMPOUND_ASSIGNMENTS(Self)                                                                                \
    LOOM_COMPOUND_ASSIGNMENT_(Self, +=, plus)                                                                          \
    LOOM_COMPOUND_ASSIGNMENT_(Self, -=, minus)                                                                         \
    LOOM_COMPOUND_ASSIGNMENT_(Self, *=, multiplies)                                                                    \
    LOOM_COMPOUND_ASSIGNMENT_(Self, /=, divides)                                                                       \
    LOOM_COMPOUND_ASSIGNMENT_(Self, %=, modulus)                                                                       \
    LOOM_COMPOUND_ASSIGNMENT_(Self, &=, bitwise_and)                                                                   \
    LOOM_COMPOUND_ASSIGNMENT_(Self, |=, bitwise_or)                                                                    \
    LOOM_COMPOUND_ASSIGNMENT_(Self, ^=, bitwise_xor)                                                                   \
    LOOM_COMPOUND_ASSIGNMENT_(Self, <<=, shift_left)                                                                   \
    LOOM_COMPOUND_ASSIGNMENT_(Self, >>=, shift_right)
