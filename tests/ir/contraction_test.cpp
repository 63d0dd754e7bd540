// The contraction rewrite on shapes: which multiply-adds become fma, which stay, and the
// contracted form registered next to every shape.
#include <doctest/doctest.h>

#include "ir/node.hpp"
#include "ir/shape.hpp"
#include "loom/detail/shape_builder.hpp"

namespace {

using loom::dtype;
using loom::opcode;
using loom::detail::shape;
using loom::detail::shape_builder;

const loom::ir::node& root_of(const shape& s) { return s.nodes[s.root]; }
const loom::ir::node& arg(const shape& s, const loom::ir::node& n, int k) { return s.nodes[n.arg[k]]; }

} // namespace

TEST_CASE("a float multiply-add becomes one fma in the contracted form only") {
    shape_builder b;
    const auto x = b.vector_slot(dtype::f32), a = b.scalar_slot(dtype::f32), y = b.vector_slot(dtype::f32);
    const shape* s = b.finish_assignment(b.apply(opcode::add, b.apply(opcode::mul, a, x), y), dtype::f32);
    CHECK(root_of(*s).op == opcode::add); // the shape itself keeps two roundings
    const shape* c = s->contracted;
    REQUIRE(c != s);
    CHECK(c->id != s->id);
    CHECK(c->contracted == c);
    CHECK(c->slots.size() == s->slots.size());
    const auto& f = root_of(*c);
    REQUIRE(f.op == opcode::fma);
    CHECK(f.type == dtype::f32);
    CHECK(arg(*c, f, 0).op == opcode::scalar);
    CHECK(arg(*c, f, 1).op == opcode::load);
    CHECK(arg(*c, f, 1).slot == 0);
    CHECK(arg(*c, f, 2).slot == 2);
}

TEST_CASE("subtractions contract with the negated addend or the negated factor") {
    shape_builder b;
    const auto x = b.vector_slot(dtype::f64), y = b.vector_slot(dtype::f64);
    const auto p = b.apply(opcode::mul, x, x);
    const shape* minus_c = b.finish_assignment(b.apply(opcode::sub, p, y), dtype::f64);
    const auto& f = root_of(*minus_c->contracted);
    REQUIRE(f.op == opcode::fma);
    CHECK(arg(*minus_c->contracted, f, 2).op == opcode::negate); // x * x - y = fma(x, x, -y)

    shape_builder b2;
    const auto x2 = b2.vector_slot(dtype::f64), y2 = b2.vector_slot(dtype::f64);
    const shape* c_minus = b2.finish_assignment(b2.apply(opcode::sub, y2, b2.apply(opcode::mul, x2, y2)), dtype::f64);
    const shape& c = *c_minus->contracted;
    const auto& g = root_of(c);
    REQUIRE(g.op == opcode::fma); // y - x * y = fma(-x, y, y)
    CHECK(arg(c, g, 0).op == opcode::negate);
    CHECK(arg(c, g, 1).op == opcode::load);
    CHECK(arg(c, g, 2).op == opcode::load);
}

TEST_CASE("integer sums, converted products and shapes without products stay as they are") {
    shape_builder ints;
    const auto i = ints.vector_slot(dtype::i32), j = ints.vector_slot(dtype::i32);
    const shape* s = ints.finish_assignment(ints.apply(opcode::add, ints.apply(opcode::mul, i, j), j), dtype::i32);
    CHECK(s->contracted == s);

    // (float)(x * y) + z with x, y double: the product is rounded to double, then to float.
    shape_builder narrowed;
    const auto x = narrowed.vector_slot(dtype::f64), y = narrowed.vector_slot(dtype::f64);
    const auto z = narrowed.vector_slot(dtype::f32);
    const auto product = narrowed.cast(dtype::f32, narrowed.apply(opcode::mul, x, y));
    const shape* n = narrowed.finish_assignment(narrowed.apply(opcode::add, product, z), dtype::f32);
    CHECK(n->contracted == n);

    shape_builder plain;
    const auto v = plain.vector_slot(dtype::f32);
    const shape* q = plain.finish_assignment(plain.apply(opcode::add, v, plain.apply(opcode::sin, v)), dtype::f32);
    CHECK(q->contracted == q);
}

TEST_CASE("a chain contracts at every level and keeps one node per distinct value") {
    shape_builder b;
    const auto x = b.vector_slot(dtype::f32), c0 = b.scalar_slot(dtype::f32), c1 = b.scalar_slot(dtype::f32);
    const auto t = b.apply(opcode::add, b.apply(opcode::mul, x, c0), x);
    const shape* s = b.finish_assignment(b.apply(opcode::add, b.apply(opcode::mul, t, c1), x), dtype::f32);
    const shape& c = *s->contracted;
    const auto& outer = root_of(c);
    REQUIRE(outer.op == opcode::fma);
    const auto& inner = arg(c, outer, 0);
    CHECK(inner.op == opcode::fma);
    CHECK(outer.arg[2] == inner.arg[0]); // x, loaded once
}
