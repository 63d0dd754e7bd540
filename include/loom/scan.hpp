// Prefix scans: inclusive_scan and exclusive_scan of any Loom expression into a vector,
// with + or a traced associative lambda. The input expression is fused into the scan's
// passes (no temporary); the output may be one of the input's vectors (in place).
// Pending statements run first. See docs/skeleton-scan.md.
//
//   loom::inclusive_scan(x, y);                       // y[i] = x[0] + ... + x[i]
//   loom::exclusive_scan(x * x, y, 0.0f);             // y[i] = 0 + x[0]^2 + ... + x[i-1]^2
//   loom::inclusive_scan(x, y, -INFINITY, [](auto a, auto b) { return loom::max(a, b); });
#pragma once

#include "loom/reduce.hpp"

namespace loom {
namespace detail {

struct scan_call {
    const shape* input = nullptr;
    const skeleton_operation* op = nullptr;
    bool exclusive = false;
    scalar_bits init;              // exclusive: the first output's bytes
    std::uint64_t view_length = 0; // the elements of the input's views, or 0
};
// Defined in src/runtime/run_scan.cpp; the input's slots are the last ones recorded.
void run_scan(context_impl& ctx, const scan_call& call, const buffer_ptr& output);

template <class E, class T, class Op>
void scan_expression(const E& e, vector<T>& output, bool exclusive, T init, T identity, const Op& op) {
    static_assert(expr::is_operand_v<E>, "loom: the input of a scan must be a loom::vector or a Loom expression");
    if (!output.buffer()) {
        if (expr::first_buffer(e) && length_of(**expr::first_buffer(e)) == 0) return;
        throw error("loom: scan into an empty loom::vector; construct the output with a context and a size first");
    }
    // An input that names no vector (loom::index() and scalars) runs in the output's context,
    // over the output's length.
    context_impl& ctx =
        expr::first_buffer(e) ? expr::context_of_expression(e, "loom scan") : *context_of(*output.buffer());
    std::unique_lock<std::recursive_mutex> lock(context_mutex(ctx));
    run_pending(ctx);
    const skeleton_operation s = expr::operation<T>(op, identity);
    scan_call call;
    call.input = expr::input_shape(e);
    call.op = &s;
    call.exclusive = exclusive;
    call.init = scalar_bits::of(init);
    statement_recorder recorder(ctx);
    expr::bind(recorder, e);
    call.view_length = recorder.view_length();
    run_scan(ctx, call, output.buffer());
}

} // namespace detail

// output[i] = input[0] + ... + input[i], computed in T (the output's element type).
template <class E, class T> void inclusive_scan(const E& input, vector<T>& output) {
    detail::scan_expression(input, output, false, T(0), T(0), detail::plus_operation{});
}

// output[i] = identity op input[0] op ... op input[i]; op must be associative, and
// identity its identity (op(identity, x) == x). Evaluated in T.
template <class E, class T, class Op>
void inclusive_scan(const E& input, vector<T>& output, typename vector<T>::value_type identity, const Op& op) {
    detail::scan_expression(input, output, false, identity, identity, op);
}

// output[i] = init + input[0] + ... + input[i-1] (output[0] = init, 0 when not given).
template <class E, class T>
void exclusive_scan(const E& input, vector<T>& output, typename vector<T>::value_type init = T(0)) {
    detail::scan_expression(input, output, true, init, T(0), detail::plus_operation{});
}

// output[i] = init op input[0] op ... op input[i-1], with op's identity.
template <class E, class T, class Op> void exclusive_scan(const E& input, vector<T>& output,
                                                          typename vector<T>::value_type init,
                                                          typename vector<T>::value_type identity, const Op& op) {
    detail::scan_expression(input, output, true, init, identity, op);
}

} // namespace loom
