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

#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>

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

// The terminal of a neighbour read: which vector, the offsets, the extents of its grid
// (width: elements per row, 0 in 1-D; height: rows per plane, 0 below 3-D). The vector's buffer
// is held as an expression holds a vector (vector_ref): a read of an expression holds the one
// the expression was computed into.
template <class T, class Policy, unsigned Dimensions> struct neighbour_read {
    static_assert(Dimensions >= 1 && Dimensions <= 3, "loom: neighbour reads have 1, 2 or 3 dimensions");
    vector_ref<T> source;
    std::int64_t di, dj, dk, width, height;
    Policy policy;

    static detail::node_ref lower(detail::shape_builder& b) {
        return b.neighbour_slot(dtype_v<T>, policy_of<Policy>::value, Dimensions);
    }
    first_operand_t operand() const { return source.operand(); }
    bool reads(const detail::buffer* b) const { return source.reads(b); }
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
    // In the order shape_builder::neighbour_slot declares them.
    void bind(detail::statement_recorder& r) const {
        r.vector_slot(source.memory.get());
        const std::int64_t size = std::int64_t(source.size);
        const std::int64_t i = bounded(di, Dimensions >= 2 ? width : size);
        r.scalar_slot(&i, sizeof i);
        if constexpr (Dimensions >= 2) {
            const std::int64_t rows = Dimensions == 3 ? height : (width > 0 ? size / width : 0);
            const std::int64_t j = bounded(dj, rows);
            r.scalar_slot(&j, sizeof j);
            r.scalar_slot(&width, sizeof width);
        }
        if constexpr (Dimensions == 3) {
            const std::int64_t k = bounded(dk, width > 0 && height > 0 ? size / (width * height) : 0);
            r.scalar_slot(&k, sizeof k);
            r.scalar_slot(&height, sizeof height);
        }
        if constexpr (policy_of<Policy>::value == boundary_policy::constant) {
            const T value = T(policy.value);
            r.scalar_slot(&value, sizeof value);
        }
    }
};

template <class T, class Policy, unsigned Dimensions>
auto make_neighbour_read(const neighbour_read<T, Policy, Dimensions>& n) {
    return make_terminal(n);
}

// A convolution's coefficient: a host number passed as a kernel argument of its own, never
// merged with an equal one, so that new coefficients never change the kernel.
template <class C> struct coefficient {
    C value;
    static detail::node_ref lower(detail::shape_builder& b) { return b.operand_slot(dtype_v<C>); }
    void bind(detail::statement_recorder& r) const { r.scalar_slot(&value, sizeof value); }
};
template <class C> struct terminal_value_type<coefficient<C>> { using type = C; };

// The vector a neighbour read of `e` reads: e itself when it is a vector, else a new vector
// holding e's value (a statement recorded now, so the read sees e as it is at this line).
template <class E> struct stencil_source {
    using value_type = std::conditional_t<is_vector<std::decay_t<E>>::value, value_type_t<E>,
                                          std::conditional_t<std::is_same_v<value_type_t<E>, bool>, std::int32_t,
                                                             value_type_t<E>>>;
    vector_ref<value_type> source;
};
template <class E> stencil_source<E> stencil_source_of(const E& e) {
    static_assert(is_operand_v<E>, "loom: a stencil reads a loom::vector or a Loom expression");
    if constexpr (is_vector<std::decay_t<E>>::value) {
        return {vector_ref<value_type_t<E>>::of(e)};
    } else {
        using V = typename stencil_source<E>::value_type;
        return {vector_ref<V>::of(loom::vector<V>(e))};
    }
}

} // namespace expr

// x[i + k] for every element i, with a boundary policy past either end. x is a vector or an
// expression (computed into a temporary first: the read is a kernel boundary after it).
template <class E, class Policy = boundary::clamp_t> auto shift(const E& x, std::int64_t k, Policy policy = {}) {
    auto s = expr::stencil_source_of(x);
    using T = typename decltype(s)::value_type;
    return expr::make_neighbour_read(expr::neighbour_read<T, Policy, 1>{s.source, k, 0, 0, 0, 0, policy});
}

// A vector viewed as a grid of ny rows of nx elements (element (i, j) at j * nx + i).
template <class T> struct grid_view {
    expr::vector_ref<T> source;
    std::int64_t nx, ny;
};

// A vector viewed as nz planes of ny rows of nx elements (element (i, j, k) at
// (k * ny + j) * nx + i).
template <class T> struct grid3_view {
    expr::vector_ref<T> source;
    std::int64_t nx, ny, nz;
};

namespace detail {
template <class Tap, std::size_t... I> auto sum_of_taps(const Tap& tap, std::index_sequence<I...>) {
    return (tap(I) + ...);
}

// Throws unless the extents multiply to n (compared by division: the product may overflow).
inline void check_grid(std::size_t n, std::initializer_list<std::size_t> extents) {
    std::size_t rest = n;
    bool fits = true;
    for (std::size_t e : extents) {
        if (e == 0 || rest % e != 0) {
            fits = false;
            break;
        }
        rest /= e;
    }
    if (fits && rest == 1) return;
    std::string shape;
    for (std::size_t e : extents) shape += (shape.empty() ? "" : " x ") + std::to_string(e);
    throw length_error("loom: grid of " + shape + " does not match a vector of " + std::to_string(n) +
                       " elements; the extents' product must equal the vector's size, and none may be 0");
}
} // namespace detail

// x (a vector or an expression) as a grid of ny rows of nx elements.
template <class E> auto grid(const E& x, std::size_t nx, std::size_t ny) {
    auto s = expr::stencil_source_of(x);
    using T = typename decltype(s)::value_type;
    detail::check_grid(s.source.size, {nx, ny});
    return grid_view<T>{s.source, std::int64_t(nx), std::int64_t(ny)};
}

// x as nz planes of ny rows of nx elements.
template <class E> auto grid(const E& x, std::size_t nx, std::size_t ny, std::size_t nz) {
    auto s = expr::stencil_source_of(x);
    using T = typename decltype(s)::value_type;
    detail::check_grid(s.source.size, {nx, ny, nz});
    return grid3_view<T>{s.source, std::int64_t(nx), std::int64_t(ny), std::int64_t(nz)};
}

// Element (x + di, y + dj) of a grid, for every element (x, y); each coordinate takes the
// policy at its own edges.
template <class T, class Policy = boundary::clamp_t>
auto at(const grid_view<T>& g, std::int64_t di, std::int64_t dj, Policy policy = {}) {
    return expr::make_neighbour_read(expr::neighbour_read<T, Policy, 2>{g.source, di, dj, 0, g.nx, 0, policy});
}

// Element (x + di, y + dj, z + dk) of a 3-D grid, for every element (x, y, z).
template <class T, class Policy = boundary::clamp_t>
auto at(const grid3_view<T>& g, std::int64_t di, std::int64_t dj, std::int64_t dk, Policy policy = {}) {
    return expr::make_neighbour_read(
        expr::neighbour_read<T, Policy, 3>{g.source, di, dj, dk, g.nx, g.ny, policy});
}

// sum over t of coeffs[t] * x[i + t - center] for every element i: a stencil given by its
// coefficients, one kernel with one read per coefficient. The coefficients are kernel
// arguments (new values compile nothing); their count is part of the expression's type.
// center defaults to the middle coefficient.
template <class C, std::size_t N, class E, class Policy = boundary::clamp_t>
auto convolve(const std::array<C, N>& coeffs, const E& x, std::size_t center = N / 2, Policy policy = {}) {
    static_assert(N > 0, "loom::convolve: give at least one coefficient");
    static_assert(is_element_type_v<C>, "loom::convolve: the coefficients are host numbers of an element type");
    if (center >= N)
        throw error("loom::convolve: center " + std::to_string(center) + " is not one of the " + std::to_string(N) +
                    " coefficients");
    auto s = expr::stencil_source_of(x);
    using T = typename decltype(s)::value_type;
    auto tap = [&](std::size_t t) {
        const std::int64_t k = std::int64_t(t) - std::int64_t(center);
        const auto c = expr::make_terminal(expr::coefficient<C>{coeffs[t]});
        return c * expr::make_neighbour_read(
                               expr::neighbour_read<T, Policy, 1>{s.source, k, 0, 0, 0, 0, policy});
    };
    return detail::sum_of_taps(tap, std::make_index_sequence<N>{});
}

} // namespace loom
