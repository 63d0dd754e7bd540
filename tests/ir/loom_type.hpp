// The type Loom's shape builder gives an operation on vectors of given element types, for the
// typing-rule tests of this suite.
#pragma once

#include "loom/detail/shape_builder.hpp"
#include "loom/dtype.hpp"

namespace loom::test {

template <class T> dtype dt() { return dtype_v<T>; }

// The type of `op` applied to vectors of the types T... (one, two or three operands).
template <class... T> dtype loom_type(opcode op) {
    detail::shape_builder b;
    const detail::node_ref args[] = {b.vector_slot(dt<T>())...};
    if constexpr (sizeof...(T) == 1)
        return b.type_of(b.apply(op, args[0]));
    else if constexpr (sizeof...(T) == 2)
        return b.type_of(b.apply(op, args[0], args[1]));
    else
        return b.type_of(b.apply(op, args[0], args[1], args[2]));
}

} // namespace loom::test
