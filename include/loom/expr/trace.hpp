// Tracing C++ lambdas into Loom expressions. A lambda is called with Loom expressions as
// symbolic arguments; since Loom's domain holds every child by value (vectors by
// reference), the tree a lambda returns never refers to its parameters, locals or
// temporaries. This header adds the operands of traced binary operations (reduce,
// scan) and the compile-time value type of an expression.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "loom/expr/domain.hpp"
#include "loom/expr/value_type.hpp"
#include "loom/expr/functions.hpp"
#include "loom/expr/lower.hpp"

namespace loom {
namespace expr {

// A map operand as the traced lambda sees it: a device object becomes a terminal holding it as
// any expression does (held_t: its buffer's claim, so the traced result may outlive it), a host
// scalar a terminal holding its value; an expression stays as it is.
template <class A> auto as_operand(const A& a) { return as_child(a); }

// An argument of a traced reduction or scan operation: the N-th operand (0 = the
// accumulated value, 1 = the next element), of type T. Lowers to a scalar slot.
template <class T, int N> struct operand_tag { static constexpr int index = N; };
template <class T> struct is_operand_tag : std::false_type {};
template <class T, int N> struct is_operand_tag<operand_tag<T, N>> : std::true_type {};

// Found by lower() through argument-dependent lookup: an operand is a scalar slot.
template <class T, int N> detail::node_ref lower_terminal(detail::shape_builder& b, const operand_tag<T, N>&) {
    return b.scalar_slot(dtype_v<T>);
}

} // namespace expr

namespace expr {

template <class T, int N> struct terminal_value_type<operand_tag<T, N>> { using type = T; };

} // namespace expr
} // namespace loom
