// The axis reduction emitter: the row and column are loop counters (no division per element),
// a broadcast reads at them, a matrix at loom_r * cols + loom_c; both forms, both axes, both
// dialects; the CUDA text compiles with NVRTC (sm_80) where it is built in.
#include "codegen_support.hpp"

#include "codegen/axis_pass.hpp"
#include "ir/shape.hpp"
#include "loom/detail/shape_builder.hpp"
#include "loom/error.hpp"

using namespace loom_codegen_test;

namespace {

loom::codegen::combine_op plus(dtype t) {
    loom::detail::shape_builder b;
    const auto x = b.scalar_slot(t), y = b.scalar_slot(t);
    loom::codegen::combine_op op;
    op.shape = b.finish_expression(b.apply(opcode::add, x, y));
    op.role = {loom::detail::operand_role::left, loom::detail::operand_role::right};
    op.type = t;
    return op;
}

// A(i, j) * x[j] + y[i]: a matrix (p0) read at the element, x (p1) at the column, y (p2) at the row.
struct matvec_input {
    loom::ir::kernel kernel;
    std::uint32_t root = 0;
};
matvec_input matvec() {
    matvec_input in;
    for (int p = 0; p < 3; ++p) in.kernel.params.push_back({loom::ir::param_kind::buffer, dtype::f32, false});
    loom::ir::node_list body;
    auto leaf = [&](opcode o, dtype t, std::uint32_t slot) {
        loom::ir::node n{o, t};
        n.slot = slot;
        return body.add(n);
    };
    auto op = [&](opcode o, dtype t, std::uint32_t a, std::uint32_t b) {
        loom::ir::node n{o, t};
        n.arg[0] = a;
        n.arg[1] = b;
        return body.add(n);
    };
    const auto a = leaf(opcode::load, dtype::f32, 0);
    const auto col = leaf(opcode::index, dtype::u64, std::uint32_t(loom::ir::index_value::column));
    const auto row = leaf(opcode::index, dtype::u64, std::uint32_t(loom::ir::index_value::row));
    auto read_at = [&](std::uint32_t p, std::uint32_t at) { // load_at names its buffer in `slot`
        loom::ir::node n{opcode::load_at, dtype::f32};
        n.slot = p;
        n.arg[0] = at;
        return body.add(n);
    };
    const auto xv = read_at(1, col), yv = read_at(2, row);
    in.root = op(opcode::add, dtype::f32, op(opcode::mul, dtype::f32, a, xv), yv);
    in.kernel.body = body.nodes();
    return in;
}

} // namespace

TEST_CASE("axis_pass_has_the_row_and_column_as_loop_counters_and_divides_nothing_per_element") {
    const matvec_input in = matvec();
    const loom::codegen::combine_op sum = plus(dtype::f32);
    for (const auto* d : {&loom::codegen::opencl_dialect(), &loom::codegen::cuda_dialect()})
        for (auto form : {loom::codegen::axis_form::lanes, loom::codegen::axis_form::groups})
            for (unsigned axis : {0u, 1u}) {
                CAPTURE(d->name);
                CAPTURE(int(form));
                CAPTURE(axis);
                loom::codegen::axis_pass_kernel pass;
                pass.input = &in.kernel;
                pass.accumulators = {{in.root, &sum}};
                pass.axis = axis;
                pass.form = form;
                pass.group = 64;
                const std::string text = loom::codegen::emit_axis_pass(pass, *d).text();
                CHECK(text.find(" loom_r") != std::string::npos);
                CHECK(text.find(" loom_c") != std::string::npos);
                CHECK(text.find("const " + std::string(d->index_type) + " i = ") != std::string::npos);
                CHECK(text.find("p0[i]") != std::string::npos);      // the matrix at its element
                CHECK(text.find(" = loom_c;") != std::string::npos); // the column as a value
                CHECK(text.find(" = loom_r;") != std::string::npos); // the row as a value
                CHECK(text.find("/ cols") == std::string::npos);     // no division by the width
                CHECK(text.find("% cols") == std::string::npos);
                CHECK(occurrences(text, "out0[") >= 1);
                const bool tree = form == loom::codegen::axis_form::groups && axis == 1;
                CHECK((text.find(std::string(d->group.array_qualifier) + " float s0[64];") != std::string::npos) ==
                      tree);
                if (d == &loom::codegen::cuda_dialect()) compiles_with_nvrtc(text);
            }
}

TEST_CASE("axis_pass_lanes_form_folds_sixteen_columns_a_step_as_vectors_and_the_tail_alone") {
    const matvec_input in = matvec();
    const loom::codegen::combine_op sum = plus(dtype::f32);
    loom::codegen::axis_pass_kernel pass;
    pass.input = &in.kernel;
    pass.accumulators = {{in.root, &sum}};
    pass.axis = 1;
    pass.form = loom::codegen::axis_form::lanes;
    pass.lanes = 16;
    const std::string text = loom::codegen::emit_axis_pass(pass, loom::codegen::opencl_dialect()).text();
    CHECK(text.find("loom_c0 + 16u <= cols") != std::string::npos);
    CHECK(text.find("float16 a0_0 = (float16)(id0);") != std::string::npos);
    CHECK(text.find("static float16 loom_combine0_lanes(float16 p0, float16 p1)") != std::string::npos);
    // The matrix and x as sixteen adjacent elements, y at the row a scalar broadcast to the lanes.
    CHECK(text.find("= (float16)(p0[i], p0[i + 1], ") != std::string::npos);
    CHECK(text.find("p0[i + 15])") != std::string::npos);
    CHECK(text.find("= (float16)(p1[loom_c], p1[loom_c + 1], ") != std::string::npos);
    CHECK(text.find(" + ((float16)(v") != std::string::npos);
    CHECK(text.find("a0_0 = loom_combine0_lanes(a0_0, v") != std::string::npos);
    CHECK(text.find("a0_0.s0 = loom_combine0(a0_0.s0, v") != std::string::npos); // the tail
    // The tree: halves, quarters, ..., each level one operation.
    CHECK(text.find("a0_0 = loom_combine0_lanes(a0_0, a0_0.s89abcdef01234567);") != std::string::npos);
    CHECK(text.find("a0_0 = loom_combine0_lanes(a0_0, a0_0.s123456789abcdef0);") != std::string::npos);
    CHECK(text.find("out0[loom_r] = a0_0.s0;") != std::string::npos);
    // A light element: four long rows a step, each with accumulators of its own and its own tree,
    // then the rows left over (and every row of a short matrix) one at a time.
    CHECK(text.find("for (; cols >= 4096u && loom_rb + 4u <= loom_r1; loom_rb += 4u) {") != std::string::npos);
    CHECK(text.find("float16 a0_0_r3 = (float16)(id0);") != std::string::npos);
    CHECK(text.find("a0_0_r3 = loom_combine0_lanes(a0_0_r3, a0_0_r3.s123456789abcdef0);") != std::string::npos);
    CHECK(text.find("for (; loom_rb < loom_r1; ++loom_rb) {") != std::string::npos);
    pass.axis = 0;
    const std::string columns = loom::codegen::emit_axis_pass(pass, loom::codegen::opencl_dialect()).text();
    CHECK(columns.find("out0[loom_c0 + 15u] = a0_0.sf;") != std::string::npos);
    CHECK(columns.find("out0[loom_c] = a0;") != std::string::npos); // the narrower last block
    // 32 lanes: two vectors, folded into one first.
    pass.axis = 1;
    pass.lanes = 32;
    const std::string wide = loom::codegen::emit_axis_pass(pass, loom::codegen::opencl_dialect()).text();
    CHECK(wide.find("const ulong loom_c = loom_c0 + 16u;") != std::string::npos);
    CHECK(wide.find("a0_0 = loom_combine0_lanes(a0_0, a0_1);") != std::string::npos);
}

TEST_CASE("the scalar lanes form folds its lanes in the vector form's order") {
    // CUDA has no vector arithmetic; in OpenCL a select on a per-element condition keeps the
    // lanes scalar. Both fold lane l + w into lane l for w = 8, 4, 2, 1.
    matvec_input in = matvec();
    std::vector<loom::ir::node>& body = in.kernel.body;
    auto add = [&](loom::ir::node n) {
        body.push_back(n);
        return std::uint32_t(body.size() - 1);
    };
    loom::ir::node zero{opcode::scalar, dtype::f32};
    zero.slot = std::uint32_t(in.kernel.params.size());
    in.kernel.params.push_back({loom::ir::param_kind::scalar, dtype::f32, false});
    const std::uint32_t z = add(zero);
    loom::ir::node test{opcode::less, dtype::boolean};
    test.arg[0] = in.root;
    test.arg[1] = z;
    const std::uint32_t negative = add(test);
    loom::ir::node pick{opcode::select, dtype::f32};
    pick.arg[0] = negative;
    pick.arg[1] = z;
    pick.arg[2] = in.root;
    const std::uint32_t root = add(pick);
    const loom::codegen::combine_op sum = plus(dtype::f32);
    for (const auto* d : {&loom::codegen::opencl_dialect(), &loom::codegen::cuda_dialect()})
        for (std::uint32_t folded : {in.root, root}) {
            if (d == &loom::codegen::opencl_dialect() && folded == in.root) continue; // vectors there
            CAPTURE(d->name);
            loom::codegen::axis_pass_kernel pass;
            pass.input = &in.kernel;
            pass.accumulators = {{folded, &sum}};
            pass.form = loom::codegen::axis_form::lanes;
            pass.lanes = 16;
            const std::string text = loom::codegen::emit_axis_pass(pass, *d).text();
            CHECK(text.find("float a0_15 = id0;") != std::string::npos);
            CHECK(text.find("_lanes") == std::string::npos);
            CHECK(text.find("a0_7 = loom_combine0(a0_7, a0_15);") != std::string::npos);
            CHECK(text.find("a0_3 = loom_combine0(a0_3, a0_7);") != std::string::npos);
            CHECK(text.find("a0_0 = loom_combine0(a0_0, a0_1);") != std::string::npos);
            CHECK(text.find("out0[loom_r] = a0_0;") != std::string::npos);
            CHECK(text.find("loom_rb + 4u") == std::string::npos); // scalar lanes: a row a step
            if (d == &loom::codegen::cuda_dialect()) compiles_with_nvrtc(text);
        }
}

TEST_CASE("with contraction, a sum folding a product folds it by fma; other folds and values are left alone") {
    matvec_input in = matvec();
    const std::uint32_t product = in.kernel.body[in.root].arg[0]; // A(i, j) * x[j]
    const loom::codegen::combine_op sum = plus(dtype::f32);
    loom::detail::shape_builder b;
    const auto l = b.scalar_slot(dtype::f32), r = b.scalar_slot(dtype::f32);
    loom::codegen::combine_op larger;
    larger.shape = b.finish_expression(b.apply(opcode::fmax, l, r));
    larger.role = {loom::detail::operand_role::left, loom::detail::operand_role::right};
    CHECK(loom::codegen::is_float_sum(sum));
    CHECK_FALSE(loom::codegen::is_float_sum(larger));
    CHECK_FALSE(loom::codegen::is_float_sum(plus(dtype::i32)));
    for (const auto* d : {&loom::codegen::opencl_dialect(), &loom::codegen::cuda_dialect()})
        for (auto form : {loom::codegen::axis_form::lanes, loom::codegen::axis_form::groups}) {
            CAPTURE(d->name);
            CAPTURE(int(form));
            loom::codegen::axis_pass_kernel pass;
            pass.input = &in.kernel;
            pass.accumulators = {{product, &sum}, {product, &larger}, {in.root, &sum}};
            pass.form = form;
            pass.group = 64;
            const std::string plain = loom::codegen::emit_axis_pass(pass, *d).text();
            pass.contract_folds = true;
            const std::string text = loom::codegen::emit_axis_pass(pass, *d).text();
            CHECK(plain.find("fma(") == std::string::npos);
            const std::string product_args = "fma(v" + std::to_string(in.kernel.body[product].arg[0]) + ", v" +
                                             std::to_string(in.kernel.body[product].arg[1]) + ", ";
            CHECK(text.find(product_args) != std::string::npos);                 // the sum of the product
            CHECK(occurrences(text, "fma(") == occurrences(text, product_args)); // and nothing else
            CHECK(text.find("loom_combine1(") != std::string::npos);             // the max folds as before
            CHECK(text.find("loom_combine2(") != std::string::npos);             // a sum of a sum, too
            if (d == &loom::codegen::cuda_dialect()) compiles_with_nvrtc(text);
        }
}

TEST_CASE("axis_pass_refuses_an_input_that_stores") {
    matvec_input in = matvec();
    in.kernel.params.push_back({loom::ir::param_kind::buffer, dtype::f32, true});
    in.kernel.stores.push_back({3, in.root});
    const loom::codegen::combine_op sum = plus(dtype::f32);
    loom::codegen::axis_pass_kernel pass;
    pass.input = &in.kernel;
    pass.accumulators = {{in.root, &sum}};
    CHECK_THROWS_AS(loom::codegen::emit_axis_pass(pass, loom::codegen::opencl_dialect()), loom::error);
}
