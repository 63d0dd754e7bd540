// Reductions along an axis of a 2-D expression: loom::sum, product, min, max and reduce with
// loom::axis<1> (one value per row) or loom::axis<0> (per column), of one expression or of a
// std::tuple of them, in one kernel that computes the input per element; the result is a 1-D
// expression over new device memory. 3-D inputs go to loom/array3.hpp. Part of loom/matrix.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "loom/expr/extent_check.hpp"
#include "loom/matrix/positions.hpp"
#include "loom/reduce.hpp"
#include "loom/vector.hpp"

namespace loom {

namespace expr {

// The result of a reduction along an axis: a 1-D operand over the device memory the reduction
// wrote, which it owns (copies share it, counted as a vector's, so that a statement that writes
// it, the fill of a reduction over an empty axis, keeps its store). `y = loom::sum(A,
// loom::axis<1>)` gives y that memory where nothing else can see the exchange
// (loom::vector's operator= of a temporary, detail::adopt_memory), and is otherwise an
// ordinary statement (a copy into y's own memory, fused with what follows and guarded inside
// loom::loop_while); the result goes into larger expressions as any vector does.
template <class R> using axis_result = vector_ref<R>;

} // namespace expr

namespace detail {

// What the front end asks of the library; defined in src/runtime/run_axis_reduce.cpp. The
// input's slots are the last ones recorded in the context's queue (by a statement_recorder
// that is never committed); the pending statements have run.
struct axis_reduce_call {
    const shape* input = nullptr;
    unsigned axis = 1;
    std::uint64_t rows = 0, cols = 0;
    // Per value of the input (one, or each of a tuple's): its operation and its output buffer.
    const skeleton_operation* ops = nullptr;
    const buffer_ptr* outputs = nullptr;
    std::size_t values = 1;
};
void run_axis_reduce(context_impl& ctx, const axis_reduce_call& call);

// `target = value` for a buffer of R: every element the value (the fold of nothing).
template <class R> void fill(context_impl& ctx, const buffer_ptr& target, R value) {
    static const shape* const s = expr::assignment_shape<R>(value);
    statement_recorder recorder(ctx);
    expr::bind(recorder, value);
    recorder.commit_assignment(s, target);
}

// The folds of the rows (Axis 1) or columns (Axis 0) of each of `inputs` with op, from its
// identity, all in one kernel launched now (after the pending statements), each into new device
// memory; returned as a tuple of expressions over them. The inputs are one 2-D expression
// together: their extents must agree, and their equal terms are computed once per element.
// The same along axis 0 or 2 of 3-D expressions, giving matrices (loom/array3.hpp).
template <int Axis, class... E, class... R, class Op, std::size_t... K>
auto reduce_each_along3(const std::tuple<const E&...>& inputs, const std::tuple<R...>& identities, const Op& op,
                        const char* what, std::index_sequence<K...>);

// Along axis 0 or 1 of 2-D expressions: one vector each.
template <int Axis, class... E, class... R, class Op, std::size_t... K>
auto reduce_each_along2(const std::tuple<const E&...>& inputs, const std::tuple<R...>& identities, const Op& op,
                        const char* what, std::index_sequence<K...>) {
    constexpr std::size_t count = sizeof...(E);
    static_assert(count > 0, "loom: a reduction of a tuple along an axis needs at least one expression");
    expr::extent_check c(what);
    (expr::collect_extents(std::get<K>(inputs), c), ...);
    c.finish();
    const std::uint64_t rows = c.extent(0), cols = c.extent(1);
    const buffer_ptr* first = nullptr; // the context: the first input's that names a vector
    ((first = first ? first : expr::first_buffer(std::get<K>(inputs))), ...);
    if (!first)
        throw error(std::string("loom: ") + what +
                    " needs at least one loom::vector or loom::matrix (with a context) in its input");
    context_impl& ctx = *context_of(**first);
    const std::uint64_t size = Axis == 1 ? rows : cols;
    std::tuple<expr::axis_result<R>...> results{
        expr::axis_result<R>(expr::counted_buffer(new_buffer(shared_context_of(**first), size, dtype_v<R>)), size)...};
    if (rows == 0 || cols == 0) {
        if (size) (fill(ctx, std::get<K>(results).memory.get(), std::get<K>(identities)), ...);
    } else {
        const skeleton_operation ops[count] = {expr::operation<R>(op, std::get<K>(identities))...};
        const buffer_ptr outputs[count] = {std::get<K>(results).memory.get()...};
        const shape* input = expr::values_shape(std::get<K>(inputs)...);
        std::unique_lock<std::recursive_mutex> lock(context_mutex(ctx));
        run_pending(ctx);
        statement_recorder recorder(ctx);
        (expr::bind(recorder, std::get<K>(inputs)), ...); // in values_shape's order
        run_axis_reduce(ctx, {input, unsigned(Axis), rows, cols, ops, outputs, count});
    }
    return std::make_tuple(expr::make_terminal(std::move(std::get<K>(results)))...);
}

template <int Axis, class... E, class... R, class Op, std::size_t... K>
auto reduce_each_along(const std::tuple<const E&...>& inputs, const std::tuple<R...>& identities, const Op& op,
                       const char* what, std::index_sequence<K...> order) {
    static_assert((expr::is_operand_v<E> && ...),
                  "loom: the input of a reduction must be a loom::matrix or a Loom expression");
    static_assert(((!std::is_same_v<R, bool>)&&...),
                  "loom: a reduction along an axis gives a vector, which holds no bool");
    if constexpr ((expr::is_3d_v<E> || ...)) {
        return reduce_each_along3<Axis>(inputs, identities, op, what, order);
    } else {
        static_assert(Axis < 2, "loom: loom::axis<2> folds the last axis of a 3-D expression (a loom::array3 or "
                                "loom::index<2>()); a 2-D expression has axes 0 and 1");
        return reduce_each_along2<Axis>(inputs, identities, op, what, order);
    }
}

// The fold of e's rows (Axis 1) or columns (Axis 0) with op, from identity, launched now (after
// the pending statements) into new device memory; returned as an expression over it.
template <int Axis, class R, class E, class Op>
auto reduce_along(const E& e, R identity, const Op& op, const char* what) {
    return std::get<0>(reduce_each_along<Axis>(std::tuple<const E&>(e), std::make_tuple(identity), op, what,
                                               std::index_sequence<0>{}));
}

// min and max of bool values fold int32s: a vector holds no bool.
template <class E> using axis_value_t =
    std::conditional_t<std::is_same_v<value_type_t<E>, bool>, std::int32_t, value_type_t<E>>;

} // namespace detail

// The sum of each row (loom::axis<1>: over the columns, rows() values) or of each column
// (loom::axis<0>: cols() values) of a 2-D expression, in sum_type_t<E>. Computed when called
// (after the pending statements), in one kernel that computes e's terms in registers; the
// result is a 1-D expression to assign (`y = loom::sum(A * loom::as_row(x), loom::axis<1>);`,
// into y's own memory) or to use in a larger one (`ax = G * loom::sum(...)`).
template <class E, int Axis> auto sum(const E& e, axis_t<Axis>) {
    using R = sum_type_t<E>;
    return detail::reduce_along<Axis>(e, R(0), detail::plus_operation{}, "loom::sum along an axis");
}
template <class E, int Axis> auto product(const E& e, axis_t<Axis>) {
    using R = sum_type_t<E>;
    return detail::reduce_along<Axis>(e, R(1), detail::multiplies_operation{}, "loom::product along an axis");
}
// NaN elements are skipped, as loom::min(e) skips them; a row of none gives +infinity (min)
// or -infinity (max), the largest or lowest value for integers.
template <class E, int Axis> auto min(const E& e, axis_t<Axis>) {
    using R = detail::axis_value_t<E>;
    return detail::reduce_along<Axis>(e, detail::min_identity<R>(), detail::min_operation{}, "loom::min along an axis");
}
template <class E, int Axis> auto max(const E& e, axis_t<Axis>) {
    using R = detail::axis_value_t<E>;
    return detail::reduce_along<Axis>(e, detail::max_identity<R>(), detail::max_operation{}, "loom::max along an axis");
}
// Several reductions of one 2-D shape in one kernel: `loom::sum(std::make_tuple(e0, e1, ...),
// loom::axis<1>)` gives a std::tuple of the sums of e0, e1, ... along the axis, as separate calls
// would, in one pass that computes the terms the expressions share once per element (N-Body's
// three force components: one distance and weight per pair, not three). Each result is a 1-D
// expression, as one reduction's; assign them together with loom::tie or one at a time:
//   loom::tie(ax, ay, az) = loom::sum(std::make_tuple(w * dx, w * dy, w * dz), loom::axis<1>);
template <class... E, int Axis> auto sum(const std::tuple<E...>& e, axis_t<Axis>) {
    return detail::reduce_each_along<Axis>(std::tuple<const E&...>(e), std::make_tuple(sum_type_t<E>(0)...),
                                           detail::plus_operation{}, "loom::sum of a tuple along an axis",
                                           std::index_sequence_for<E...>{});
}
template <class... E, int Axis> auto product(const std::tuple<E...>& e, axis_t<Axis>) {
    return detail::reduce_each_along<Axis>(std::tuple<const E&...>(e), std::make_tuple(sum_type_t<E>(1)...),
                                           detail::multiplies_operation{}, "loom::product of a tuple along an axis",
                                           std::index_sequence_for<E...>{});
}
template <class... E, int Axis> auto min(const std::tuple<E...>& e, axis_t<Axis>) {
    return detail::reduce_each_along<Axis>(
        std::tuple<const E&...>(e), std::make_tuple(detail::min_identity<detail::axis_value_t<E>>()...),
        detail::min_operation{}, "loom::min of a tuple along an axis", std::index_sequence_for<E...>{});
}
template <class... E, int Axis> auto max(const std::tuple<E...>& e, axis_t<Axis>) {
    return detail::reduce_each_along<Axis>(
        std::tuple<const E&...>(e), std::make_tuple(detail::max_identity<detail::axis_value_t<E>>()...),
        detail::max_operation{}, "loom::max of a tuple along an axis", std::index_sequence_for<E...>{});
}

// A user operation, traced like loom::reduce's: associative and commutative, with `identity`
// its identity; the result's type is the identity's.
template <class E, class T, class Op, int Axis> auto reduce(const E& e, T identity, const Op& op, axis_t<Axis>) {
    static_assert(is_element_type_v<T>, "loom::reduce: the identity's type (the result type) must be an element type");
    return detail::reduce_along<Axis>(e, identity, op, "loom::reduce along an axis");
}

} // namespace loom
