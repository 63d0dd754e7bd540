// Stencil kernels in the emitted text: an OpenCL map with neighbour reads tests once per
// work-group whether the group and every read of it stay inside, and then reads element
// i + offset; the per-element bounds test and border form are the other branch. Values are checked against the host in
// tests/fusion/stencil_interior_test.cpp; this checks which form each read takes.
#include "codegen_support.hpp"

using namespace loom_codegen_test;
using loom::codegen::cuda_dialect;
using loom::codegen::emit;
using loom::codegen::opencl_dialect;

namespace {

// y = x[i + d] + x[i] over float buffers, d a 64-bit scalar.
loom::ir::kernel shift_sum() {
    kernel_builder b;
    const auto x = b.buffer(dtype::f32), y = b.buffer(dtype::f32), d = b.scalar_param(dtype::i64);
    b.store(y, b.op(opcode::add, dtype::f32, b.neighbour(x, b.scalar(d)), b.load(x)));
    return b.kernel();
}

// v = u(x + di, y + dj) + x[i + k] on a grid w wide, launched on the 2-D range.
loom::ir::kernel grid_and_shift() {
    kernel_builder b;
    const auto u = b.buffer(dtype::f32), v = b.buffer(dtype::f32);
    const auto di = b.scalar_param(dtype::i64), dj = b.scalar_param(dtype::i64), w = b.scalar_param(dtype::i64),
               k = b.scalar_param(dtype::i64);
    const auto at = b.neighbour(u, b.scalar(di), b.scalar(dj), b.scalar(w));
    b.store(v, b.op(opcode::add, dtype::f32, at, b.neighbour(u, b.scalar(k))));
    b.grid_launch(w);
    return b.kernel();
}

} // namespace

TEST_CASE("an OpenCL 1-D stencil tests its work-group once and reads i + offset inside") {
    const std::string s = emit(shift_sum(), opencl_dialect());
    CHECK(contains(s, "const long loom_i0 = (long)i - (long)get_local_id(0), loom_i1 = loom_i0 + "
                      "(long)get_local_size(0) - 1;"));
    // The whole group is inside the vector, and so are its neighbours; else each element tests itself.
    CHECK(contains(s, "if ((loom_i1 < (long)n) & (loom_i0 + p2 >= 0) & (loom_i1 + p2 < (long)n)) {"));
    CHECK(contains(s, "} else if (i < n) {"));
    CHECK(occurrences(s, "p1[i] = ") == 2); // one store per body
    CHECK(occurrences(s, "p0[(long)i + v") == 1); // the interior read
    CHECK(occurrences(s, " ? 0 : (") == 1);       // the clamped read, in the other body
}

TEST_CASE("an OpenCL 2-D launch bounds the group by column and row, and 1-D reads by its elements") {
    const std::string s = emit(grid_and_shift(), opencl_dialect());
    CHECK(contains(s, "loom_c0 = loom_col - (long)get_local_id(0), loom_r0 = loom_row - (long)get_local_id(1);"));
    CHECK(contains(s, "loom_i0 = loom_r0 * loom_w + loom_c0, loom_i1 = loom_r1 * loom_w + loom_c1;"));
    CHECK(contains(s, "if ((loom_c1 < loom_w) & (loom_r1 < loom_h) & (loom_c0 + p2 >= 0) & (loom_c1 + p2 < loom_w) & "
                      "(loom_r0 + p3 >= 0) & (loom_r1 + p3 < loom_h)"));
    CHECK(contains(s, "} else if ((loom_col < loom_w) & (loom_row < loom_h)) {"));
    CHECK(contains(s, "(loom_i0 + p5 >= 0) & (loom_i1 + p5 < (long)n)"));
    CHECK(occurrences(s, "p1[i] = ") == 2);
    CAPTURE(s);
    // Both reads at i + offset in the interior body only. In the border body the grid read is
    // one load at its clamped row and column, with no select between two loads (which
    // became a masked load and a masked gather).
    CHECK(occurrences(s, "p0[(long)i + v") == 2);
    CHECK(occurrences(s, "p0[((loom_row + v") == 1);
    CHECK_FALSE(contains(s, "< loom_h) ? p0["));
}

TEST_CASE("a grid read outside a 2-D launch is not tested and keeps its per-element form") {
    kernel_builder b; // the 1-D form of a grid kernel: coordinates from the element index
    const auto u = b.buffer(dtype::f32), v = b.buffer(dtype::f32);
    const auto di = b.scalar_param(dtype::i64), dj = b.scalar_param(dtype::i64), w = b.scalar_param(dtype::i64);
    b.store(v, b.neighbour(u, b.scalar(di), b.scalar(dj), b.scalar(w)));
    const std::string s = emit(b.kernel(), opencl_dialect());
    CHECK_FALSE(contains(s, "get_local_id"));
    CHECK(occurrences(s, "p1[i] = ") == 1);
}

TEST_CASE("CUDA stencil kernels keep one body with the per-element border form") {
    for (const auto& k : {shift_sum(), grid_and_shift()}) {
        const std::string s = emit(k, cuda_dialect());
        CHECK_FALSE(contains(s, "loom_i0"));
        CHECK_FALSE(contains(s, "loom_c0"));
        CHECK(occurrences(s, "p1[i] = ") == 1);
    }
}
