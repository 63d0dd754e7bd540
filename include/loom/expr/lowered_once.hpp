// Where a statement's shape is cached. A shape is built once per expression type and reused by
// pointer, which makes recording a statement cheap; but which source-text functions an
// expression calls (loom::function<R(A...)>) is a value, not part of its type, so a type with
// calls is lowered once per list of functions instead.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <type_traits>
#include <utility>

#include "loom/expr/domain.hpp"

namespace loom::expr {

// ---- the source-function calls in an expression type, counted at compile time ----------
// A terminal that lowers an expression of its own inline (a gather's index) names its type as
// `nested_expression` and returns it from `nested()`.

template <class E, class = void> struct source_calls;
template <class E> inline constexpr std::size_t source_calls_v = source_calls<std::decay_t<E>>::value;

template <class V, class = void> struct terminal_source_calls : std::integral_constant<std::size_t, 0> {};
template <class R, class... A> struct terminal_source_calls<source_call<R, A...>>
    : std::integral_constant<std::size_t, 1> {};
template <class V> struct terminal_source_calls<V, std::void_t<typename V::nested_expression>>
    : std::integral_constant<std::size_t, source_calls_v<typename V::nested_expression>> {};

template <class E, class I> struct child_source_calls;
template <class E, std::size_t... I> struct child_source_calls<E, std::index_sequence<I...>>
    : std::integral_constant<std::size_t, (source_calls_v<typename proto::result_of::child_c<E, I>::type> + ... + 0)> {
};

template <class E> struct source_calls<E, std::enable_if_t<!proto::is_expr<E>::value>> : terminal_source_calls<E> {};
template <class E, class Tag = typename proto::tag_of<E>::type> struct expression_source_calls
    : child_source_calls<E, std::make_index_sequence<proto::arity_of<E>::value>> {};
template <class E> struct expression_source_calls<E, proto::tag::terminal>
    : terminal_source_calls<std::decay_t<typename proto::result_of::value<const E&>::type>> {};
template <class E> struct source_calls<E, std::enable_if_t<proto::is_expr<E>::value>> : expression_source_calls<E> {};

// ---- the same calls at run time: the functions' ids, in lowering order ------------------

template <std::size_t N> struct source_call_ids {
    std::array<std::uint32_t, N> ids{};
    std::size_t count = 0;
};

template <class E, std::size_t N> void collect_source_calls(const E& e, source_call_ids<N>& out);

// A terminal other than a call holds calls only in its nested expression.
template <class V, std::size_t N> void collect_terminal_calls(const V& v, source_call_ids<N>& out) {
    if constexpr (terminal_source_calls<V>::value > 0) collect_source_calls(v.nested(), out);
}
template <class R, class... A, std::size_t N>
void collect_terminal_calls(const source_call<R, A...>& call, source_call_ids<N>& out) {
    out.ids[out.count++] = call.id;
}

template <class E, std::size_t I, std::size_t N> void collect_child_calls(const E& e, source_call_ids<N>& out) {
    collect_source_calls(proto::child_c<I>(e), out);
}
template <class E, std::size_t N, std::size_t... I>
void collect_children_calls(const E& e, source_call_ids<N>& out, std::index_sequence<I...>) {
    (collect_child_calls<E, I>(e, out), ...);
}

template <class E, std::size_t N> void collect_source_calls(const E& e, source_call_ids<N>& out) {
    using T = std::decay_t<E>;
    if constexpr (source_calls_v<T> == 0)
        return;
    else if constexpr (!proto::is_expr<T>::value)
        collect_terminal_calls(e, out);
    else if constexpr (std::is_same_v<typename proto::tag_of<T>::type, proto::tag::terminal>)
        collect_terminal_calls(proto::value(e), out);
    else
        collect_children_calls(e, out, std::make_index_sequence<proto::arity_of<T>::value>{});
}

// What `build()` returns for the expressions it lowers (a shape, or a struct holding one), built
// on first use: once per expression type, or once per expression type and list of source
// functions when they call any. Each call site passes its own lambda, so each has its own cache.
template <class Build, class... E> const auto& lowered_once(Build build, const E&... expressions) {
    using value_t = decltype(build());
    constexpr std::size_t calls = (source_calls_v<E> + ... + 0);
    if constexpr (calls == 0) {
        static const value_t value = build();
        return value;
    } else {
        struct entry {
            std::array<std::uint32_t, calls> ids;
            value_t value;
        };
        // Never destroyed, like the shapes they point to: a static context may record at exit.
        static std::mutex& lock = *new std::mutex;
        static std::deque<entry>& built = *new std::deque<entry>; // references stay valid as it grows
        source_call_ids<calls> ids;
        (collect_source_calls(expressions, ids), ...);
        std::lock_guard<std::mutex> guard(lock);
        for (const entry& x : built)
            if (x.ids == ids.ids) return x.value;
        built.push_back({ids.ids, build()});
        return built.back().value;
    }
}

} // namespace loom::expr
