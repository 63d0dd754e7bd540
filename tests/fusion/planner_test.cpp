// The fusion planner as pure code: each rule and each boundary reason, no device.
#include <doctest/doctest.h>

#include "fusion/disjoint_writes.hpp"
#include "fusion/plan.hpp"
#include "ir/shape.hpp"
#include "loom/detail/shape_builder.hpp"

namespace {

using loom::dtype;
using loom::opcode;
using loom::fusion::no_buffer;
using loom::fusion::plan_request;
using loom::fusion::planned_statement;

// target = a <op> b over float vectors
const loom::detail::shape* binary_shape(opcode op) {
    loom::detail::shape_builder b;
    const auto x = b.vector_slot(dtype::f32);
    const auto y = b.vector_slot(dtype::f32);
    return b.finish_assignment(b.apply(op, x, y), dtype::f32);
}

// target = s * a (a host scalar and a vector)
const loom::detail::shape* scale_shape() {
    loom::detail::shape_builder b;
    const auto s = b.scalar_slot(dtype::f32);
    const auto x = b.vector_slot(dtype::f32);
    return b.finish_assignment(b.apply(opcode::mul, s, x), dtype::f32);
}

struct program {
    plan_request request;
    explicit program(unsigned buffers, std::vector<bool> live = {}) {
        request.buffer_types.assign(buffers, dtype::f32);
        request.buffer_live = live.empty() ? std::vector<bool>(buffers, true) : live;
    }
    program& add(const loom::detail::shape* s, std::vector<std::uint32_t> slots, std::uint32_t target,
                 std::uint32_t length_class = 0) {
        planned_statement st;
        st.shape = s;
        st.slot_buffer = std::move(slots);
        st.target = target;
        st.length_class = length_class;
        request.statements.push_back(st);
        return *this;
    }
    loom::fusion::kernel_plan plan() const { return loom::fusion::plan_kernels(request); }
};

} // namespace

TEST_CASE("fusion_groups_a_chain_of_equal_length_statements_into_one_kernel") {
    // b2 = b0 * b1; b3 = b2 + b1; b4 = b3 * b3; b5 = b4 - b0   (b2..b4 dead temporaries)
    program p(6, {true, true, false, false, false, true});
    p.add(binary_shape(opcode::mul), {0, 1}, 2)
        .add(binary_shape(opcode::add), {2, 1}, 3)
        .add(binary_shape(opcode::mul), {3, 3}, 4)
        .add(binary_shape(opcode::sub), {4, 0}, 5);
    const auto plan = p.plan();
    REQUIRE(plan.groups.size() == 1);
    const auto& g = plan.groups[0];
    CHECK(g.first == 0);
    CHECK(g.last == 3);
    CHECK(g.reason == loom::fusion::boundary::end_of_flush);
    CHECK(g.loaded == std::vector<std::uint32_t>{0, 1});
    CHECK(g.stored == std::vector<std::uint32_t>{5});
    CHECK(g.elided == std::vector<std::uint32_t>{2, 3, 4});
    // Only the buffers loaded or stored become parameters: dead temporaries are never bound.
    CHECK(g.kernel.params.size() == 3);
    CHECK(g.kernel.stores.size() == 1);
}

TEST_CASE("fusion_off_makes_one_kernel_per_statement_and_stores_everything") {
    program p(4, {true, true, false, true});
    p.request.fuse = false;
    p.add(binary_shape(opcode::mul), {0, 1}, 2).add(binary_shape(opcode::add), {2, 1}, 3);
    const auto plan = p.plan();
    REQUIRE(plan.groups.size() == 2);
    CHECK(plan.groups[0].reason == loom::fusion::boundary::fusion_off);
    // b2 is dead after the flush but the next kernel reads it, so it is stored.
    CHECK(plan.groups[0].stored == std::vector<std::uint32_t>{2});
    CHECK(plan.groups[1].loaded == std::vector<std::uint32_t>{1, 2});
}

TEST_CASE("fusion_closes_a_kernel_at_a_length_change") {
    program p(4);
    p.add(binary_shape(opcode::add), {0, 1}, 2, 0).add(binary_shape(opcode::add), {3, 3}, 3, 1);
    const auto plan = p.plan();
    REQUIRE(plan.groups.size() == 2);
    CHECK(plan.groups[0].reason == loom::fusion::boundary::length_change);
    CHECK(std::string(loom::fusion::name_of(plan.groups[0].reason)) == "length_change");
}

TEST_CASE("fusion_closes_a_kernel_at_the_parameter_limit") {
    program p(40);
    for (std::uint32_t s = 0; s < 12; ++s) p.add(binary_shape(opcode::add), {s * 3, s * 3 + 1}, s * 3 + 2);
    p.request.limits.max_parameters = 10; // each statement counts 2 slots + 1
    const auto plan = p.plan();
    REQUIRE(plan.groups.size() == 4);
    for (std::size_t g = 0; g + 1 < plan.groups.size(); ++g) {
        CHECK(plan.groups[g].reason == loom::fusion::boundary::parameter_limit);
        CHECK(plan.groups[g].kernel.params.size() <= 10);
    }
}

TEST_CASE("fusion_counts_each_buffer_once_toward_the_parameter_limit") {
    program p(3);
    for (int s = 0; s < 12; ++s) p.add(binary_shape(opcode::add), {0, 1}, 2); // 3 buffers in all
    p.request.limits.max_parameters = 10;
    const auto plan = p.plan();
    REQUIRE(plan.groups.size() == 1);
    CHECK(plan.groups[0].kernel.params.size() <= 3);
}

TEST_CASE("fusion_cuts_a_kernel_at_a_limit_where_the_fewest_temporaries_cross") {
    // Iterations of t1 = x + y; t2 = t1 * y; y = t2 + x, each with its own temporaries
    // (classes 2.. dead after the flush). A cut after a whole iteration is crossed by y alone;
    // inside one, by y and a temporary too.
    const std::uint32_t iterations = 4;
    std::vector<bool> live(2 + 2 * iterations, false);
    live[0] = live[1] = true;
    program p(std::uint32_t(live.size()), live);
    for (std::uint32_t it = 0; it < iterations; ++it) {
        const std::uint32_t t1 = 2 + 2 * it, t2 = t1 + 1;
        p.add(binary_shape(opcode::add), {0, 1}, t1).add(binary_shape(opcode::mul), {t1, 1}, t2);
        p.add(binary_shape(opcode::add), {t2, 0}, 1);
    }
    p.request.limits.max_statements = 5; // a limit inside the second iteration
    const auto plan = p.plan();
    REQUIRE(plan.groups.size() >= 2);
    CHECK(plan.groups[0].reason == loom::fusion::boundary::statement_limit);
    for (const auto& g : plan.groups) {
        CAPTURE(g.first);
        CHECK(g.first % 3 == 0);                          // every kernel starts at an iteration
        CHECK(g.stored == std::vector<std::uint32_t>{1}); // only y is stored: no temporary crosses
    }
}

TEST_CASE("fusion_closes_a_kernel_at_the_node_and_statement_limits") {
    program nodes(8), statements(8);
    for (int s = 0; s < 6; ++s) {
        nodes.add(binary_shape(opcode::add), {0, 1}, 2);
        statements.add(binary_shape(opcode::add), {0, 1}, 2);
    }
    nodes.request.limits.max_nodes = 7; // a shape is 3 nodes
    statements.request.limits.max_statements = 4;
    const auto by_nodes = nodes.plan();
    REQUIRE(by_nodes.groups.size() == 3);
    CHECK(by_nodes.groups[0].reason == loom::fusion::boundary::node_limit);
    const auto by_statements = statements.plan();
    REQUIRE(by_statements.groups.size() == 2);
    CHECK(by_statements.groups[0].reason == loom::fusion::boundary::statement_limit);
    CHECK(by_statements.groups[0].last == 3);
}

TEST_CASE("fusion_forwards_a_written_value_and_stores_each_buffer_once") {
    // b0 = b0 + b1; b0 = b0 * b1: b0 is loaded once (its old value), stored once (its last value).
    program p(2);
    p.add(binary_shape(opcode::add), {0, 1}, 0).add(binary_shape(opcode::mul), {0, 1}, 0);
    const auto plan = p.plan();
    REQUIRE(plan.groups.size() == 1);
    const auto& k = plan.groups[0].kernel;
    int loads = 0;
    for (const auto& n : k.body) loads += n.op == opcode::load;
    CHECK(loads == 2);
    REQUIRE(k.stores.size() == 1);
    CHECK(k.body[k.stores[0].value].op == opcode::mul);
}

TEST_CASE("fusion_keeps_write_after_read_order") {
    // b2 = b0 + b1 (reads old b0); b0 = b1 * b1; b3 = b0 + b2 (reads new b0)
    program p(4);
    p.add(binary_shape(opcode::add), {0, 1}, 2)
        .add(binary_shape(opcode::mul), {1, 1}, 0)
        .add(binary_shape(opcode::add), {0, 2}, 3);
    const auto plan = p.plan();
    REQUIRE(plan.groups.size() == 1);
    const auto& k = plan.groups[0].kernel;
    // b3's value is add(mul(b1, b1), add(load b0, load b1)): the third statement's b0 is
    // the register written by the second, not a reload.
    std::uint32_t b3_value = 0;
    for (const auto& st : k.stores)
        if (plan.groups[0].args[st.param].buffer == 3) b3_value = st.value;
    const auto& sum = k.body[b3_value];
    REQUIRE(sum.op == opcode::add);
    CHECK(k.body[sum.arg[0]].op == opcode::mul);
    CHECK(k.body[sum.arg[1]].op == opcode::add);
}

TEST_CASE("fusion_removes_common_subexpressions_across_statements") {
    // b2 = b0 * b1; b3 = b0 * b1: one multiplication
    program p(4);
    p.add(binary_shape(opcode::mul), {0, 1}, 2).add(binary_shape(opcode::mul), {0, 1}, 3);
    const auto plan = p.plan();
    int muls = 0;
    for (const auto& n : plan.groups[0].kernel.body) muls += n.op == opcode::mul;
    CHECK(muls == 1);
    CHECK(plan.groups[0].kernel.stores[0].value == plan.groups[0].kernel.stores[1].value);
}

TEST_CASE("fusion_dedupes_terminals_by_buffer_identity") {
    // b1 = b0 + b0: one parameter, one load
    program p(2);
    p.add(binary_shape(opcode::add), {0, 0}, 1);
    const auto plan = p.plan();
    const auto& k = plan.groups[0].kernel;
    CHECK(k.params.size() == 2);
    int loads = 0;
    for (const auto& n : k.body) loads += n.op == opcode::load;
    CHECK(loads == 1);
}

TEST_CASE("fusion_gives_every_scalar_its_own_parameter_bound_to_its_statement") {
    program p(3);
    p.add(scale_shape(), {no_buffer, 0}, 1).add(scale_shape(), {no_buffer, 1}, 2);
    const auto plan = p.plan();
    const auto& g = plan.groups[0];
    int scalars = 0;
    for (std::size_t a = 0; a < g.args.size(); ++a)
        if (g.args[a].kind == loom::ir::param_kind::scalar) {
            CHECK(g.args[a].statement == std::uint32_t(scalars));
            CHECK(g.args[a].slot == 0);
            ++scalars;
        }
    CHECK(scalars == 2);
}

TEST_CASE("fusion_stores_a_dead_buffer_that_a_later_kernel_reads") {
    // b2 (dead) is written in kernel 0 and read in kernel 1 (another length): stored.
    program p(4, {true, true, false, true});
    p.add(binary_shape(opcode::add), {0, 1}, 2, 0).add(binary_shape(opcode::add), {2, 2}, 3, 1);
    const auto plan = p.plan();
    REQUIRE(plan.groups.size() == 2);
    CHECK(plan.groups[0].stored == std::vector<std::uint32_t>{2});
    CHECK(plan.groups[0].elided.empty());
}

TEST_CASE("strided spans of one vector: disjoint where their ranges or their classes modulo the steps part") {
    using loom::detail::written_span;
    using loom::fusion::spans_disjoint;
    auto both_ways = [](written_span a, written_span b) { return spans_disjoint(a, b) && spans_disjoint(b, a); };
    auto neither_way = [](written_span a, written_span b) { return !spans_disjoint(a, b) && !spans_disjoint(b, a); };
    CHECK(both_ways({0, 1, 10}, {10, 1, 10}));     // adjacent ranges
    CHECK(neither_way({0, 1, 11}, {10, 1, 10}));   // one element shared
    CHECK(both_ways({0, 8, 100}, {3, 8, 100}));    // residues 0 and 3 modulo 8
    CHECK(both_ways({792, -8, 100}, {3, 8, 100})); // the same, one walked backwards
    CHECK(both_ways({0, 2, 50}, {1, 4, 50}));      // even against odd
    CHECK(neither_way({0, 2, 50}, {3, 3, 50}));    // 6 in both
    CHECK(neither_way({0, 4, 50}, {2, 6, 50}));    // 8, 20, ... in both (gcd 2, same class)
    CHECK(both_ways({5, 1, 1}, {6, 7, 1}));        // single elements, apart
    CHECK(neither_way({5, 1, 1}, {5, 3, 1}));      // the same element
    CHECK(both_ways({4, 0, 3}, {5, 1, 1}));        // stride 0 writes one element three times
    CHECK(neither_way({4, 0, 3}, {0, 2, 10}));     // ... which the even elements hold
    CHECK(both_ways({0, 1, 0}, {0, 1, 10}));       // an empty span meets nothing
    // Blocks of a matrix 10 wide: 3 x 4 at (0, 0) is {0..3, 10..13, 20..23}.
    CHECK(both_ways({0, 10, 12, 4}, {4, 10, 12, 4}));    // side by side
    CHECK(both_ways({0, 10, 12, 4}, {30, 10, 12, 4}));   // one below the other
    CHECK(neither_way({0, 10, 12, 4}, {23, 10, 4, 2}));  // meeting at (2, 3)
    CHECK(neither_way({0, 10, 12, 4}, {12, 10, 12, 4})); // rows 1..3 and columns 2..3 shared
    CHECK(both_ways({0, 10, 12, 4}, {24, 1, 6, 0}));     // a slice past the block's last element
    CHECK(neither_way({0, 10, 12, 4}, {5, 10, 2, 0}));   // a column slice inside its range: not compared
    CHECK(neither_way({0, 10, 12, 4}, {4, 11, 12, 4}));  // blocks of matrices of other widths
    const std::int64_t big = std::int64_t(1) << 62;      // no overflow near the end of the index range
    CHECK(both_ways({big, 1, 4}, {big + 4, 1, 4}));
    CHECK(neither_way({big + 3, -1, 4}, {big, 3, 2}));
}
