// Work on small fixed-size blocks in registers (docs/blocks.md): loom::map_blocks applies a
// C++ lambda to every R x C block of a matrix, one block a work-item, in one pass: the block's
// elements are read once, the lambda's arithmetic runs on them in registers, and the block it
// returns is written in their place in the output.
//
//   loom::map_blocks<8, 8>(x, f, [&](const loom::block<float, 8, 8>& in) {
//       loom::block<float, 8, 8> t, out;                     // the 2-D DCT of an 8 x 8 block
//       for (int r = 0; r < 8; ++r)
//           for (int v = 0; v < 8; ++v) {
//               loom::traced<float> s = in(r, 0) * c[v][0];
//               for (int k = 1; k < 8; ++k) s += in(r, k) * c[v][k];
//               t(r, v) = s;
//           }
//       ...                                                  // the columns of t into out
//       return out;
//   });
//
// The lambda runs once per call on the host, with symbolic values (loom::traced<T>): each
// operation on them is recorded, loops and host arithmetic run as ordinary C++, and host numbers
// (the coefficients above) become values the kernel takes. Several inputs:
// map_blocks<4, 4>(std::tie(a, b), out, [](const auto& a, const auto& b) { ... }). Traced once
// and kept, for a transform run again and again: const auto dct = loom::map_blocks<8, 8>(f);
// dct(x, out);
#pragma once

#include <algorithm>
#include <array>
#include <iterator>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "loom/detail/block_trace.hpp"
#include "loom/error.hpp"
#include "loom/matrix.hpp"

namespace loom {

template <class T> class traced;

namespace detail {

template <class A> struct is_traced : std::false_type {};
template <class T> struct is_traced<traced<T>> : std::true_type {};
template <class A> inline constexpr bool is_traced_v = is_traced<std::decay_t<A>>::value;

// The host type an operand of a traced operation stands for.
template <class A> struct traced_value { using type = A; };
template <class T> struct traced_value<traced<T>> { using type = T; };
template <class A> using traced_value_t = typename traced_value<std::decay_t<A>>::type;
// The common type of two operands' values (min, max, where's choices).
template <class A, class B> using common_value_t = std::common_type_t<traced_value_t<A>, traced_value_t<B>>;

template <class D> inline constexpr bool no_host_value = false; // traced::operator bool's

// Operands of a traced operation: traced values and host numbers, at least one traced.
template <class... A> using enable_if_traced =
    std::enable_if_t<(is_traced_v<A> || ...) && ((is_traced_v<A> || std::is_arithmetic_v<std::decay_t<A>>)&&...), int>;

template <class A> std::uint64_t trace_id_of(const A& a);
template <class A> node_ref traced_node(block_trace& t, const A& a);

// The trace the operands belong to (all one; a host number belongs to any).
template <class... A> block_trace& trace_of(const A&... a) {
    // block_trace::current throws unless each traced operand's trace is the one running.
    (void(trace_id_of(a) != 0 && block_trace::current(trace_id_of(a)).id() != 0), ...);
    return block_trace::current(0);
}

// op over the operands, as R: the type the same operation on host values has.
template <class R, class... A> traced<R> traced_call(opcode op, const A&... a);

} // namespace detail

// A value inside a block lambda (loom::map_blocks): a number of type T that the block's kernel
// computes. It takes part in arithmetic, comparisons and Loom's math functions with other traced
// values and host numbers, with the types C++ gives the same operations on T; a default-made one
// has no value until assigned.
template <class T> class traced {
    static_assert(std::is_arithmetic_v<T>, "loom::traced<T>: a block's elements are numbers (integers, float, double)");

public:
    using value_type = T;

    traced() = default;
    // A host number: a value the kernel takes.
    template <class U, std::enable_if_t<std::is_arithmetic_v<U>, int> = 0> traced(U value) { // NOLINT: as T's own
        detail::block_trace& t = detail::block_trace::current(0);
        node_ = t.convert(dtype_v<T>, t.constant(dtype_v<U>, detail::scalar_bits::of(value)));
        id_ = t.id();
    }
    // Another traced type, converted as static_cast<T> converts.
    template <class U, std::enable_if_t<!std::is_same_v<U, T>, int> = 0> traced(const traced<U>& other) { // NOLINT
        detail::block_trace& t = detail::block_trace::current(other.trace_id());
        node_ = t.convert(dtype_v<T>, other.node());
        id_ = other.trace_id();
    }

    template <class B, detail::enable_if_traced<traced, B> = 0> traced& operator+=(const B& b) {
        return *this = *this + b;
    }
    template <class B, detail::enable_if_traced<traced, B> = 0> traced& operator-=(const B& b) {
        return *this = *this - b;
    }
    template <class B, detail::enable_if_traced<traced, B> = 0> traced& operator*=(const B& b) {
        return *this = *this * b;
    }
    template <class B, detail::enable_if_traced<traced, B> = 0> traced& operator/=(const B& b) {
        return *this = *this / b;
    }

    // Its node in the trace; throws loom::error when it has no value yet.
    detail::node_ref node() const {
        if (!id_)
            throw error("loom::map_blocks: a traced value (a block element or a loom::traced) was used before it was "
                        "given one");
        return node_;
    }
    std::uint64_t trace_id() const { return id_; }
    bool has_value() const { return id_ != 0; }

    // A traced value is not known on the host: `if (v > 0)`, `v > 0 ? a : b` and `float f = v`
    // fail to compile with this message.
    template <class D = void> operator bool() const { // NOLINT: exists only to explain
        static_assert(detail::no_host_value<D>, "loom::traced: a block's value is computed by the kernel and is not "
                                                "known on the host; choose with loom::where(c, a, b) instead of if "
                                                "or ?:, and keep the block's arithmetic in loom::traced values");
        return false;
    }
    static traced of(detail::node_ref n, std::uint64_t trace) {
        traced t;
        t.node_ = n;
        t.id_ = trace;
        return t;
    }

private:
    detail::node_ref node_ = 0;
    std::uint64_t id_ = 0; // the trace it belongs to; 0: no value
};

namespace detail {

template <class A> std::uint64_t trace_id_of(const A& a) {
    if constexpr (is_traced_v<A>) {
        (void)a.node(); // throws for a value never given one
        return a.trace_id();
    } else {
        return 0;
    }
}

template <class A> node_ref traced_node(block_trace& t, const A& a) {
    if constexpr (is_traced_v<A>)
        return a.node();
    else
        return t.constant(dtype_v<A>, scalar_bits::of(a));
}

template <class R, class... A> traced<R> traced_call(opcode op, const A&... a) {
    block_trace& t = trace_of(a...);
    return traced<R>::of(t.convert(dtype_v<R>, t.apply(op, traced_node(t, a)...)), t.id());
}

} // namespace detail

// An R x C block of traced values, row by row: what a block lambda receives for each input and
// returns. Element (r, c) is block(r, c); an element index outside the block is a loom::error.
template <class T, std::size_t R, std::size_t C> class block {
    static_assert(R >= 1 && C >= 1 && R * C <= detail::max_block_elements,
                  "loom::block<T, R, C>: a block has 1 to 256 elements (each is a value in a work-item's registers)");

public:
    using value_type = T;
    static constexpr std::size_t rows = R, cols = C;

    traced<T>& operator()(std::size_t r, std::size_t c) { return elements_[place(r, c)]; }
    const traced<T>& operator()(std::size_t r, std::size_t c) const { return elements_[place(r, c)]; }

private:
    static std::size_t place(std::size_t r, std::size_t c) {
        if (r >= R || c >= C)
            throw error("loom::block: element (" + std::to_string(r) + ", " + std::to_string(c) + ") is outside a " +
                        std::to_string(R) + " x " + std::to_string(C) + " block");
        return r * C + c;
    }
    std::array<traced<T>, R * C> elements_{};
};

// ---- operators and functions on traced values ----------------------------------------------

#define LOOM_TRACED_BINARY(op, code)                                                                                   \
    template <class A, class B, detail::enable_if_traced<A, B> = 0> auto operator op(const A& a, const B& b)           \
        ->traced<decltype(std::declval<detail::traced_value_t<A>>() op std::declval<detail::traced_value_t<B>>())> {   \
        using R = decltype(std::declval<detail::traced_value_t<A>>() op std::declval<detail::traced_value_t<B>>());    \
        return detail::traced_call<R>(opcode::code, a, b);                                                             \
    }
LOOM_TRACED_BINARY(+, add)
LOOM_TRACED_BINARY(-, sub)
LOOM_TRACED_BINARY(*, mul)
LOOM_TRACED_BINARY(/, div)
LOOM_TRACED_BINARY(%, mod)
LOOM_TRACED_BINARY(<, less)
LOOM_TRACED_BINARY(>, greater)
LOOM_TRACED_BINARY(<=, less_equal)
LOOM_TRACED_BINARY(>=, greater_equal)
LOOM_TRACED_BINARY(==, equal)
LOOM_TRACED_BINARY(!=, not_equal)
LOOM_TRACED_BINARY(&&, logical_and)
LOOM_TRACED_BINARY(||, logical_or)
LOOM_TRACED_BINARY(&, bit_and)
LOOM_TRACED_BINARY(|, bit_or)
LOOM_TRACED_BINARY(^, bit_xor)
#undef LOOM_TRACED_BINARY

template <class T> auto operator-(const traced<T>& a) -> traced<decltype(-std::declval<T>())> {
    return detail::traced_call<decltype(-std::declval<T>())>(opcode::negate, a);
}
template <class T> auto operator+(const traced<T>& a) -> traced<decltype(+std::declval<T>())> {
    return detail::traced_call<decltype(+std::declval<T>())>(opcode::unary_plus, a);
}
template <class T> traced<bool> operator!(const traced<T>& a) {
    return detail::traced_call<bool>(opcode::logical_not, a);
}

// The math functions, as on expressions (loom/expr/functions.hpp), typed as <cmath> types them.
#define LOOM_TRACED_UNARY_FUNCTION(name, host)                                                                         \
    template <class A, detail::enable_if_traced<A> = 0>                                                                \
    auto name(const A& a)->traced<decltype(host(std::declval<detail::traced_value_t<A>>()))> {                         \
        return detail::traced_call<decltype(host(std::declval<detail::traced_value_t<A>>()))>(opcode::name, a);        \
    }
LOOM_TRACED_UNARY_FUNCTION(sin, std::sin)
LOOM_TRACED_UNARY_FUNCTION(cos, std::cos)
LOOM_TRACED_UNARY_FUNCTION(tan, std::tan)
LOOM_TRACED_UNARY_FUNCTION(asin, std::asin)
LOOM_TRACED_UNARY_FUNCTION(acos, std::acos)
LOOM_TRACED_UNARY_FUNCTION(atan, std::atan)
LOOM_TRACED_UNARY_FUNCTION(sinh, std::sinh)
LOOM_TRACED_UNARY_FUNCTION(cosh, std::cosh)
LOOM_TRACED_UNARY_FUNCTION(tanh, std::tanh)
LOOM_TRACED_UNARY_FUNCTION(exp, std::exp)
LOOM_TRACED_UNARY_FUNCTION(exp2, std::exp2)
LOOM_TRACED_UNARY_FUNCTION(log, std::log)
LOOM_TRACED_UNARY_FUNCTION(log2, std::log2)
LOOM_TRACED_UNARY_FUNCTION(log10, std::log10)
LOOM_TRACED_UNARY_FUNCTION(sqrt, std::sqrt)
LOOM_TRACED_UNARY_FUNCTION(rsqrt, std::sqrt)
LOOM_TRACED_UNARY_FUNCTION(cbrt, std::cbrt)
LOOM_TRACED_UNARY_FUNCTION(fabs, std::fabs)
LOOM_TRACED_UNARY_FUNCTION(abs, std::abs)
LOOM_TRACED_UNARY_FUNCTION(floor, std::floor)
LOOM_TRACED_UNARY_FUNCTION(ceil, std::ceil)
LOOM_TRACED_UNARY_FUNCTION(round, std::round)
LOOM_TRACED_UNARY_FUNCTION(trunc, std::trunc)
#undef LOOM_TRACED_UNARY_FUNCTION

#define LOOM_TRACED_BINARY_FUNCTION(name, host)                                                                        \
    template <class A, class B, detail::enable_if_traced<A, B> = 0> auto name(const A& a, const B& b)                  \
        ->traced<decltype(host(std::declval<detail::traced_value_t<A>>(),                                              \
                               std::declval<detail::traced_value_t<B>>()))> {                                          \
        using R =                                                                                                      \
            decltype(host(std::declval<detail::traced_value_t<A>>(), std::declval<detail::traced_value_t<B>>()));      \
        return detail::traced_call<R>(opcode::name, a, b);                                                             \
    }
LOOM_TRACED_BINARY_FUNCTION(atan2, std::atan2)
LOOM_TRACED_BINARY_FUNCTION(pow, std::pow)
LOOM_TRACED_BINARY_FUNCTION(hypot, std::hypot)
LOOM_TRACED_BINARY_FUNCTION(fmod, std::fmod)
LOOM_TRACED_BINARY_FUNCTION(fmin, std::fmin)
LOOM_TRACED_BINARY_FUNCTION(fmax, std::fmax)
LOOM_TRACED_BINARY_FUNCTION(copysign, std::copysign)
#undef LOOM_TRACED_BINARY_FUNCTION

// min and max in the operands' common type, as loom::min and loom::max on expressions.
#define LOOM_TRACED_COMMON_FUNCTION(name)                                                                              \
    template <class A, class B, detail::enable_if_traced<A, B> = 0>                                                    \
    auto name(const A& a, const B& b)->traced<detail::common_value_t<A, B>> {                                          \
        return detail::traced_call<detail::common_value_t<A, B>>(opcode::name, a, b);                                  \
    }
LOOM_TRACED_COMMON_FUNCTION(min)
LOOM_TRACED_COMMON_FUNCTION(max)
#undef LOOM_TRACED_COMMON_FUNCTION
// a * b + c rounded once.
template <class A, class B, class C, detail::enable_if_traced<A, B, C> = 0> auto fma(const A& a, const B& b, const C& c)
    -> traced<decltype(std::fma(std::declval<detail::traced_value_t<A>>(), std::declval<detail::traced_value_t<B>>(),
                                std::declval<detail::traced_value_t<C>>()))> {
    using R = decltype(std::fma(std::declval<detail::traced_value_t<A>>(), std::declval<detail::traced_value_t<B>>(),
                                std::declval<detail::traced_value_t<C>>()));
    return detail::traced_call<R>(opcode::fma, a, b, c);
}
// cond ? a : b, both evaluated, in a's and b's common type.
template <class P, class A, class B, detail::enable_if_traced<P, A, B> = 0>
auto where(const P& cond, const A& a, const B& b) -> traced<detail::common_value_t<A, B>> {
    return detail::traced_call<detail::common_value_t<A, B>>(opcode::select, cond, a, b);
}
// static_cast<U>.
template <class U, class T> traced<U> cast(const traced<T>& a) { return traced<U>(a); }

namespace detail {

template <class M> struct matrix_element;
template <class T> struct matrix_element<matrix<T>> { using type = T; };
template <class B> struct block_shape : std::false_type { static constexpr std::size_t rows = 0, cols = 0; };
template <class T, std::size_t R, std::size_t C> struct block_shape<block<T, R, C>> : std::true_type {
    static constexpr std::size_t rows = R, cols = C;
};

// Throws unless every matrix is out's size, a whole number of R x C blocks each way.
template <std::size_t R, std::size_t C, class Out, class... In>
void check_block_sizes(const matrix<Out>& out, const matrix<In>&... in) {
    static_assert(R >= 1 && C >= 1 && R * C <= max_block_elements,
                  "loom::map_blocks<R, C>: a block has 1 to 256 elements (each is a value in a work-item's registers)");
    static_assert(std::is_arithmetic_v<Out> && (std::is_arithmetic_v<In> && ...),
                  "loom::map_blocks: the matrices' elements are numbers (integers, float, double)");
    const auto fits = [&](std::size_t rows, std::size_t cols) {
        if (rows != out.rows() || cols != out.cols())
            throw length_error("loom::map_blocks: an input is " + std::to_string(rows) + " x " + std::to_string(cols) +
                               " and the output " + std::to_string(out.rows()) + " x " + std::to_string(out.cols()) +
                               "; give every matrix one size");
    };
    (fits(in.rows(), in.cols()), ...);
    if (out.rows() % R != 0 || out.cols() % C != 0)
        throw length_error("loom::map_blocks: a " + std::to_string(out.rows()) + " x " + std::to_string(out.cols()) +
                           " matrix is no whole number of " + std::to_string(R) + " x " + std::to_string(C) +
                           " blocks; pad it to a multiple of the block's rows and columns");
}

// A block lambda's traced work: its body (block_trace::finish) and the host numbers it takes.
struct traced_blocks {
    const shape* body = nullptr;
    std::vector<scalar_bits> constants;
    std::vector<dtype> constant_types;
};

// f traced over one R x C block of each input type, its values stored as Out.
template <std::size_t R, std::size_t C, class Out, class... In, class F, std::size_t... K>
traced_blocks trace_blocks(const F& f, std::index_sequence<K...>) {
    const dtype types[] = {dtype_v<In>...};
    block_trace trace(types, sizeof...(In), R, C);
    std::tuple<block<In, R, C>...> blocks;
    const auto fill = [&](auto& b, std::size_t k) {
        for (std::size_t r = 0; r < R; ++r)
            for (std::size_t c = 0; c < C; ++c)
                b(r, c) = std::decay_t<decltype(b(r, c))>::of(trace.element(k, r, c), trace.id());
    };
    (fill(std::get<K>(blocks), K), ...);
    const auto result = f(std::get<K>(std::as_const(blocks))...);
    using returned = std::decay_t<decltype(result)>;
    static_assert(block_shape<returned>::value,
                  "loom::map_blocks: the lambda returns a loom::block<T, R, C> (the block it computes)");
    static_assert(block_shape<returned>::rows == R && block_shape<returned>::cols == C,
                  "loom::map_blocks<R, C>: the lambda returns a block of R x C elements");
    std::array<node_ref, R * C> values{};
    for (std::size_t r = 0; r < R; ++r)
        for (std::size_t c = 0; c < C; ++c) {
            if (!result(r, c).has_value())
                throw error("loom::map_blocks: element (" + std::to_string(r) + ", " + std::to_string(c) +
                            ") of the block the lambda returns was never given a value");
            values[r * C + c] = traced_node(trace, result(r, c));
        }
    const shape* body = trace.finish(values.data(), dtype_v<Out>);
    return {body, trace.constants(), trace.constant_types()};
}

// The traced work over every block of the inputs into out (sizes checked).
template <std::size_t R, std::size_t C, class Out, class... In>
void run_blocks(const traced_blocks& work, matrix<Out>& out, const matrix<In>&... in) {
    const buffer_ptr buffers[] = {in.buffer()..., out.buffer()};
    block_map_call call;
    call.body = work.body;
    call.buffers = buffers;
    call.inputs = sizeof...(In);
    call.rows = R;
    call.cols = C;
    call.matrix_rows = out.rows();
    call.matrix_cols = out.cols();
    call.constants = &work.constants;
    call.constant_types = &work.constant_types;
    run_block_map(call);
}

// The input matrices of a std::tie(a, b, ...), as a parameter pack to `run`.
template <class... M, class Run> void with_inputs(const std::tuple<M&...>& in, Run run) {
    static_assert(sizeof...(M) >= 1, "loom::map_blocks: give at least one input matrix");
    std::apply([&](const auto&... m) { run(m...); }, in);
}

} // namespace detail

// out's every R x C block = f(the same block of in), f taking a const loom::block<In, R, C>& and
// returning a loom::block<T, R, C> (its values converted to Out as static_cast converts). in and
// out are matrices of one size, a whole number of blocks each way (a loom::length_error
// otherwise), of one context (a loom::error); out may be in. f is traced at every call (its host
// numbers read anew); pending statements run first; the blocks run as one kernel, one block a
// work-item.
template <std::size_t R, std::size_t C = R, class In, class Out, class F>
void map_blocks(const matrix<In>& in, matrix<Out>& out, const F& f) {
    detail::check_block_sizes<R, C>(out, in);
    detail::run_blocks<R, C>(detail::trace_blocks<R, C, Out, In>(f, std::index_sequence_for<In>{}), out, in);
}
// The same over several inputs of one size, given as std::tie(a, b, ...): f takes one block of
// each, in order.
template <std::size_t R, std::size_t C = R, class... M, class Out, class F>
void map_blocks(const std::tuple<M&...>& in, matrix<Out>& out, const F& f) {
    detail::with_inputs(in, [&](const auto&... m) {
        detail::check_block_sizes<R, C>(out, m...);
        detail::run_blocks<R, C>(
            detail::trace_blocks<R, C, Out, typename detail::matrix_element<std::decay_t<decltype(m)>>::type...>(
                f, std::index_sequence_for<M...>{}),
            out, m...);
    });
}

// A block function traced once: map_blocks<R, C>(f) keeps f, and calling it as fn(in, out) (or
// fn(std::tie(a, b), out)) runs map_blocks<R, C>(in, out, f) with f traced at the first call for
// those element types only. The host numbers f reads are read then and kept: for numbers that
// change from call to call, call map_blocks(in, out, f), which traces at every call (a trace costs
// host time in proportion to f's operations: about 0.1 ms for the 8 x 8 DCT's 2000).
template <std::size_t R, std::size_t C, class F> class block_map {
public:
    explicit block_map(F f) : f_(std::move(f)) {}

    template <class In, class Out> void operator()(const matrix<In>& in, matrix<Out>& out) const { run(out, in); }
    template <class... M, class Out> void operator()(const std::tuple<M&...>& in, matrix<Out>& out) const {
        detail::with_inputs(in, [&](const auto&... m) { run(out, m...); });
    }

private:
    template <class Out, class... In> void run(matrix<Out>& out, const matrix<In>&... in) const {
        detail::check_block_sizes<R, C>(out, in...);
        detail::run_blocks<R, C>(work_for<Out, In...>(), out, in...);
    }
    // The trace for these element types, made at their first call (a later call allocates
    // nothing: the types are compared in place).
    template <class Out, class... In> const detail::traced_blocks& work_for() const {
        std::lock_guard<std::mutex> guard(cache_->lock);
        const dtype types[] = {dtype_v<Out>, dtype_v<In>...};
        for (const auto& [key, work] : cache_->traces)
            if (std::equal(key.begin(), key.end(), std::begin(types), std::end(types))) return work;
        cache_->traces.emplace_back(std::vector<dtype>(std::begin(types), std::end(types)),
                                    detail::trace_blocks<R, C, Out, In...>(f_, std::index_sequence_for<In...>{}));
        return cache_->traces.back().second;
    }
    struct traces {
        std::mutex lock;
        std::deque<std::pair<std::vector<dtype>, detail::traced_blocks>> traces; // stable addresses
    };
    F f_;
    std::shared_ptr<traces> cache_ = std::make_shared<traces>(); // copies share the traces
};
template <std::size_t R, std::size_t C = R, class F> block_map<R, C, F> map_blocks(F f) {
    return block_map<R, C, F>(std::move(f));
}

} // namespace loom
