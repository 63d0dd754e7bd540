// The planners without a device: what each pass of a reduction, a scan, an axis reduction and a
// sort binds, in the order codegen declared its parameters, and the sizes a call launches with.
#include <doctest/doctest.h>

#include <vector>

#include "codegen/dialect.hpp"
#include "loom/loom.hpp"
#include "skeleton/plan_axis_reduce.hpp"
#include "skeleton/plan_reduce.hpp"
#include "skeleton/plan_scan.hpp"
#include "skeleton/plan_sort.hpp"

namespace {

using loom::plan::argument;
using loom::plan::source;
using loom::dtype;

constexpr std::uint32_t n_extent = std::uint32_t(loom::codegen::pass_extent::n);
constexpr std::uint32_t chunk_extent = std::uint32_t(loom::codegen::pass_extent::chunk);

const loom::codegen::dialect& opencl() { return loom::codegen::opencl_dialect(); }

loom::detail::skeleton_operation plus_f32() {
    return loom::expr::operation<float>(loom::detail::plus_operation{}, 0.0f);
}

// A sum of `input` into a device scalar in one group of 64.
loom::skeleton::reduce_request sum_into_device(const loom::detail::shape* input,
                                               const std::vector<std::uint32_t>& classes,
                                               const loom::detail::skeleton_operation& op) {
    loom::skeleton::reduce_request r;
    r.input = input;
    r.slot_class = &classes;
    r.ops = &op;
    r.op_count = 1;
    r.into_device = true;
    r.geometry = {64, 1, false};
    return r;
}

} // namespace

TEST_CASE("plan_reduce: one pass into a device scalar reads the input's slots and writes the result") {
    loom::vector<float> x, y; // shapes are lowered from types: no context needed
    const std::vector<std::uint32_t> classes{0, 1};
    const auto op = plus_f32();
    const loom::skeleton::reduce_request r = sum_into_device(loom::expr::input_shape(x * y), classes, op);
    const loom::skeleton::reduce_plan made = loom::skeleton::plan_reduce(r, opencl());
    REQUIRE(made.plan.passes.size() == 1);
    const std::vector<argument> expected{{source::slot_buffer, 0},
                                         {source::slot_buffer, 1},
                                         {source::result, 0},
                                         {source::identity, 0, 0, dtype::f32},
                                         {source::extent, n_extent}};
    CHECK(made.plan.passes[0].arguments == expected);
    CHECK(made.plan.read_back.empty());
    CHECK(made.plan.passes[0].kernel.layout.size() == expected.size());
}

TEST_CASE("plan_reduce: one buffer named twice is one parameter; a guard follows the input") {
    loom::vector<float> x;
    const std::vector<std::uint32_t> classes{0, 0};
    const auto op = plus_f32();
    loom::skeleton::reduce_request r = sum_into_device(loom::expr::input_shape(x * x), classes, op);
    r.guarded = true;
    const auto made = loom::skeleton::plan_reduce(r, opencl());
    const std::vector<argument> expected{{source::slot_buffer, 0},
                                         {source::guard},
                                         {source::result, 0},
                                         {source::identity, 0, 0, dtype::f32},
                                         {source::extent, n_extent}};
    CHECK(made.plan.passes[0].arguments == expected);
}

TEST_CASE("plan_reduce: two passes for the host fold partials in scratch and read the result back") {
    loom::vector<double> x;
    const std::vector<std::uint32_t> classes{0};
    const auto lo = loom::expr::operation<double>(loom::detail::min_operation{}, 0.0);
    const auto hi = loom::expr::operation<double>(loom::detail::max_operation{}, 0.0);
    const loom::detail::skeleton_operation ops[] = {lo, hi};
    loom::skeleton::reduce_request r;
    r.input = loom::expr::input_shape(x);
    r.slot_class = &classes;
    r.ops = ops;
    r.op_count = 2;
    r.geometry = {16, 8, true};
    const auto made = loom::skeleton::plan_reduce(r, opencl());
    REQUIRE(made.plan.passes.size() == 2);
    const std::vector<argument> pass1{{source::slot_buffer, 0},
                                      {source::scratch, 0},
                                      {source::scratch, 2},
                                      {source::identity, 0, 0, dtype::f64},
                                      {source::identity, 1, 0, dtype::f64},
                                      {source::extent, n_extent}};
    const std::vector<argument> pass2{{source::scratch, 0},
                                      {source::scratch, 2},
                                      {source::scratch, 1},
                                      {source::scratch, 3},
                                      {source::identity, 0, 0, dtype::f64},
                                      {source::identity, 1, 0, dtype::f64},
                                      {source::extent, n_extent}};
    CHECK(made.plan.passes[0].arguments == pass1);
    CHECK(made.plan.passes[1].arguments == pass2);
    CHECK(made.plan.read_back == std::vector<std::uint32_t>{1, 3});
    CHECK(made.plan.scratch == std::vector<dtype>(4, dtype::f64));

    const loom::plan::launch_sizes s = loom::skeleton::reduce_launch(r.geometry, 100000, 2);
    CHECK(s.geometry[0].global_items == 8 * 16);
    CHECK(s.geometry[0].group_size == 16);
    CHECK(s.extents[0][n_extent] == 100000);
    CHECK(s.geometry[1].global_items == 16);
    CHECK(s.extents[1][n_extent] == 8);
    CHECK(s.scratch_elements[0] == 8);
    CHECK(s.scratch_elements[1] == 1);
}

TEST_CASE("plan_reduce refuses more than two operations") {
    loom::vector<float> x;
    const std::vector<std::uint32_t> classes{0};
    const loom::detail::skeleton_operation ops[] = {plus_f32(), plus_f32(), plus_f32()};
    loom::skeleton::reduce_request r;
    r.input = loom::expr::input_shape(x);
    r.slot_class = &classes;
    r.ops = ops;
    r.op_count = 3;
    CHECK_THROWS_AS(loom::skeleton::plan_reduce(r, opencl()), loom::error);
}

TEST_CASE("plan_scan: three passes; the totals' passes start from the identity, the last from the call's value") {
    loom::vector<float> x;
    const std::vector<std::uint32_t> classes{0};
    const auto op = plus_f32();
    loom::skeleton::scan_request r;
    r.input = loom::expr::input_shape(x);
    r.slot_class = &classes;
    r.op = &op;
    r.exclusive = true;
    r.geometry.group = 32;
    r.geometry.chunked = true;
    r.geometry.groups = 2;
    r.geometry.chunk = 64;
    r.geometry.parts = 64;
    const loom::plan::plan p = loom::skeleton::plan_scan(r, opencl());
    REQUIRE(p.passes.size() == 3);
    const argument id{source::identity, 0, 0, dtype::f32};
    const argument chunk{source::extent, chunk_extent}, n{source::extent, n_extent};
    CHECK(p.passes[0].arguments ==
          std::vector<argument>{{source::slot_buffer, 0}, {source::scratch, 0}, id, id, chunk, n});
    CHECK(p.passes[1].arguments ==
          std::vector<argument>{{source::scratch, 0}, {source::scratch, 1}, id, id, chunk, n});
    CHECK(p.passes[2].arguments == std::vector<argument>{{source::slot_buffer, 0},
                                                         {source::result, 0},
                                                         {source::scratch, 1},
                                                         id,
                                                         {source::initial, 0, 0, dtype::f32},
                                                         chunk,
                                                         n});
    const loom::plan::launch_sizes s = loom::skeleton::scan_launch(r.geometry, 4000);
    CHECK(s.geometry[0].global_items == 64);
    CHECK(s.geometry[1].global_items == 32);
    CHECK(s.extents[0][chunk_extent] == 64);
    CHECK(s.extents[1][n_extent] == 64);
    CHECK(s.extents[2][n_extent] == 4000);
    CHECK(s.scratch_elements[0] == 64);

    SUBCASE("in place: the last pass writes through its input parameter") {
        r.output_class = 0;
        const loom::plan::plan q = loom::skeleton::plan_scan(r, opencl());
        CHECK(q.passes[2].arguments == std::vector<argument>{{source::slot_buffer, 0},
                                                             {source::scratch, 1},
                                                             id,
                                                             {source::initial, 0, 0, dtype::f32},
                                                             chunk,
                                                             n});
    }
}

TEST_CASE("plan_axis_reduce: one pass writing each value's result vector, then rows and cols") {
    loom::vector<float> x;
    const std::vector<std::uint32_t> classes{0};
    const auto op = plus_f32();
    loom::skeleton::axis_request r;
    r.input = loom::expr::input_shape(x * 2.0f);
    r.slot_class = &classes;
    r.ops = &op;
    r.geometry.form = loom::codegen::axis_form::lanes;
    r.geometry.items = 4;
    const loom::plan::plan p = loom::skeleton::plan_axis_reduce(r, opencl());
    REQUIRE(p.passes.size() == 1);
    CHECK(p.passes[0].arguments ==
          std::vector<argument>{{source::slot_buffer, 0},
                                {source::slot_value, 1, 0, dtype::f32},
                                {source::result, 0},
                                {source::identity, 0, 0, dtype::f32},
                                {source::extent, std::uint32_t(loom::codegen::pass_extent::rows)},
                                {source::extent, std::uint32_t(loom::codegen::pass_extent::cols)}});
    const loom::plan::launch_sizes s = loom::skeleton::axis_launch(r.geometry, 30, 7);
    CHECK(s.geometry[0].global_items == 4);
    CHECK(s.extents[0][std::uint32_t(loom::codegen::pass_extent::rows)] == 30);
    CHECK(s.elements[0] == 210);
}

TEST_CASE("plan_sort with one part: one pass binds the input, the outputs, their scratch copies and the direction") {
    loom::vector<float> x, values;
    const std::vector<std::uint32_t> classes{0};
    loom::skeleton::sort_request r;
    r.input = loom::expr::input_shape(x * 2.0f);
    r.slot_class = &classes;
    r.key = dtype::f32;
    r.carried = {dtype::i32};
    r.descending = true;
    r.geometry.chunked = true;
    r.geometry.whole = true;
    r.geometry.radix_bits = 8;
    const loom::plan::plan p = loom::skeleton::plan_sort(r, opencl());
    REQUIRE(p.passes.size() == 1);
    const std::vector<argument>& a = p.passes[0].arguments;
    // The expression's slots (x and 2.0f), then keys out and their scratch, the values and theirs,
    // the direction, n, chunk and parts.
    REQUIRE(a.size() == 10);
    CHECK(a[0] == argument{source::slot_buffer, 0});
    CHECK(a[1].from == source::slot_value);
    const std::vector<argument> expected{{source::result, 0},  {source::scratch, 1}, {source::result, 1},
                                         {source::scratch, 2}, {source::constant, 1}};
    for (std::size_t k = 0; k < expected.size(); ++k) CHECK(a[2 + k] == expected[k]);
    const loom::plan::launch_sizes s = loom::skeleton::sort_launch(r.geometry, 1000, 1);
    CHECK(s.geometry[0].global_items == 1);
    CHECK(s.scratch_elements[1] == 1000);
    CHECK(s.scratch_elements[2] == 1000);
}

TEST_CASE("plan_sort: digits alternate between the scratch copy and the output; the last writes the output") {
    loom::vector<float> x, values; // keys x * 2 (fused into the first digit), one value vector
    const std::vector<std::uint32_t> classes{0};
    loom::skeleton::sort_request r;
    r.input = loom::expr::input_shape(x * 2.0f);
    r.slot_class = &classes;
    r.key = dtype::f32;
    r.carried = {dtype::i32};
    r.descending = true;
    r.geometry.chunked = true;
    r.geometry.radix_bits = 8;
    r.geometry.offsets_group = 16;
    const loom::plan::plan p = loom::skeleton::plan_sort(r, opencl());
    REQUIRE(p.passes.size() == 12); // 4 digits of count, offsets, scatter
    const std::vector<dtype> scratch{dtype::u64, dtype::f32, dtype::i32};
    CHECK(p.scratch == scratch);
    for (std::size_t digit = 0; digit < 4; ++digit) {
        CAPTURE(digit);
        const std::vector<argument>& scatter = p.passes[3 * digit + 2].arguments;
        // Keys in: the expression's slots (first digit), else the other copy; keys out, counts,
        // the value vector in and out; then shift, direction and the extents.
        const argument keys_in = digit == 0 ? argument{source::slot_buffer, 0}
                                 : digit % 2 ? argument{source::scratch, 1}
                                             : argument{source::result, 0};
        const argument keys_out = digit % 2 ? argument{source::result, 0} : argument{source::scratch, 1};
        CHECK(scatter[0] == keys_in);
        CHECK(scatter[digit == 0 ? 2 : 1] == keys_out);
        const argument values_out = digit % 2 ? argument{source::result, 1} : argument{source::scratch, 2};
        const argument shift{source::constant, std::uint32_t(8 * digit)}, descending{source::constant, 1};
        const std::size_t at = scatter.size() - 5; // shift, descending, n, chunk, parts
        CHECK(scatter[at - 1] == values_out);
        CHECK(scatter[at] == shift);
        CHECK(scatter[at + 1] == descending);
        CHECK(p.passes[3 * digit + 1].arguments.front() == argument{source::scratch, 0}); // the counts, scanned
        CHECK(p.passes[3 * digit].sizes == 0);
        CHECK(p.passes[3 * digit + 1].sizes == 1);
        CHECK(p.passes[3 * digit + 2].sizes == 2);
    }
}
