// Stencil kernels in the emitted text: a chunked map with neighbour reads splits each chunk
// into an interior, where it reads element i + offset with no test, and the ends, which take
// the per-element border form; a 2-D launch tests once per work-group whether the group and
// every read of it stay inside. Values are checked against the host in
// tests/fusion/stencil_interior_test.cpp and, for the lowered reads alone, in
// lower_neighbour_reads_test.cpp; this checks which form each read takes. A border form
// clamps, wraps or selects (" ? " in the text); an untested read has none of them.
#include "codegen_support.hpp"

#include "loom/error.hpp"

using namespace loom_codegen_test;
using loom::codegen::cuda_dialect;
using loom::codegen::emit;
using loom::codegen::opencl_dialect;

namespace {

// y = x[i + d] + x[i] over float buffers, d a 64-bit scalar, in the chunked form.
loom::ir::kernel shift_sum() {
    kernel_builder b;
    b.form(loom::ir::map_form::chunked);
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

TEST_CASE("a chunked 1-D stencil reads i + offset untested in the chunk's interior, and tests its ends") {
    for (const auto* d : {&opencl_dialect(), &cuda_dialect()}) {
        const std::string s = emit(shift_sum(), *d).text();
        CAPTURE(s);
        // The interior: where i + p2 lies in [0, n) for every i.
        CHECK(contains(s, "if (loom_lo < -p2) loom_lo = -p2;"));
        CHECK(contains(s, "if (loom_hi > (" + std::string(d->signed_index_type) + ")n - p2) loom_hi = (" +
                              d->signed_index_type + ")n - p2;"));
        CHECK(occurrences(s, "; ++i) {") == 3); // begin..lo, lo..hi, hi..end
        CHECK(occurrences(s, "p1[i] = ") == 3); // one store per loop
        const std::string u = d->index_type;
        const std::string head = between(s, "for (" + u + " i = loom_begin;", "}\n"),
                          interior = between(s, "for (" + u + " i = (" + u + ")loom_lo;", "}\n"),
                          tail = between(s, "for (" + u + " i = (" + u + ")loom_hi;", "}\n");
        CHECK(occurrences(interior, " = p0[v") == 1); // the interior read, at i + p2 ...
        CHECK(contains(interior, " = (v"));
        CHECK_FALSE(contains(interior, " ? ")); // ... with no test
        for (const std::string& end : {head, tail}) {
            CHECK(occurrences(end, " = p0[v") == 1); // the clamped read, in the two ends
            CHECK(occurrences(end, " ? ") == 2);     // a clamp: below the first, past the last
        }
    }
}

TEST_CASE("a chunked map walks one contiguous chunk, 64-element aligned, and a grid-stride map strides") {
    kernel_builder b; // y = 2 * x
    const auto x = b.buffer(dtype::f32), y = b.buffer(dtype::f32), a = b.scalar_param(dtype::f32);
    b.store(y, b.op(opcode::mul, dtype::f32, b.scalar(a), b.load(x)));
    b.form(loom::ir::map_form::chunked);
    const std::string chunked = emit(b.kernel(), opencl_dialect()).text();
    CHECK(contains(chunked, "const ulong loom_chunk = ((n + loom_items - 1) / loom_items + 63) & ~(ulong)63;"));
    CHECK(contains(chunked, "for (ulong i = loom_begin; i < loom_end; ++i) {"));
    CHECK(occurrences(chunked, "; ++i) {") == 1);
    CHECK_FALSE(contains(chunked, "loom_lo"));
    b.form(loom::ir::map_form::grid_stride);
    const std::string strided = emit(b.kernel(), opencl_dialect()).text();
    // The vector form (vector_map_test.cpp): float4s, and the scalar loop for a misaligned buffer.
    CHECK(contains(strided,
                   "for (ulong loom_q = get_global_id(0); loom_q < loom_vectors; loom_q += get_global_size(0)) {"));
    CHECK(contains(strided, "for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) {"));
    CHECK(occurrences(strided, "p1[i] = ") == 2); // the tail's and the misaligned loop's
}

TEST_CASE("an OpenCL 2-D launch bounds the group by column and row, and 1-D reads by its elements") {
    const std::string s = emit(grid_and_shift(), opencl_dialect()).text();
    CHECK(contains(s, "loom_c0 = loom_col - (long)get_local_id(0), loom_r0 = loom_row - (long)get_local_id(1);"));
    CHECK(contains(s, "loom_i0 = loom_r0 * loom_w + loom_c0, loom_i1 = loom_r1 * loom_w + loom_c1;"));
    CHECK(contains(s, "if ((loom_c1 < loom_w) & (loom_r1 < loom_h) & (loom_c0 + p2 >= 0) & (loom_c1 + p2 < loom_w) & "
                      "(loom_r0 + p3 >= 0) & (loom_r1 + p3 < loom_h)"));
    CHECK(contains(s, "} else if ((loom_col < loom_w) & (loom_row < loom_h)) {"));
    CHECK(contains(s, "(loom_i0 + p5 >= 0) & (loom_i1 + p5 < (long)n)"));
    CHECK(occurrences(s, "p1[i] = ") == 2);
    CAPTURE(s);
    // Both reads at i + offset in the interior body, with no test. In the border body the grid
    // read is one load at its clamped row and column, with no select between two loads (which
    // became a masked load and a masked gather).
    const std::string interior = between(s, "if ((loom_c1 < loom_w)", "} else if"),
                      border = between(s, "} else if", "\n    }\n");
    CHECK(occurrences(interior, " = p0[v") == 2);
    CHECK_FALSE(contains(interior, " ? "));
    CHECK(occurrences(border, " = p0[v") == 2);
    CHECK(contains(border, " = loom_row;"));
    CHECK(contains(border, " = loom_h;"));
    CHECK(occurrences(border, " ? ") == 6); // clamped: the grid read's column and row, the 1-D read
    CHECK_FALSE(contains(border, "? p0["));
}

TEST_CASE("a chunked grid kernel walks bands of rows, each row's interior columns untested") {
    loom::ir::kernel k = grid_and_shift();
    k.form = loom::ir::map_form::chunked;
    for (const auto* d : {&opencl_dialect(), &cuda_dialect()}) {
        const std::string s = emit(k, *d).text();
        CAPTURE(s);
        const std::string sl = d->signed_index_type;
        CHECK(contains(s, "for (" + sl + " loom_row = loom_r0; loom_row < loom_r1; ++loom_row) {"));
        CHECK(contains(s, "if (loom_lo < -p2) loom_lo = -p2;"));                                 // the column offset
        CHECK(contains(s, "if ((loom_row + p3 < 0) | (loom_row + p3 >= loom_h)) loom_hi = 0;")); // the row offset
        CHECK(contains(s, "if (loom_lo < -p5 - loom_base) loom_lo = -p5 - loom_base;"));         // the 1-D read
        CHECK(occurrences(s, "; ++loom_col) {") == 3);
        const std::string interior = between(s, "loom_col = loom_lo;", "}\n");
        // Each end: one column as straight-line code, else a loop over its columns.
        CHECK(contains(s, "if (loom_lo == 1) {"));
        CHECK(contains(s, "if (loom_w - loom_hi == 1) {"));
        const std::string left = between(s, "const " + sl + " loom_col = 0;", "} else {"),
                          right = between(s, "const " + sl + " loom_col = loom_hi;", "} else {"),
                          left_loop = between(s, "for (" + sl + " loom_col = 0;", "}\n"),
                          right_loop = between(s, "for (" + sl + " loom_col = loom_hi;", "}\n");
        CHECK(occurrences(interior, " = p0[v") == 2); // both reads untested in the interior loop
        CHECK_FALSE(contains(interior, " ? "));
        // The row's own values, the grid read's clamped row among them, come once before the
        // three loops; each end clamps the grid read's column and the 1-D read.
        const std::string row = between(s, "if (loom_hi < loom_lo) loom_hi = loom_lo;", "loom_col = 0;");
        CHECK(occurrences(row, " ? ") == 2);
        CHECK_FALSE(contains(row, "loom_col"));
        CHECK_FALSE(contains(row, "p0["));
        for (const std::string& end : {left, right, left_loop, right_loop}) CHECK(occurrences(end, " ? ") == 4);
        CHECK_FALSE(contains(s, "get_local_id"));
    }
}

TEST_CASE("a grid read outside a 2-D launch is not tested and keeps its per-element form") {
    kernel_builder b; // the 1-D form of a grid kernel: coordinates from the element index
    const auto u = b.buffer(dtype::f32), v = b.buffer(dtype::f32);
    const auto di = b.scalar_param(dtype::i64), dj = b.scalar_param(dtype::i64), w = b.scalar_param(dtype::i64);
    b.store(v, b.neighbour(u, b.scalar(di), b.scalar(dj), b.scalar(w)));
    const std::string s = emit(b.kernel(), opencl_dialect()).text();
    CHECK_FALSE(contains(s, "get_local_id"));
    CHECK(occurrences(s, "p1[i] = ") == 1);
    // Row and column from one division by the width, which is at least 1: C's division, without
    // the guards for 0 and -1 that Loom's integer division has elsewhere.
    CAPTURE(s);
    CHECK(occurrences(s, " / v") == 2); // the element's row, and the grid's height
    CHECK_FALSE(contains(s, " % v"));
    CHECK_FALSE(contains(s, "== 0 ?"));
}

TEST_CASE("CUDA grid-stride stencil kernels keep the per-element border form, with no interior test") {
    loom::ir::kernel strided = shift_sum();
    strided.form = loom::ir::map_form::grid_stride;
    for (const auto& k : {strided, grid_and_shift()}) {
        const std::string s = emit(k, cuda_dialect()).text();
        CHECK_FALSE(contains(s, "loom_lo"));
        CHECK_FALSE(contains(s, "loom_c0"));
    }
    CHECK(occurrences(emit(strided, cuda_dialect()).text(), "p1[i] = ") == 1);
}

TEST_CASE("a CUDA grid kernel has a second form in int coordinates, for grids under 2^30 elements") {
    loom::ir::kernel k = grid_and_shift();
    REQUIRE(loom::codegen::grid_narrowable(k, cuda_dialect()));
    CHECK_FALSE(loom::codegen::grid_narrowable(k, opencl_dialect())); // one work-item per element there
    const std::string wide = emit(k, cuda_dialect()).text();
    k.narrow_grid = true;
    const std::string narrow = emit(k, cuda_dialect()).text();
    INFO(narrow);
    // Two kernels, not two branches of one: ptxas would give both the wide body's registers.
    CHECK_FALSE(contains(narrow, "1 << 30"));
    CHECK_FALSE(contains(wide, "1 << 30"));
    CHECK(contains(narrow, "const int loom_w = (int)p4;"));
    CHECK(contains(narrow, "for (int loom_row = "));
    CHECK_FALSE(contains(narrow, "    long long v")); // offsets, width and coordinates are ints
    CHECK(occurrences(narrow, "p1[i] = ") == 1);
    CHECK(contains(wide, "const long long loom_h = (long long)n / loom_w;"));
    CHECK(contains(wide, "    long long v"));
    CHECK(occurrences(wide, "p1[i] = ") == 1);
    loom::ir::kernel opencl_narrow = k;
    CHECK_THROWS_AS(emit(opencl_narrow, opencl_dialect()), loom::error);

    // A user's own 64-bit integers keep the whole kernel in 64 bits.
    kernel_builder b;
    const auto u = b.buffer(dtype::i64), v = b.buffer(dtype::i64);
    const auto di = b.scalar_param(dtype::i64), dj = b.scalar_param(dtype::i64), w = b.scalar_param(dtype::i64);
    b.store(v, b.op(opcode::add, dtype::i64, b.neighbour(u, b.scalar(di), b.scalar(dj), b.scalar(w)), b.load(u)));
    b.grid_launch(w);
    CHECK_FALSE(loom::codegen::grid_narrowable(b.kernel(), cuda_dialect()));
    loom::ir::kernel int64 = b.kernel();
    int64.narrow_grid = true;
    CHECK_THROWS_AS(emit(int64, cuda_dialect()), loom::error);
}

namespace {

// v = u(x + a, y + b, z + c) under `p` + u(x + d, y + e, z + f) clamped, on a grid w wide of
// planes h rows high, the grid form with the reads' planes shared (ir::kernel::grid_height_param).
loom::ir::kernel planes_sum(loom::boundary_policy p, loom::ir::map_form form) {
    kernel_builder b;
    b.form(form);
    const auto u = b.buffer(dtype::f32), v = b.buffer(dtype::f32);
    std::uint32_t offsets[6];
    for (std::uint32_t& o : offsets) o = b.scalar(b.scalar_param(dtype::i64));
    const auto w = b.scalar_param(dtype::i64), h = b.scalar_param(dtype::i64), c = b.scalar_param(dtype::f32);
    const auto value = p == loom::boundary_policy::constant ? b.scalar(c) : loom::ir::no_node;
    const auto first = b.neighbour3(u, p, offsets[0], offsets[1], offsets[2], b.scalar(w), b.scalar(h), value);
    const auto second =
        b.neighbour3(u, loom::boundary_policy::clamp, offsets[3], offsets[4], offsets[5], b.scalar(w), b.scalar(h));
    b.store(v, b.op(opcode::add, dtype::f32, first, second));
    b.grid_launch(w);
    b.plane_launch(h);
    return b.kernel();
}

} // namespace

TEST_CASE("3-D reads sharing their planes: the plane and row once per row, no division per read") {
    for (auto p : {loom::boundary_policy::clamp, loom::boundary_policy::wrap, loom::boundary_policy::constant}) {
        CAPTURE(int(p));
        const std::string rows = emit(planes_sum(p, loom::ir::map_form::chunked), opencl_dialect()).text();
        INFO(rows);
        CHECK(occurrences(rows, "loom_row / loom_plane_rows") == 1); // in the row's prologue
        CHECK(contains(rows, "const long loom_planes = loom_h / loom_plane_rows;"));
        CHECK_FALSE(contains(rows, "loom_row % ")); // no read finds its plane for itself
        CHECK_FALSE(contains(rows, " / v"));        // nor divides per element
        // Clamped and wrapped reads take their neighbour rows in the interior: only a
        // constant-policy read's row is tested, sending the row to the checked body.
        CHECK(occurrences(rows, ")) loom_hi = 0;") == (p == loom::boundary_policy::constant ? 1 : 0));
        for (auto form : {loom::ir::map_form::chunked, loom::ir::map_form::grid_stride}) {
            loom::ir::kernel k = planes_sum(p, form);
            CHECK(contains(emit(k, opencl_dialect()).text(), "const long loom_y = loom_row - loom_plane * "));
            const std::string wide = emit(k, cuda_dialect()).text();
            CHECK(contains(wide, "const long long loom_plane = loom_row / loom_plane_rows;"));
            CHECK_FALSE(contains(wide, " / v"));
            compiles_with_nvrtc(wide);
            if (form != loom::ir::map_form::grid_stride) continue;
            REQUIRE(loom::codegen::grid_narrowable(k, cuda_dialect()));
            k.narrow_grid = true;
            const std::string narrow = emit(k, cuda_dialect()).text();
            CHECK(contains(narrow, "const int loom_plane_rows = (int)p9 < 1 ? 1 : (int)p9;"));
            CHECK(contains(narrow, "const int loom_plane = loom_row / loom_plane_rows;"));
            compiles_with_nvrtc(narrow);
        }
    }
}
