// loom::map and loom::function: element-wise user functions written as generic C++
// lambdas, traced into Loom expressions (no device source text; loom/source_function.hpp, included
// at the end, has loom::function<R(A...)> from source text). See docs/skeleton-map.md.
//
//   y = loom::map([](auto x, auto z) { return x * x + loom::sin(z); }, a, b);
//   loom::function square = [](auto x) { return x * x; };
//   y = square(a) + loom::map([&](auto x) { return square(x) * k; }, b);
#pragma once

#include <type_traits>
#include <utility>

#include "loom/expr/trace.hpp"
#include "loom/vector.hpp"

namespace loom {

// Calls f with one symbolic argument per operand (a vector, a Loom expression or a host
// scalar) and returns the expression f builds. Loom expressions hold their nodes by
// value and vectors by reference, so the result may be assigned, used in a larger
// expression, or stored while the vectors it reads live. Inside another traced lambda,
// map (and a loom::function) simply composes expressions.
//
// The function may also return a host number (`[](auto) { return 1.0; }`): an expression of that
// constant, of the number's type, whose length is the statement's target's. It may take no
// operands at all: a generator such as `[] { return loom::cast<float>(loom::index()) * 0.5f; }`.
template <class F, class... A> auto map(const F& f, const A&... args) {
    static_assert(((expr::is_operand_v<A> || std::is_arithmetic_v<A>)&&...),
                  "loom::map: operands must be loom::vector, Loom expressions or arithmetic host scalars");
    using result = decltype(f(expr::as_operand(args)...));
    static_assert(expr::is_expression_v<result> || expr::is_operand_object<std::decay_t<result>>::value ||
                      is_host_number_v<std::decay_t<result>>,
                  "loom::map: the function must return an expression built from its arguments, a loom::vector or "
                  "a host number; use loom::where instead of ?: on symbolic values");
    return expr::as_operand(f(expr::as_operand(args)...));
}

// A traced function with a name, reusable across expressions and callable from inside
// other traced lambdas: `loom::function square = [](auto x) { return x * x; };`.
template <class F> class function {
public:
    function(F f) : f_(std::move(f)) {}
    template <class... A> auto operator()(const A&... args) const { return map(f_, args...); }
    const F& body() const { return f_; }

private:
    F f_;
};
template <class F> function(F) -> function<F>;

} // namespace loom

#include "loom/source_function.hpp" // loom::function<R(A...)>, from source text
