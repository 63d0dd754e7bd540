// loom::loop: a body of statements repeated on the device with no host round trip.
//
//   loom::loop(ctx, 1000, [&] { next = 0.5f * (loom::shift(u, -1) + loom::shift(u, 1)); loom::swap(u, next); });
//
// Each iteration's statements are fused and launched at the iteration's end without
// waiting for the device; the plan cache makes every iteration after the first reuse the
// first one's kernels. loom::loop_while runs while a condition on loom::scalars holds on
// the device, and stops at exactly the right iteration although the host looks at the
// condition only every `check_every` iterations. loom::loop_until takes a host predicate
// instead (docs/skeleton-loop.md).
#pragma once

#include <cstdint>
#include <type_traits>

#include "loom/context.hpp"
#include "loom/scalar.hpp"
#include "loom/vector.hpp"

namespace loom {

namespace detail {
template <class Body> void run_iteration(Body& body, std::uint64_t i) {
    if constexpr (std::is_invocable_v<Body&, std::uint64_t>)
        body(i);
    else
        body();
}
} // namespace detail

// Runs body() (or body(iteration)) `count` times; returns when all are enqueued.
template <class Body> void loop(const context& ctx, std::uint64_t count, Body&& body) {
    for (std::uint64_t i = 0; i < count; ++i) {
        detail::run_iteration(body, i);
        detail::flush(*ctx.impl(), detail::flush_point::loop);
    }
}

// while (condition && iterations < max_iterations) body();  with the condition on the
// device: a loom::scalar, or an expression of scalars and host values such as
// `residual > tol`, where the body updates the scalars (residual = loom::max(...,
// loom::on_device)). Returns the number of iterations that ran.
//
// The host issues iterations without waiting and reads the condition back every
// `check_every` iterations, the loop's only host synchronisations. The iterations it
// issues after the condition fell on the device do nothing there: every kernel of the
// body checks a device flag first. loom::swap calls of those iterations are taken back
// when the loop ends, so the vectors end exactly as after the last iteration that ran.
// Other host-side effects of the body (counters, host transfers) happen once per issued
// iteration. check_every trades host round trips against up to check_every - 1 idle
// iterations issued at the end. Loops of this kind do not nest on one context.
template <class Condition, class Body> std::uint64_t loop_while(const context& ctx, const Condition& condition,
                                                                Body&& body, std::uint64_t check_every = 16,
                                                                std::uint64_t max_iterations = ~std::uint64_t(0)) {
    static_assert(expr::is_operand_v<Condition>,
                  "loom::loop_while: the condition must be a loom::scalar or an expression of scalars, such as "
                  "residual > tol");
    if (check_every == 0) check_every = 1;
    scalar<std::int32_t> active(ctx); // 1 while the loop runs on the device
    scalar<std::uint64_t> ran(ctx);   // iterations that ran there
    active = condition != 0;
    detail::device_loop_scope scope(*ctx.impl(), active.buffer());
    std::uint64_t issued = 0;
    while (issued < max_iterations) {
        scope.begin_body(issued);
        detail::run_iteration(body, issued);
        scope.end_body();
        // The bookkeeping: at the end of the body's last reduction pass when the body ends
        // with a reduction into scalars, else one small kernel (both statements fuse).
        ran += active;
        active = active && condition != 0;
        scope.end_iteration();
        ++issued;
        if ((issued % check_every == 0 || issued == max_iterations) && active.value() == 0) break;
    }
    const std::uint64_t iterations = ran.value();
    scope.finish(iterations);
    return iterations;
}

// Runs the body until stop() returns true or max_iterations have run; returns the number
// of iterations run. stop() is called after every `check_every` iterations (and after the
// last): it typically reads a device reduction such as loom::max(loom::fabs(r)) < tol, the
// only host synchronisation of the loop. Between checks the body keeps running, so the
// loop may run up to check_every - 1 iterations past the first one after which stop()
// would have held: check_every trades host round trips against that overshoot
// (check_every = 1 stops at exactly the first such iteration).
template <class Body, class Stop> std::uint64_t loop_until(const context& ctx, Body&& body, Stop&& stop,
                                                           std::uint64_t check_every = 16,
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
