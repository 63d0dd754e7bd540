// Positions (a 2-D expression's row and column) in a matrix statement become arithmetic on the
// element index and one more scalar slot, the column count; an axis reduction's input keeps
// them; every other statement refuses them.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "ir/lower_positions.hpp"
#include "ir/node.hpp"
#include "ir/shape.hpp"
#include "loom/detail/shape_builder.hpp"
#include "loom/error.hpp"

namespace {

using loom::dtype;
using loom::opcode;
using loom::detail::shape_builder;

// Evaluates a lowered u64 index expression of a shape for element i (the column count in its
// last slot), as the kernel would.
std::uint64_t evaluate(const loom::detail::shape& s, std::uint32_t node, std::uint64_t i, std::uint64_t cols) {
    const loom::ir::node& n = s.nodes[node];
    auto arg = [&](int k) { return evaluate(s, n.arg[k], i, cols); };
    switch (n.op) {
    case opcode::index: return i;
    case opcode::scalar: return n.slot == s.slots.size() - 1 ? cols : 0;
    case opcode::div: return arg(1) ? arg(0) / arg(1) : 0;
    case opcode::mul: return arg(0) * arg(1);
    case opcode::sub: return arg(0) - arg(1);
    default: FAIL("unexpected node in lowered position arithmetic"); return 0;
    }
}

bool has_positions(const loom::detail::shape& s) { return loom::ir::uses_positions(s.nodes); }

} // namespace

TEST_CASE("lower_positions_rewrites_row_and_column_as_division_by_a_new_last_column_slot") {
    shape_builder b;
    const auto x = b.vector_slot(dtype::u64);
    // row * 1000 + column + x, as a u64 matrix statement
    const auto k = b.scalar_slot(dtype::u64);
    const auto e = b.apply(opcode::add, b.apply(opcode::add, b.apply(opcode::mul, b.position(0), k), b.position(1)), x);
    bool takes_columns = false;
    const loom::detail::shape* s = b.finish_matrix_assignment(e, dtype::u64, takes_columns);
    CHECK(takes_columns);
    CHECK_FALSE(has_positions(*s));
    REQUIRE(s->slots.size() == 3); // x, k, then the column count
    CHECK(s->slots[2].kind == loom::detail::slot_kind::scalar);
    CHECK(s->slots[2].type == dtype::u64);
    CHECK(s->slots[2].neighbour_operand); // never merged with an equal scalar: a new width keeps the plan
    std::size_t divisions = 0;
    for (const loom::ir::node& n : s->nodes) divisions += n.op == opcode::div;
    CHECK(divisions == 1); // the column reuses the row's quotient

    // The row and column nodes, found as the operands of the lowered expression, give (i / c, i % c).
    std::uint32_t row = loom::ir::no_node, column = loom::ir::no_node;
    for (std::uint32_t j = 0; j < s->nodes.size(); ++j) {
        if (s->nodes[j].op == opcode::div) row = j;
        if (s->nodes[j].op == opcode::sub) column = j;
    }
    REQUIRE(row != loom::ir::no_node);
    REQUIRE(column != loom::ir::no_node);
    for (std::uint64_t cols : {1u, 7u, 53u})
        for (std::uint64_t i : {0u, 1u, 6u, 7u, 52u, 53u, 1000u}) {
            CAPTURE(cols);
            CAPTURE(i);
            CHECK(evaluate(*s, row, i, cols) == i / cols);
            CHECK(evaluate(*s, column, i, cols) == i % cols);
        }
}

TEST_CASE("lower_positions_leaves_a_statement_without_positions_as_it_is") {
    shape_builder b;
    const auto x = b.vector_slot(dtype::f32);
    bool takes_columns = true;
    const loom::detail::shape* s = b.finish_matrix_assignment(b.apply(opcode::mul, x, x), dtype::f32, takes_columns);
    CHECK_FALSE(takes_columns);
    CHECK(s->slots.size() == 1);
}

TEST_CASE("an_axis_reduction_input_keeps_its_positions_and_other_statements_refuse_them") {
    {
        shape_builder b;
        const loom::detail::shape* s = b.finish_axis_input(b.apply(opcode::add, b.position(0), b.position(1)));
        CHECK(has_positions(*s));
        CHECK(s->slots.empty());
    }
    {
        shape_builder b;
        CHECK_THROWS_AS(b.finish_assignment(b.position(1), dtype::u64), loom::error);
    }
    {
        shape_builder b;
        CHECK_THROWS_AS(b.finish_expression(b.position(0)), loom::error);
    }
    {
        shape_builder b;
        const auto p = b.position(0);
        CHECK_THROWS_AS(b.finish_view_assignment(p, dtype::u64, b.index(), false), loom::error);
    }
}

TEST_CASE("lower_positions_of_a_3d_array_divides_by_its_last_two_extents_and_2d_statements_refuse_axis_2") {
    // i * 1000000 + j * 1000 + k over a d0 x d1 x d2 array: the element index e gives
    // i = e / (d1 d2), j = (e / d2) % d1, k = e % d2.
    shape_builder b;
    const auto m = b.scalar_slot(dtype::u64), t = b.scalar_slot(dtype::u64);
    const auto e =
        b.apply(opcode::add,
                b.apply(opcode::add, b.apply(opcode::mul, b.position(0), m), b.apply(opcode::mul, b.position(1), t)),
                b.position(2));
    bool takes_extents = false;
    const loom::detail::shape* s = b.finish_array_assignment(e, dtype::u64, 3, takes_extents);
    CHECK(takes_extents);
    CHECK_FALSE(has_positions(*s));
    REQUIRE(s->slots.size() == 4); // m, t, then the second and third extents
    for (std::size_t k : {2u, 3u}) {
        CHECK(s->slots[k].type == dtype::u64);
        CHECK(s->slots[k].neighbour_operand);
    }
    // Evaluates the lowered root with m = 1000000, t = 1000 and the extents d1, d2.
    std::function<std::uint64_t(std::uint32_t, std::uint64_t, std::uint64_t, std::uint64_t)> value =
        [&](std::uint32_t node, std::uint64_t i, std::uint64_t d1, std::uint64_t d2) -> std::uint64_t {
        const loom::ir::node& n = s->nodes[node];
        auto arg = [&](int k) { return value(n.arg[k], i, d1, d2); };
        switch (n.op) {
        case opcode::index: return i;
        case opcode::scalar: return n.slot == 0 ? 1000000u : n.slot == 1 ? 1000u : n.slot == 2 ? d1 : d2;
        case opcode::div: return arg(1) ? arg(0) / arg(1) : 0;
        case opcode::mul: return arg(0) * arg(1);
        case opcode::sub: return arg(0) - arg(1);
        case opcode::add: return arg(0) + arg(1);
        default: FAIL("unexpected node in lowered position arithmetic"); return 0;
        }
    };
    for (std::uint64_t d1 : {1u, 5u})
        for (std::uint64_t d2 : {1u, 7u})
            for (std::uint64_t i = 0; i < 3 * d1 * d2; ++i) {
                CAPTURE(d1);
                CAPTURE(d2);
                CAPTURE(i);
                CHECK(value(s->root, i, d1, d2) == i / (d1 * d2) * 1000000u + i / d2 % d1 * 1000u + i % d2);
            }
    {
        shape_builder c;
        bool columns = false;
        CHECK_THROWS_WITH_AS(c.finish_matrix_assignment(c.position(2), dtype::u64, columns),
                             doctest::Contains("loom::index<2>()"), loom::error);
    }
    {
        shape_builder c;
        CHECK_THROWS_WITH_AS(c.finish_axis_input(c.position(2)), doctest::Contains("loom::index<2>()"), loom::error);
    }
}
