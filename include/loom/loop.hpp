// loom::loop: a body of statements repeated on the device with no host round trip.
//
//   loom::loop(ctx, 1000, [&] { next = 0.5f * (loom::shift(u, -1) + loom::shift(u, 1)); loom::swap(u, next); });
//
// Each iteration's statements are fused and launched at the iteration's end without
// waiting for the device; the plan cache makes every iteration after the first reuse the
// first one's kernels. loom::loop_until also stops when a condition the body computes on
// the device holds, reading it back only every `check_every` iterations (docs/skeleton-loop.md).
#pragma once

#include <cstdint>
#include <type_traits>

#include "loom/context.hpp"
#include "loom/vector.hpp"

namespace loom {

using std::swap;

namespace detail {
template <class Body> void run_iteration(Body& body, std::uint64_t i) {
    if constexpr (std::is_invocable_v<Body&, std::uint64_t>) body(i);
    else body();
}
} // namespace detail

// Runs body() (or body(iteration)) `count` times; returns when all are enqueued.
template <class Body> void loop(const context& ctx, std::uint64_t count, Body&& body) {
    for (std::uint64_t i = 0; i < count; ++i) {
        detail::run_iteration(body, i);
        detail::flush(*ctx.impl(), detail::flush_point::loop);
    }
}

// Runs the body until stop() returns true or max_iterations have run; returns the number
// of iterations run. stop() is called after every `check_every` iterations (and after the
// last): it typically reads a device reduction such as loom::max(loom::fabs(r)) < tol, the
// only host synchronisation of the loop. Between checks the body keeps running, so the
// loop may run up to check_every - 1 iterations past the first one after which stop()
// would have held: check_every trades host round trips against that overshoot
// (check_every = 1 stops at exactly the first such iteration).
template <class Body, class Stop>
std::uint64_t loop_until(const context& ctx, Body&& body, Stop&& stop, std::uint64_t check_every = 16,
                         std::uint64_t max_iterations = ~std::uint64_t(0)) {
    if (check_every == 0) check_every = 1;
    std::uint64_t i = 0;
    while (i < max_iterations) {
        detail::run_iteration(body, i);
        detail::flush(*ctx.impl(), detail::flush_point::loop);
        ++i;
        if ((i % check_every == 0 || i == max_iterations) && stop()) break;
    }
    return i;
}

} // namespace loom
