// loom::index(ctx, n): the element index over n elements of a context, an operand that gives an
// expression naming no vector its context and its length (VexCL's element_index(0, n), Thrust's
// counting_iterator), so that a reduction or a scan can run over a computed sequence alone:
//
//   const auto i = loom::index(ctx, n);
//   double s = loom::sum(1.0 / loom::cast<double>(i + 1));        // the harmonic number H(n)
//   std::uint64_t inside = loom::count(loom::pow(loom::random_uniform<float>(i, seed, 0), 2) +
//                                      loom::pow(loom::random_uniform<float>(i, seed, 1), 2) <= 1.0f);
//
// In an assignment it is loom::index() with a length check: the target must have n elements.
#pragma once

#include <cstdint>

#include "loom/context.hpp"
#include "loom/detail/runtime.hpp"
#include "loom/detail/shape_builder.hpp"
#include "loom/expr/domain.hpp"
#include "loom/expr/operands.hpp"
#include "loom/expr/value_type.hpp"

namespace loom {
namespace expr {

struct counted_index {
    // Names the context and the length; it has no device memory and never gets any (no kernel
    // reads it).
    detail::buffer_ptr extent;
    std::uint64_t length = 0;

    static detail::node_ref lower(detail::shape_builder& b) { return b.index(); }
    void bind(detail::statement_recorder& r) const {
        r.same_context(*extent, "loom::index(ctx, n)");
        r.view_extent(length);
    }
    first_operand_t operand() const { return {&extent, length}; }
    bool reads(const detail::buffer*) const { return false; }
};
template <> struct terminal_value_type<counted_index> { using type = std::uint64_t; };

} // namespace expr

// The element index i (a std::uint64_t) of n elements of `ctx`.
inline auto index(const context& ctx, std::uint64_t n) {
    return expr::make_terminal(expr::counted_index{detail::new_buffer(ctx.impl(), n, dtype::u8), n});
}

} // namespace loom
