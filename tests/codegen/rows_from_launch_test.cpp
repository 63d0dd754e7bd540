// A matrix statement's row and column positions (element / cols, element - row * cols, as
// ir::lower_positions writes them) on a grid launch: the width joins the kernel's grid widths,
// and the grid kernel takes the launch's row and column instead of dividing. Values are checked
// against the host in tests/expr/grid_launch_test.cpp.
#include "codegen_support.hpp"

#include <algorithm>

#include "codegen/rows_from_launch.hpp"

using namespace loom_codegen_test;
using loom::codegen::cuda_dialect;
using loom::codegen::emit;
using loom::codegen::opencl_dialect;
using loom::codegen::rows_from_launch;

namespace {

// out = (float)(i / cols) * 1000 + (float)(i - (i / cols) * cols) + x[((i / cols) & 7) * cols + (i - ...)]
struct position_kernel {
    loom::ir::kernel k;
    std::uint32_t cols = 0;
};

position_kernel positions() {
    kernel_builder b;
    b.buffer(dtype::f32); // x: parameter 0, which the load_at below reads
    const auto out = b.buffer(dtype::f32), cols = b.scalar_param(dtype::u64), mask = b.scalar_param(dtype::u64);
    const auto i = b.index(), w = b.scalar(cols);
    const auto row = b.op(opcode::div, dtype::u64, i, w);
    const auto column = b.op(opcode::sub, dtype::u64, i, b.op(opcode::mul, dtype::u64, row, w));
    const auto gathered =
        b.op(opcode::add, dtype::u64,
             b.op(opcode::mul, dtype::u64, b.op(opcode::bit_and, dtype::u64, row, b.scalar(mask)), w), column);
    const auto read = b.op(opcode::load_at, dtype::f32, gathered); // slot 0: x at the computed index
    const auto value = b.op(opcode::add, dtype::f32,
                            b.op(opcode::add, dtype::f32,
                                 b.op(opcode::mul, dtype::f32, b.op(opcode::cast, dtype::f32, row),
                                      b.op(opcode::cast, dtype::f32, b.scalar(mask))),
                                 b.op(opcode::cast, dtype::f32, column)),
                            read);
    b.store(out, value);
    b.form(loom::ir::map_form::chunked);
    return {b.kernel(), cols};
}

std::size_t count(const loom::ir::kernel& k, opcode o) {
    return std::size_t(std::count_if(k.body.begin(), k.body.end(), [&](const loom::ir::node& n) { return n.op == o; }));
}

} // namespace

TEST_CASE("a row position's divisor is a grid width, and the grid kernel takes row and column from the launch") {
    position_kernel p = positions();
    CHECK(loom::ir::grid_width_params(p.k) == std::vector<std::uint32_t>{p.cols});
    CHECK(rows_from_launch(p.k).body == p.k.body); // the 1-D form divides
    p.k.grid_width_param = p.cols;
    const loom::ir::kernel launched = rows_from_launch(p.k);
    CHECK(count(p.k, opcode::div) == 1);
    CHECK(count(launched, opcode::div) == 0);
    CHECK(count(launched, opcode::sub) == 0); // the column is the launch's too
    for (const auto* d : {&opencl_dialect(), &cuda_dialect()}) {
        const std::string s = emit(p.k, *d).text();
        CAPTURE(s);
        CHECK(contains(s, " = loom_row;")); // the row, once per row
        // No read leaves the row: one loop over every column, with no division in it.
        CHECK(occurrences(s, "++loom_col) {") == 1);
        const std::string columns = between(s, "loom_col < loom_w; ++loom_col) {", "}\n");
        REQUIRE_FALSE(columns.empty());
        CHECK_FALSE(contains(columns, " / ")); // no division per element
        CHECK(contains(columns, "loom_col"));
    }
    // A packed width travels in a buffer the launch does not read: no grid form.
    p.k.params[p.cols].packed = true;
    CHECK(loom::ir::grid_width_params(p.k).empty());
}
