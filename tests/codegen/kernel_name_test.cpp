// Kernel names and comment headers (codegen/kernel_source.hpp, kernel_header.hpp): every kernel
// is named loom_<16 hex digits> after its own text, maps, passes and their variants alike; a
// fused kernel's header lists its statements and leaves the name alone.
#include "codegen_support.hpp"

#include <vector>
#include <cctype>
#include <cstdio>
#include <set>

#include <xxhash.h>

#include "codegen/kernel_header.hpp"
#include "codegen/reduce_pass.hpp"
#include "codegen/scan_pass.hpp"
#include "fusion/plan.hpp"
#include "ir/shape.hpp"
#include "loom/detail/shape_builder.hpp"

using namespace loom_codegen_test;
using loom::codegen::cuda_dialect;
using loom::codegen::emit;
using loom::codegen::kernel_source;
using loom::codegen::opencl_dialect;

namespace {

bool is_kernel_name(const std::string& name) {
    if (name.size() != 21 || name.compare(0, 5, "loom_") != 0) return false;
    for (std::size_t i = 5; i < name.size(); ++i)
        if (!std::isxdigit(static_cast<unsigned char>(name[i])) || std::isupper(static_cast<unsigned char>(name[i])))
            return false;
    return true;
}

// target = x * s + sin(y), over slots (x, s, y)
const loom::detail::shape* scaled_sin_shape() {
    loom::detail::shape_builder b;
    const auto x = b.vector_slot(dtype::f32), s = b.scalar_slot(dtype::f32), y = b.vector_slot(dtype::f32);
    return b.finish_assignment(b.apply(opcode::add, b.apply(opcode::mul, x, s), b.apply(opcode::sin, y)), dtype::f32);
}

// a + b on floats, as a reduction's combine.
loom::codegen::combine_op float_plus() {
    loom::detail::shape_builder b;
    const auto x = b.scalar_slot(dtype::f32), y = b.scalar_slot(dtype::f32);
    loom::codegen::combine_op op;
    op.shape = b.finish_expression(b.apply(opcode::add, x, y));
    op.role = {loom::detail::operand_role::left, loom::detail::operand_role::right};
    op.type = dtype::f32;
    return op;
}

const loom::detail::shape* product_shape() { // target = x * y
    loom::detail::shape_builder b;
    const auto x = b.vector_slot(dtype::f32), y = b.vector_slot(dtype::f32);
    return b.finish_assignment(b.apply(opcode::mul, x, y), dtype::f32);
}

loom::fusion::planned_statement statement(const loom::detail::shape* s, std::vector<std::uint32_t> slots,
                                          std::uint32_t target) {
    loom::fusion::planned_statement st;
    st.shape = s;
    st.slot_buffer = std::move(slots);
    st.target = target;
    return st;
}

// b2 = b0 * p + sin(b1); b3 = b2 * b1, all live: one kernel.
loom::fusion::plan_request two_statements() {
    loom::fusion::plan_request r;
    r.buffer_types.assign(4, dtype::f32);
    r.buffer_live.assign(4, true);
    r.statements = {statement(scaled_sin_shape(), {0, loom::fusion::no_buffer, 1}, 2),
                    statement(product_shape(), {2, 1}, 3)};
    return r;
}

} // namespace

TEST_CASE("a kernel is named loom_ and the 16 hex digits of XXH3-64 of its text, once, in its signature") {
    for (const auto* d : {&opencl_dialect(), &cuda_dialect()}) {
        CAPTURE(d->name);
        const kernel_source k = emit(saxpy_sin(), *d);
        CHECK(is_kernel_name(k.name));
        CHECK(occurrences(k.body, k.name) == 1);
        CHECK(contains(k.body, std::string(d->kernel_prefix) + " " + k.name + "("));
        CHECK_FALSE(contains(k.body, loom::codegen::unnamed_kernel));
        // The hash is of the text with the name left out (written as the placeholder).
        std::string unnamed = k.body;
        unnamed.replace(unnamed.find(k.name), k.name.size(), loom::codegen::unnamed_kernel);
        char expected[24];
        std::snprintf(expected, sizeof expected, "loom_%016llx",
                      static_cast<unsigned long long>(XXH3_64bits(unnamed.data(), unnamed.size())));
        CHECK(k.name == expected);
        CHECK(k.header.empty()); // hand-built IR holds no statements
        CHECK(k.text() == k.body);
    }
}

TEST_CASE("equal kernels share a name; different kernels, dialects and forms get different names") {
    std::set<std::string> names;
    for (const auto* d : {&opencl_dialect(), &cuda_dialect()})
        for (dtype t : {dtype::f32, dtype::f64})
            for (auto form : {loom::ir::map_form::chunked, loom::ir::map_form::grid_stride}) {
                loom::ir::kernel k = saxpy_sin(t);
                k.form = form;
                const kernel_source a = emit(k, *d), b = emit(saxpy_sin(t), *d);
                if (form == loom::ir::map_form::grid_stride) CHECK(a.name == b.name); // saxpy_sin is grid-stride
                names.insert(a.name);
            }
    CHECK(names.size() == 8);
}

TEST_CASE("reduction and scan passes, their looped and epilogue variants, are named after their text") {
    kernel_builder b;
    const auto x = b.buffer(dtype::f32);
    const auto lx = b.load(x);
    const loom::ir::kernel in = b.kernel();
    const loom::codegen::combine_op plus = float_plus();
    std::set<std::string> names;
    for (const auto* d : {&opencl_dialect(), &cuda_dialect()})
        for (bool chunked : {false, true}) {
            loom::codegen::reduce_pass_kernel r;
            r.input = &in;
            r.accumulators = {{lx, &plus}};
            r.group = 64;
            r.chunked = chunked;
            r.lanes = 16;
            const kernel_source pass = loom::codegen::emit_reduce_pass(r, *d);
            CHECK(is_kernel_name(pass.name));
            CHECK(contains(pass.body, std::string(d->kernel_prefix) + " " + pass.name + "("));
            CHECK(loom::codegen::emit_reduce_pass(r, *d).name == pass.name);
            names.insert(pass.name);
            const std::vector<std::uint32_t> rotation = {0, 1, 2, 3};
            r.rotation = &rotation;
            const kernel_source looped = loom::codegen::emit_reduce_pass(r, *d);
            CHECK(is_kernel_name(looped.name));
            names.insert(looped.name);
            using passes = std::vector<loom::codegen::scan_pass>;
            for (auto which : chunked
                                  ? passes{loom::codegen::scan_pass::chunk_totals,
                                           loom::codegen::scan_pass::scan_totals, loom::codegen::scan_pass::scan_output}
                                  : passes{loom::codegen::scan_pass::single_pass}) {
                loom::codegen::scan_pass_kernel s;
                s.input = &in;
                s.root = lx;
                s.op = &plus;
                s.pass = which;
                s.group = 64;
                s.chunked = chunked;
                const kernel_source scan = loom::codegen::emit_scan_pass(s, *d);
                CHECK(contains(scan.body, std::string(d->kernel_prefix) + " " + scan.name + "("));
                names.insert(scan.name);
            }
        }
    CHECK(names.size() == 2 * ((2 + 3) + (2 + 1))); // every pass, variant, layout and dialect its own
}

TEST_CASE("a fused kernel's header lists its statements: number, target, expression over b<class> and p<k>") {
    const auto plan = loom::fusion::plan_kernels(two_statements());
    REQUIRE(plan.groups.size() == 1);
    const kernel_source k = emit(plan.groups[0].kernel, opencl_dialect());
    CHECK(k.header == "// Loom: statements 0-1 of a flush\n"
                      "//   0: b2 = (b0 * p1) + sin(b1)\n"
                      "//   1: b3 = b2 * b1\n");
    CHECK(k.text() == k.header + k.body);
    CHECK_FALSE(contains(k.body, "// Loom")); // the body, which the name is made from, has no header
    // Parameters in the order the body first uses them: b0 (p0), the scalar (p1), b1 (p2)...
    CHECK(contains(k.body, "float p1"));
}

TEST_CASE("the header does not make two kernels differ: numbering changes the header, not the name or text") {
    loom::fusion::plan_request r = two_statements();
    r.statements.insert(r.statements.begin(), statement(product_shape(), {0, 0}, 0)); // b0 = b0 * b0 first
    r.buffer_live[0] = true;
    const auto a = loom::fusion::plan_kernels(two_statements());
    loom::fusion::plan_request cut = r;
    cut.fuse = false; // one kernel per statement: statements 1 and 2 alone
    const auto b = loom::fusion::plan_kernels(cut);
    REQUIRE(b.groups.size() == 3);
    const kernel_source single_a = emit(loom::fusion::plan_kernels([] {
                                            loom::fusion::plan_request one = two_statements();
                                            one.fuse = false;
                                            return one;
                                        }())
                                            .groups[1]
                                            .kernel,
                                        opencl_dialect());
    const kernel_source single_b = emit(b.groups[2].kernel, opencl_dialect()); // b3 = b2 * b1, statement 2
    CHECK(single_a.body == single_b.body);
    CHECK(single_a.name == single_b.name);
    CHECK(single_a.header == "// Loom: statement 1 of a flush\n//   1: b3 = b2 * b1\n");
    CHECK(single_b.header == "// Loom: statement 2 of a flush\n//   2: b3 = b2 * b1\n");
    CHECK(a.groups.size() == 1);
}

TEST_CASE("buffer names from loom::name replace b<class> in the header, made safe for a comment") {
    loom::fusion::plan_request r = two_statements();
    r.buffer_names = {"", "velocity", "tmp\\", "pressure/*x*/"};
    const auto plan = loom::fusion::plan_kernels(r);
    REQUIRE(plan.groups.size() == 1);
    const kernel_source k = emit(plan.groups[0].kernel, opencl_dialect());
    CHECK(k.header == "// Loom: statements 0-1 of a flush\n"
                      "//   0: tmp_ = (b0 * p1) + sin(velocity)\n"
                      "//   1: pressure__x__ = tmp_ * velocity\n");
    // Names change the header alone.
    CHECK(k.body == emit(loom::fusion::plan_kernels(two_statements()).groups[0].kernel, opencl_dialect()).body);
}

TEST_CASE("a long statement's header line is cut short, and a shared sub-expression costs no more than its text") {
    loom::detail::shape_builder b;
    auto v = b.vector_slot(dtype::f32);
    for (int i = 0; i < 64; ++i) v = b.apply(opcode::add, v, v); // a DAG of 64 levels: 2^64 leaves as a tree
    loom::fusion::plan_request r;
    r.buffer_types.assign(2, dtype::f32);
    r.buffer_live.assign(2, true);
    r.statements = {statement(b.finish_assignment(v, dtype::f32), {0}, 1)};
    const std::string header = loom::codegen::kernel_header(loom::fusion::plan_kernels(r).groups[0].kernel);
    const std::string line = between(header, "//   0: ", "\n");
    CHECK(line.size() < 200);
    CHECK(contains(line, " ..."));
}
