// The shape builder: slots numbered in visiting order, equal sub-expressions built once
// (hash-consing), conversions made explicit, and shapes registered with growing ids.
#include <doctest/doctest.h>

#include <algorithm>

#include "ir/node.hpp"
#include "ir/shape.hpp"
#include "loom/detail/shape_builder.hpp"

namespace {

using loom::dtype;
using loom::opcode;
using loom::detail::shape_builder;

std::size_t count_op(const loom::detail::shape& s, opcode op) {
    return std::size_t(
        std::count_if(s.nodes.begin(), s.nodes.end(), [&](const loom::ir::node& n) { return n.op == op; }));
}

} // namespace

TEST_CASE("the same sub-expression built twice is one node") {
    shape_builder b;
    const auto x = b.vector_slot(dtype::f32);
    const auto y = b.vector_slot(dtype::f32);
    const auto s1 = b.apply(opcode::sin, x);
    const auto s2 = b.apply(opcode::sin, x);
    CHECK(s1 == s2);
    const auto p1 = b.apply(opcode::mul, s1, y);
    const auto p2 = b.apply(opcode::mul, s2, y);
    CHECK(p1 == p2);
    CHECK(b.apply(opcode::mul, y, s1) != p1); // operand order matters
    CHECK(b.index() == b.index());
    const auto* s = b.finish_assignment(b.apply(opcode::add, p1, p2), dtype::f32);
    CHECK(count_op(*s, opcode::sin) == 1);
    CHECK(count_op(*s, opcode::mul) == 2); // p1 and the y * s1 built above
    CHECK(count_op(*s, opcode::load) == 2);
}

TEST_CASE("conversions are hash-consed too: converting one value twice makes one cast") {
    shape_builder b;
    const auto i = b.vector_slot(dtype::i32);
    const auto f = b.vector_slot(dtype::f32);
    const auto a = b.apply(opcode::add, i, f); // (float)i + f
    const auto m = b.apply(opcode::mul, i, f); // reuses (float)i
    const auto* s = b.finish_assignment(b.apply(opcode::sub, a, m), dtype::f32);
    CHECK(count_op(*s, opcode::cast) == 1);
}

TEST_CASE("two vector slots of one type are distinct loads: slots are numbered in order") {
    shape_builder b;
    const auto x = b.vector_slot(dtype::f64);
    const auto k = b.scalar_slot(dtype::i32);
    const auto y = b.vector_slot(dtype::f64);
    CHECK(x != y);
    const auto* s = b.finish_assignment(b.apply(opcode::add, b.apply(opcode::mul, x, k), y), dtype::f64);
    REQUIRE(s->slots.size() == 3);
    CHECK(s->slots[0].kind == loom::detail::slot_kind::vector);
    CHECK(s->slots[1].kind == loom::detail::slot_kind::scalar);
    CHECK(s->slots[1].type == dtype::i32);
    CHECK(s->slots[2].kind == loom::detail::slot_kind::vector);
    CHECK(s->nodes[x].slot == 0);
    CHECK(s->nodes[k].slot == 1);
    CHECK(s->nodes[y].slot == 2);
    CHECK(s->uses_f64);
}

TEST_CASE("nodes are in topological order: every operand precedes its user") {
    shape_builder b;
    const auto x = b.vector_slot(dtype::i16);
    const auto y = b.vector_slot(dtype::u8);
    const auto e =
        b.apply(opcode::select, b.apply(opcode::less, x, y), b.apply(opcode::negate, x), b.apply(opcode::bit_not, y));
    const auto* s = b.finish_assignment(e, dtype::i64);
    for (std::uint32_t n = 0; n < s->nodes.size(); ++n)
        for (std::uint32_t a : s->nodes[n].arg)
            if (a != loom::ir::no_node) CHECK(a < n);
    CHECK(s->root == s->nodes.size() - 1);
}

TEST_CASE("finish_assignment converts the root to the target type, and adds nothing when it already has it") {
    shape_builder b1;
    const auto* widened =
        b1.finish_assignment(b1.apply(opcode::add, b1.vector_slot(dtype::i8), b1.vector_slot(dtype::i8)), dtype::f64);
    CHECK(widened->has_target);
    CHECK(widened->target_type == dtype::f64);
    CHECK(widened->nodes[widened->root].op == opcode::cast);
    CHECK(widened->nodes[widened->root].type == dtype::f64);
    CHECK(widened->uses_f64);

    shape_builder b2;
    const auto* same =
        b2.finish_assignment(b2.apply(opcode::add, b2.vector_slot(dtype::f32), b2.vector_slot(dtype::f32)), dtype::f32);
    CHECK(same->nodes[same->root].op == opcode::add);
    CHECK(count_op(*same, opcode::cast) == 0);
    CHECK_FALSE(same->uses_f64);
}

TEST_CASE("a bool scalar slot travels as int32 and converts to bool") {
    shape_builder b;
    const auto flag = b.scalar_slot(dtype::boolean);
    CHECK(b.type_of(flag) == dtype::boolean);
    const auto* s = b.finish_assignment(flag, dtype::i32);
    REQUIRE(s->slots.size() == 1);
    CHECK(s->slots[0].type == dtype::i32);
    CHECK(count_op(*s, opcode::scalar) == 1);
    CHECK(count_op(*s, opcode::cast) == 2); // int32 -> bool -> int32, as C++ converts
}

TEST_CASE("index() is a uint64 node") {
    shape_builder b;
    CHECK(b.type_of(b.index()) == dtype::u64);
}

TEST_CASE("cast to the operand's own type adds no node; to another type adds one") {
    shape_builder b;
    const auto x = b.vector_slot(dtype::f32);
    CHECK(b.cast(dtype::f32, x) == x);
    const auto c = b.cast(dtype::i32, x);
    CHECK(c != x);
    CHECK(b.type_of(c) == dtype::i32);
}

TEST_CASE("shapes are registered with increasing ids and keep stable addresses") {
    std::vector<const loom::detail::shape*> shapes;
    for (int k = 0; k < 5; ++k) {
        shape_builder b;
        shapes.push_back(
            b.finish_expression(b.apply(opcode::add, b.vector_slot(dtype::f32), b.scalar_slot(dtype::f32))));
    }
    for (std::size_t k = 1; k < shapes.size(); ++k) {
        CHECK(shapes[k]->id > shapes[k - 1]->id);
        CHECK(shapes[k] != shapes[k - 1]);
    }
    CHECK_FALSE(shapes[0]->has_target);
    // Registering more shapes does not move the ones already handed out.
    const auto first_id = shapes[0]->id;
    for (int k = 0; k < 200; ++k) {
        shape_builder b;
        b.finish_expression(b.index());
    }
    CHECK(shapes[0]->id == first_id);
    CHECK(shapes[0]->nodes.size() == 3);
}

TEST_CASE("the node list finds equal nodes after it grows and rehashes") {
    loom::ir::node_list list;
    std::vector<std::uint32_t> first;
    for (std::uint32_t k = 0; k < 1000; ++k) {
        loom::ir::node n{opcode::scalar, dtype::f32};
        n.slot = k;
        first.push_back(list.add(n));
    }
    CHECK(list.size() == 1000);
    for (std::uint32_t k = 0; k < 1000; ++k) {
        loom::ir::node n{opcode::scalar, dtype::f32};
        n.slot = k;
        CHECK(list.add(n) == first[k]);
    }
    CHECK(list.size() == 1000);
    loom::ir::node other_type{opcode::scalar, dtype::f64};
    other_type.slot = 0;
    CHECK(list.add(other_type) == 1000);
}
