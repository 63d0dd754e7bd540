// Reductions: sum, product, min, max, count, any, all, minmax and reduce with a traced
// lambda. The input is any Loom expression; its element-wise work is fused into the
// reduction's first pass, so `loom::sum(x * y)` reads x and y once and writes no
// temporary. Pending statements run first; the result comes back to the host, or with
// loom::on_device stays in a loom::scalar on the device.
// See docs/skeleton-reduce.md for the evaluation order, error bounds and NaN rules.
//
//   float dot = loom::sum(x * y);
//   loom::scalar<float> d = loom::sum(x * y, loom::on_device); // stays on the device, nothing waits
//   auto [lo, hi] = loom::minmax(x);
//   double m = loom::reduce(loom::fabs(x), 0.0, [](auto a, auto b) { return loom::max(a, b); });
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "loom/detail/operand_role.hpp"
#include "loom/detail/scalar_bits.hpp"
#include "loom/expr/operands.hpp"
#include "loom/expr/trace.hpp"
#include "loom/scalar.hpp"
#include "loom/vector.hpp"

namespace loom {
namespace detail {

// A binary operation traced once per (lambda type, operand type): its shape, and per
// slot who fills it.
struct traced_operation {
    const shape* body = nullptr;
    std::vector<operand_role> role;
};

// One operation of one call: the traced body, its identity and its captured values.
struct skeleton_operation {
    const traced_operation* op = nullptr;
    dtype type = dtype::f32;           // operand, identity and result type
    scalar_bits identity;              // the identity's bytes
    std::vector<scalar_bits> captures; // operand_role::capture values' bytes, in slot order
};

// What the front end asks of the library; defined in src/runtime/run_reduce.cpp.
// The input's slots are the last ones recorded in the context's queue (by a
// statement_recorder that is never committed).
struct reduce_call {
    const shape* input = nullptr;
    bool truth = false; // fold (value != 0) instead of the value
    const skeleton_operation* ops = nullptr;
    std::size_t op_count = 0;
    std::uint64_t view_length = 0; // the elements of the input's views (statement_recorder::view_length), or 0
};
// Where the results go: host memory (results[k], after a wait), or device scalars'
// buffers (targets[k], enqueued: nothing waits). Exactly one of the two is non-null.
struct reduce_results {
    void* const* host = nullptr;
    const buffer_ptr* device = nullptr;
};
void run_pending(context_impl& ctx);
void run_reduce(context_impl& ctx, const reduce_call& call, const reduce_results& results);

} // namespace detail

namespace expr {

// Slot roles and captured values of a traced operation tree, in slot order (the order
// lower() numbers slots and bind() visits terminals).
template <class E> void collect_operation_slots(const E& e, std::vector<detail::operand_role>* role,
                                                std::vector<detail::scalar_bits>* captures);

template <class E, std::size_t... I> void collect_children(const E& e, std::vector<detail::operand_role>* role,
                                                           std::vector<detail::scalar_bits>* captures,
                                                           std::index_sequence<I...>) {
    (collect_operation_slots(proto::child_c<I>(e), role, captures), ...);
}

template <class E> void collect_operation_slots(const E& e, std::vector<detail::operand_role>* role,
                                                std::vector<detail::scalar_bits>* captures) {
    if constexpr (!proto::is_expr<E>::value) {
        if constexpr (is_device_object<E>::value) {
            if (role) role->push_back(detail::operand_role::device_object);
        } else if constexpr (is_operand_tag<E>::value) {
            if (role) role->push_back(E::index == 0 ? detail::operand_role::left : detail::operand_role::right);
        } else if constexpr (is_host_number_v<E>) {
            if (role) role->push_back(detail::operand_role::capture);
            if (captures) {
                if constexpr (std::is_same_v<E, bool>)
                    captures->push_back(detail::scalar_bits::of(std::int32_t(e)));
                else
                    captures->push_back(detail::scalar_bits::of(e));
            }
        }
    } else if constexpr (std::is_same_v<typename proto::tag_of<E>::type, proto::tag::terminal>) {
        collect_operation_slots(proto::value(e), role, captures);
    } else {
        collect_children(e, role, captures, std::make_index_sequence<proto::arity_of<E>::value>{});
    }
}

template <class T, class Op> auto trace_operation(const Op& op) {
    const auto a = make_terminal(operand_tag<T, 0>{});
    const auto b = make_terminal(operand_tag<T, 1>{});
    auto tree = op(a, b);
    static_assert(is_expression_v<decltype(tree)>,
                  "loom: a reduction or scan operation must return an expression of its two arguments, built with "
                  "operators and Loom functions (loom::min, loom::where, ...)");
    return tree;
}

// The operation's shape and slot roles, lowered on first use; its captures on every call.
template <class T, class Op> detail::skeleton_operation operation(const Op& op, T identity) {
    using A = std::conditional_t<std::is_same_v<T, bool>, std::int32_t, T>; // bool travels as int32
    const auto tree = trace_operation<A>(op);
    const detail::traced_operation& traced = lowered_once(
        [&] {
            detail::traced_operation t;
            detail::shape_builder b;
            t.body = b.finish_assignment(lower(b, tree), dtype_v<A>);
            collect_operation_slots(tree, &t.role, nullptr);
            return t;
        },
        tree);
    detail::skeleton_operation s;
    s.op = &traced;
    s.type = dtype_v<A>;
    s.identity = detail::scalar_bits::of(A(identity));
    if (std::find(traced.role.begin(), traced.role.end(), detail::operand_role::capture) != traced.role.end())
        collect_operation_slots(tree, nullptr, &s.captures);
    return s;
}

// The shape of a reduction or scan input, lowered once per expression type.
template <class E> const detail::shape* input_shape(const E& e) {
    return lowered_once(
        [&] {
            detail::shape_builder b;
            return b.finish_expression(lower(b, e));
        },
        e);
}

// Several inputs lowered in order into one shape (its root, then more_roots), once per list of
// expression types: a reduction along an axis of a tuple's values, a keyed scan's keys and values.
template <class... E> const detail::shape* values_shape(const E&... e) {
    return lowered_once(
        [&] {
            detail::shape_builder b;
            const detail::node_ref roots[] = {lower(b, e)...};
            return b.finish_axis_input(roots, unsigned(sizeof...(E)));
        },
        e...);
}

} // namespace expr

namespace detail {

// Records the input's slots without committing them, and runs the reduction, which runs
// the pending statements first (fusing what it can into its first pass).
template <class E> void reduce_expression(const E& e, bool truth, const skeleton_operation* ops, std::size_t count,
                                          const reduce_results& results, const char* what) {
    static_assert(expr::is_operand_v<E>, "loom: the input of a reduction must be a loom::vector or a Loom expression");
    context_impl& ctx = expr::context_of_expression(e, what);
    std::unique_lock<std::recursive_mutex> lock(context_mutex(ctx));
    const shape* s = expr::input_shape(e);
    statement_recorder recorder(ctx);
    expr::bind(recorder, e);
    run_reduce(ctx, {s, truth, ops, count, recorder.view_length()}, results);
}

// What `reduction(e, loom::on_device)` returns: run when it is assigned to a loom::scalar,
// whose buffer the last pass writes. Keep it only within the statement that makes it.
template <class R, class E, class Op> struct device_reduction {
    E input; // a Loom expression (holding its vectors by reference)
    R identity;
    Op op;
    bool truth;
    const char* what;

    context_ptr context() const { return shared_context_of(**expr::first_buffer(input)); }
    void run_into(const buffer_ptr& target) const {
        const skeleton_operation s = expr::operation<R>(op, identity);
        const buffer_ptr targets[] = {target};
        reduce_expression(input, truth, &s, 1, {nullptr, targets}, what);
    }
};

template <class R, class E, class Op>
auto make_device_reduction(const E& e, R identity, const Op& op, bool truth, const char* what) {
    static_assert(expr::is_operand_v<E>, "loom: the input of a reduction must be a loom::vector or a Loom expression");
    expr::context_of_expression(e, what); // a vector with a context, checked now
    auto input = expr::as_operand(e);
    return device_reduction<R, decltype(input), Op>{input, identity, op, truth, what};
}

template <class R, class E, class Op>
R reduce_value(const E& e, R identity, const Op& op, bool truth, const char* what) {
    using A = std::conditional_t<std::is_same_v<R, bool>, std::int32_t, R>;
    const skeleton_operation s = expr::operation<R>(op, identity);
    A value{};
    void* results[] = {&value};
    reduce_expression(e, truth, &s, 1, {results, nullptr}, what);
    return R(value);
}

struct plus_operation {
    template <class A, class B> auto operator()(const A& a, const B& b) const { return a + b; }
};
struct multiplies_operation {
    template <class A, class B> auto operator()(const A& a, const B& b) const { return a * b; }
};
struct min_operation {
    template <class A, class B> auto operator()(const A& a, const B& b) const { return loom::min(a, b); }
};
struct max_operation {
    template <class A, class B> auto operator()(const A& a, const B& b) const { return loom::max(a, b); }
};

// count, any and all fold truth values, which a complex number does not have.
template <class E> constexpr void check_truth_input() {
    static_assert(!is_complex_v<expr::value_type_t<E>>,
                  "loom::count, loom::any and loom::all: a complex value has no truth value; compare it with == or != "
                  "first (loom::count(z != 0))");
    static_assert(!is_short_vector_v<expr::value_type_t<E>>,
                  "loom::count, loom::any and loom::all: a short vector has no truth value; count a component's "
                  "(loom::count(loom::x(v) != 0))");
}

// A short vector's identities are its component type's in every component (min and max fold
// component by component).
template <class T> constexpr T min_identity() {
    if constexpr (is_short_vector_v<T>)
        return T(min_identity<typename T::component_type>());
    else if constexpr (std::numeric_limits<T>::has_infinity)
        return std::numeric_limits<T>::infinity();
    else
        return std::numeric_limits<T>::max();
}
template <class T> constexpr T max_identity() {
    if constexpr (is_short_vector_v<T>)
        return T(max_identity<typename T::component_type>());
    else if constexpr (std::numeric_limits<T>::has_infinity)
        return -std::numeric_limits<T>::infinity();
    else
        return std::numeric_limits<T>::lowest();
}

} // namespace detail

// The type a sum or product of E's values has: C++'s promotion of the element type
// (int8 and int16 sum in int, float in float, uint32 in uint32).
// A short vector's sum is one of its promoted components (char4 sums in int4).
template <class E> using sum_type_t = expr::arithmetic_t<expr::value_type_t<E>, expr::value_type_t<E>>;
// The element type of an expression (what min and max return).
template <class E> using value_type_t = expr::value_type_t<E>;

// User reduction: folds the input's values with op, starting from identity, in the
// identity's type. op must be associative and commutative (like std::reduce): the
// order of evaluation is a tree, not left to right. op is traced like a map lambda.
template <class E, class T, class Op> T reduce(const E& e, T identity, const Op& op) {
    static_assert(is_element_type_v<T>, "loom::reduce: the identity's type (the result type) must be an element type");
    return detail::reduce_value<T>(e, identity, op, false, "loom::reduce");
}

// The type a sum or product is computed and returned in: R where the caller names one
// (loom::sum<std::int64_t>(x): each value converted to R, then summed in R), else sum_type_t<E>.
template <class R, class E> using accumulate_t = std::conditional_t<std::is_void_v<R>, sum_type_t<E>, R>;

template <class R = void, class E> accumulate_t<R, E> sum(const E& e) {
    using T = accumulate_t<R, E>;
    static_assert(is_element_type_v<T>, "loom::sum<R>: R must be an element type");
    return detail::reduce_value<T>(e, T(0), detail::plus_operation{}, false, "loom::sum");
}

template <class R = void, class E> accumulate_t<R, E> product(const E& e) {
    using T = accumulate_t<R, E>;
    static_assert(is_element_type_v<T>, "loom::product<R>: R must be an element type");
    return detail::reduce_value<T>(e, T(1), detail::multiplies_operation{}, false, "loom::product");
}

// NaN elements are skipped; with no number in the input, min is +infinity (the largest
// value for integers) and max -infinity (the lowest value).
template <class E> value_type_t<E> min(const E& e) {
    using R = value_type_t<E>;
    return detail::reduce_value<R>(e, detail::min_identity<R>(), detail::min_operation{}, false, "loom::min");
}
template <class E> value_type_t<E> max(const E& e) {
    using R = value_type_t<E>;
    return detail::reduce_value<R>(e, detail::max_identity<R>(), detail::max_operation{}, false, "loom::max");
}

// The number of elements that are nonzero (true); NaN counts as nonzero, as in C++.
template <class E> std::uint64_t count(const E& e) {
    detail::check_truth_input<E>();
    return detail::reduce_value<std::uint64_t>(e, 0, detail::plus_operation{}, true, "loom::count");
}
// Whether any element / every element is nonzero. all() of an empty input is true.
template <class E> bool any(const E& e) {
    detail::check_truth_input<E>();
    return detail::reduce_value<std::int32_t>(e, 0, detail::max_operation{}, true, "loom::any") != 0;
}
template <class E> bool all(const E& e) {
    detail::check_truth_input<E>();
    return detail::reduce_value<std::int32_t>(e, 1, detail::min_operation{}, true, "loom::all") != 0;
}

// The same reductions with the result left on the device, in a loom::scalar of the
// reduction's type: `loom::scalar<float> s = loom::sum(x, loom::on_device);` enqueues
// the passes and returns; nothing waits. any and all give an int32 scalar (0 or 1).
template <class E, class T, class Op> auto reduce(const E& e, T identity, const Op& op, on_device_t) {
    static_assert(is_element_type_v<T>, "loom::reduce: the identity's type (the result type) must be an element type");
    return detail::make_device_reduction<T>(e, identity, op, false, "loom::reduce");
}
template <class R = void, class E> auto sum(const E& e, on_device_t) {
    using T = accumulate_t<R, E>;
    return detail::make_device_reduction<T>(e, T(0), detail::plus_operation{}, false, "loom::sum");
}
template <class R = void, class E> auto product(const E& e, on_device_t) {
    using T = accumulate_t<R, E>;
    return detail::make_device_reduction<T>(e, T(1), detail::multiplies_operation{}, false, "loom::product");
}
template <class E> auto min(const E& e, on_device_t) {
    using R = value_type_t<E>;
    return detail::make_device_reduction<R>(e, detail::min_identity<R>(), detail::min_operation{}, false, "loom::min");
}
template <class E> auto max(const E& e, on_device_t) {
    using R = value_type_t<E>;
    return detail::make_device_reduction<R>(e, detail::max_identity<R>(), detail::max_operation{}, false, "loom::max");
}
template <class E> auto count(const E& e, on_device_t) {
    detail::check_truth_input<E>();
    return detail::make_device_reduction<std::uint64_t>(e, 0, detail::plus_operation{}, true, "loom::count");
}
template <class E> auto any(const E& e, on_device_t) {
    detail::check_truth_input<E>();
    return detail::make_device_reduction<std::int32_t>(e, 0, detail::max_operation{}, true, "loom::any");
}
template <class E> auto all(const E& e, on_device_t) {
    detail::check_truth_input<E>();
    return detail::make_device_reduction<std::int32_t>(e, 1, detail::min_operation{}, true, "loom::all");
}

// min and max in one pass over the input.
template <class E> std::pair<value_type_t<E>, value_type_t<E>> minmax(const E& e) {
    using R = value_type_t<E>;
    using A = std::conditional_t<std::is_same_v<R, bool>, std::int32_t, R>;
    const detail::skeleton_operation ops[] = {expr::operation<R>(detail::min_operation{}, detail::min_identity<R>()),
                                              expr::operation<R>(detail::max_operation{}, detail::max_identity<R>())};
    A lo{}, hi{};
    void* results[] = {&lo, &hi};
    detail::reduce_expression(e, false, ops, 2, {results, nullptr}, "loom::minmax");
    return {R(lo), R(hi)};
}

// min and max in one pass, left on the device.
template <class E> std::pair<scalar<value_type_t<E>>, scalar<value_type_t<E>>> minmax(const E& e, on_device_t) {
    using R = value_type_t<E>;
    static_assert(!std::is_same_v<R, bool>, "loom::minmax(e, loom::on_device): cast a bool input to an integer type");
    const detail::skeleton_operation ops[] = {expr::operation<R>(detail::min_operation{}, detail::min_identity<R>()),
                                              expr::operation<R>(detail::max_operation{}, detail::max_identity<R>())};
    expr::context_of_expression(e, "loom::minmax"); // a vector with a context, checked first
    const context ctx(detail::shared_context_of(**expr::first_buffer(e)));
    std::pair<scalar<R>, scalar<R>> result{scalar<R>(ctx), scalar<R>(ctx)};
    const detail::buffer_ptr targets[] = {result.first.buffer(), result.second.buffer()};
    detail::reduce_expression(e, false, ops, 2, {nullptr, targets}, "loom::minmax");
    return result;
}

} // namespace loom
