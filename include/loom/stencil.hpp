// Stencils: reading neighbours of the element being computed.
//
//   y = x + 0.5f * (loom::shift(x, -1) + loom::shift(x, 1));             // 1-D, clamped at the ends
//   auto g = loom::grid(u, nx, ny);                                       // u viewed as ny rows of nx
//   v = loom::at(g, -1, 0) + loom::at(g, 1, 0) + loom::at(g, 0, -1) + loom::at(g, 0, 1) - 4.0f * u;
//
// Offsets are kernel arguments (one kernel serves every offset); the boundary policy is
// part of the kernel: loom::boundary::clamp (the default), loom::boundary::wrap, or
// loom::boundary::constant(value).
// A statement that reads its own target at other indices is computed into a temporary
// first, so `x = shift(x, 1)` is well defined. The fusion pass ends a kernel before a
// neighbour read of a vector the kernel writes, and before a write to a vector it reads
// at other indices (docs/skeleton-stencil.md).
#pragma once

#include <cstdint>
#include <string>

#include "loom/expr/operands.hpp"
#include "loom/vector.hpp"

namespace loom {

namespace boundary {
struct clamp_t {};
struct wrap_t {};
template <class T> struct constant_t { T value; };
inline constexpr clamp_t clamp{};                                      // the nearest element inside
inline constexpr wrap_t wrap{};                                        // periodic
template <class T> constant_t<T> constant(T value) { return {value}; } // this value outside
} // namespace boundary

namespace expr {

using boundary::clamp_t;
using boundary::constant_t;
using boundary::wrap_t;

template <class Policy> struct policy_of;
template <> struct policy_of<clamp_t> { static constexpr boundary_policy value = boundary_policy::clamp; };
template <> struct policy_of<wrap_t> { static constexpr boundary_policy value = boundary_policy::wrap; };
template <class T> struct policy_of<constant_t<T>> {
    static constexpr boundary_policy value = boundary_policy::constant;
};

// The terminal of a neighbour read: which vector, the offsets, the grid width (0 for 1-D).
template <class T, class Policy, bool TwoD> struct neighbour_read {
    const loom::vector<T>* source;
    std::int64_t di, dj, width;
    Policy policy;

    static detail::node_ref lower(detail::shape_builder& b) {
        return b.neighbour_slot(dtype_v<T>, policy_of<Policy>::value, TwoD);
    }
    first_operand_t operand() const { return {source->buffer() ? &source->buffer() : nullptr, source->size()}; }
    bool reads(const detail::buffer* b) const { return source->buffer().get() == b; }
    // An offset as the kernel gets it: a wrapped one reduced to the equivalent offset nearest 0
    // (in (-extent/2, extent/2]), any other held in [-extent, extent], which reads the same
    // elements (all past the end beyond it). Both keep the kernel's index arithmetic clear of
    // 64-bit overflow for any offset, and a small offset stays small, so the kernel's interior
    // (the elements whose neighbours lie inside, read with no border test) is the vector but
    // its ends: -1 as extent - 1 would put every element in the checked border.
    static std::int64_t bounded(std::int64_t k, std::int64_t extent) {
        if (extent <= 0) return 0;
        if constexpr (policy_of<Policy>::value == boundary_policy::wrap) {
            const std::int64_t r = k % extent; // in (-extent, extent)
            if (r > extent / 2) return r - extent;
            if (r < -(extent - 1) / 2) return r + extent;
            return r;
        }
        return k < -extent ? -extent : (k > extent ? extent : k);
    }
    void bind(detail::statement_recorder& r) const {
        r.vector_slot(source->buffer());
        const std::int64_t size = std::int64_t(source->size());
        const std::int64_t i = bounded(di, TwoD ? width : size);
        r.scalar_slot(&i, sizeof i);
        if constexpr (TwoD) {
            const std::int64_t j = bounded(dj, width > 0 ? size / width : 0);
            r.scalar_slot(&j, sizeof j);
            r.scalar_slot(&width, sizeof width);
        }
        if constexpr (policy_of<Policy>::value == boundary_policy::constant) {
            const T value = T(policy.value);
            r.scalar_slot(&value, sizeof value);
        }
    }
};

template <class T, class Policy, bool TwoD> auto make_neighbour_read(const neighbour_read<T, Policy, TwoD>& n) {
    return proto::make_expr<proto::tag::terminal, domain>(n);
}

} // namespace expr

// x[i + k] for every element i, with a boundary policy past either end.
template <class T, class Policy = boundary::clamp_t>
auto shift(const vector<T>& x, std::int64_t k, Policy policy = {}) {
    return expr::make_neighbour_read(expr::neighbour_read<T, Policy, false>{&x, k, 0, 0, policy});
}

// A vector viewed as a grid of ny rows of nx elements (element (i, j) at j * nx + i).
template <class T> struct grid_view {
    const vector<T>* source;
    std::int64_t nx, ny;
};

template <class T> grid_view<T> grid(const vector<T>& v, std::size_t nx, std::size_t ny) {
    if (nx == 0 || v.size() % nx != 0 || v.size() / nx != ny) // nx * ny may overflow: divide
        throw error("loom: grid of " + std::to_string(nx) + " x " + std::to_string(ny) +
                    " does not match a vector of " + std::to_string(v.size()) +
                    " elements; nx * ny must equal the vector's size");
    return {&v, std::int64_t(nx), std::int64_t(ny)};
}

// Element (x + di, y + dj) of a grid, for every element (x, y).
template <class T, class Policy = boundary::clamp_t>
auto at(const grid_view<T>& g, std::int64_t di, std::int64_t dj, Policy policy = {}) {
    return expr::make_neighbour_read(expr::neighbour_read<T, Policy, true>{g.source, di, dj, g.nx, policy});
}

} // namespace loom
