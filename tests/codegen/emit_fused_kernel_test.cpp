// Shapes from the shape builder, fused by the planner, emitted: the path every flush takes,
// checked on the text (no device): each buffer loaded once, dead temporaries never stored,
// host scalars as parameters rather than literals.
#include "codegen_support.hpp"

#include "fusion/plan.hpp"
#include "ir/shape.hpp"
#include "loom/detail/shape_builder.hpp"

using namespace loom_codegen_test;
using loom::codegen::emit;
using loom::codegen::opencl_dialect;

namespace {

const loom::detail::shape* binary_shape(opcode op, dtype t) {
    loom::detail::shape_builder b;
    const auto x = b.vector_slot(t), y = b.vector_slot(t);
    return b.finish_assignment(b.apply(op, x, y), t);
}

const loom::detail::shape* scaled_shape(dtype t) { // target = s * x
    loom::detail::shape_builder b;
    const auto s = b.scalar_slot(t), x = b.vector_slot(t);
    return b.finish_assignment(b.apply(opcode::mul, s, x), t);
}

loom::fusion::planned_statement statement(const loom::detail::shape* s, std::vector<std::uint32_t> slots,
                                          std::uint32_t target) {
    loom::fusion::planned_statement st;
    st.shape = s;
    st.slot_buffer = std::move(slots);
    st.target = target;
    return st;
}

} // namespace

TEST_CASE("a fused group loads each buffer once, keeps temporaries in registers and stores only live buffers") {
    // b2 = b0 * b1; b3 = b2 + b0; b4 = b3 * b1      with b2 and b3 dead temporaries
    loom::fusion::plan_request r;
    r.buffer_types.assign(5, dtype::f32);
    r.buffer_live = {true, true, false, false, true};
    r.statements = {statement(binary_shape(opcode::mul, dtype::f32), {0, 1}, 2),
                    statement(binary_shape(opcode::add, dtype::f32), {2, 0}, 3),
                    statement(binary_shape(opcode::mul, dtype::f32), {3, 1}, 4)};
    auto plan = loom::fusion::plan_kernels(r);
    REQUIRE(plan.groups.size() == 1);
    plan.groups[0].kernel.form = loom::ir::map_form::chunked; // one copy of the body (vector_map_test.cpp)
    const std::string s = emit(plan.groups[0].kernel, opencl_dialect()).text();
    CHECK(occurrences(s, "p0[i]") == 1);
    CHECK(occurrences(s, "p1[i]") == 1);
    CHECK(occurrences(s, "[i] = ") == 1); // only b4 is stored
    CHECK(occurrences(s, "__global const float") == 2);
    CHECK(occurrences(s, "__global float") == 1);
    loom::ir::kernel again = loom::fusion::plan_kernels(r).groups[0].kernel;
    again.form = loom::ir::map_form::chunked;
    CHECK(emit(again, opencl_dialect()).text() == s);
}

TEST_CASE("host scalars become kernel parameters, so the text does not depend on their values") {
    loom::fusion::plan_request r;
    r.buffer_types.assign(2, dtype::f64);
    r.buffer_live = {true, true};
    r.statements = {statement(scaled_shape(dtype::f64), {loom::fusion::no_buffer, 0}, 1),
                    statement(scaled_shape(dtype::f64), {loom::fusion::no_buffer, 1}, 1)};
    auto plan = loom::fusion::plan_kernels(r);
    REQUIRE(plan.groups.size() == 1);
    plan.groups[0].kernel.form = loom::ir::map_form::chunked;
    const std::string s = emit(plan.groups[0].kernel, opencl_dialect()).text();
    CHECK(occurrences(s, "double p") >= 2); // two scalar parameters, one per statement
    CHECK(contains(s, "cl_khr_fp64"));
    CHECK(occurrences(s, "[i] = ") == 1);
}
