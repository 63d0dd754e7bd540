// The reduction and scan pass emitters over an input that reads neighbours: the input is
// lowered like a map's checked body, the accumulated value named as the lowered kernel names
// it, and the CUDA text compiles with NVRTC (sm_80) where it is built in.
#include "codegen_support.hpp"

#include "codegen/reduce_pass.hpp"
#include "codegen/scan_pass.hpp"
#include "ir/shape.hpp"
#include "loom/detail/shape_builder.hpp"

using namespace loom_codegen_test;

namespace {

// a + b on floats.
loom::codegen::combine_op plus() {
    loom::detail::shape_builder b;
    const auto x = b.scalar_slot(dtype::f32), y = b.scalar_slot(dtype::f32);
    loom::codegen::combine_op op;
    op.shape = b.finish_expression(b.apply(opcode::add, x, y));
    op.role = {loom::detail::operand_role::left, loom::detail::operand_role::right};
    op.type = dtype::f32;
    return op;
}

// x[i - 1] (wrapped) * s + x[i]: its root is the sum.
struct stencil_input {
    loom::ir::kernel kernel;
    std::uint32_t root;
};
stencil_input wrapped_difference() {
    kernel_builder b;
    const auto x = b.buffer(dtype::f32), d = b.scalar_param(dtype::i64), s = b.scalar_param(dtype::f32);
    const auto left = b.neighbour(x, loom::boundary_policy::wrap, b.scalar(d));
    const auto root = b.op(opcode::add, dtype::f32, b.op(opcode::mul, dtype::f32, left, b.scalar(s)), b.load(x));
    return {b.kernel(), root};
}

} // namespace

TEST_CASE("reduction and scan passes read their input's neighbours lowered, in either layout and dialect") {
    const stencil_input in = wrapped_difference();
    const loom::codegen::combine_op op = plus();
    for (const auto* d : {&loom::codegen::opencl_dialect(), &loom::codegen::cuda_dialect()})
        for (bool chunked : {false, true}) {
            CAPTURE(d->name);
            CAPTURE(chunked);
            loom::codegen::reduce_pass_kernel r;
            r.input = &in.kernel;
            r.accumulators = {{in.root, &op}};
            r.group = 64;
            r.chunked = chunked;
            r.lanes = 16;
            const std::string reduce = loom::codegen::emit_reduce_pass(r, *d).text();
            CAPTURE(reduce);
            CHECK(contains(reduce, " = p0[v")); // the neighbour, lowered to a read at its index
            // The fold names the lowered root: the last value computed before it.
            const std::string fold = chunked ? "a0_0 = loom_combine0(a0_0, v" : "a0 = loom_combine0(a0, v";
            const std::size_t at = reduce.find(fold);
            REQUIRE(at != std::string::npos);
            const std::string folded = reduce.substr(at + fold.size() - 1, reduce.find(')', at) - at - fold.size() + 1);
            CHECK(contains(reduce, "float " + folded + " = ("));
            if (std::string(d->name) == "cuda") compiles_with_nvrtc(reduce);
            using passes = std::vector<loom::codegen::scan_pass>;
            for (auto pass : chunked
                                 ? passes{loom::codegen::scan_pass::chunk_totals, loom::codegen::scan_pass::scan_output}
                                 : passes{loom::codegen::scan_pass::single_pass}) {
                loom::codegen::scan_pass_kernel s;
                s.input = &in.kernel;
                s.root = in.root;
                s.op = &op;
                s.pass = pass;
                s.group = 64;
                s.chunked = chunked;
                const std::string scan = loom::codegen::emit_scan_pass(s, *d).text();
                CAPTURE(scan);
                CHECK(contains(scan, " = p0[v"));
                if (std::string(d->name) == "cuda") compiles_with_nvrtc(scan);
            }
        }
}
