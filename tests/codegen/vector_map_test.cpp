// The grid-stride map's vector form (codegen/vector_map.hpp): which kernels take it, with how
// many lanes, and its text in both dialects. Its values are tested in the expression suite's
// grid-stride run (expr_grid_stride) and on CUDA.
#include "codegen_support.hpp"

#include "codegen/vector_map.hpp"

using namespace loom_codegen_test;
using loom::codegen::cuda_dialect;
using loom::codegen::emit;
using loom::codegen::opencl_dialect;
using loom::codegen::vector_map_lanes;

namespace {

// out = x * y over buffers of types a, b and out.
loom::ir::kernel product(dtype a, dtype b_type, dtype out) {
    kernel_builder b;
    const auto x = b.buffer(a), y = b.buffer(b_type), z = b.buffer(out);
    const auto lx = b.load(x), ly = b.load(y);
    b.store(z, b.op(opcode::mul, out, a == out ? lx : b.op(opcode::cast, out, lx),
                    b_type == out ? ly : b.op(opcode::cast, out, ly)));
    return b.kernel();
}

} // namespace

TEST_CASE("the vector form takes 16 bytes a buffer where it can: 4 lanes, 2 where a buffer has 8-byte elements") {
    CHECK(vector_map_lanes(product(dtype::f32, dtype::f32, dtype::f32)) == 4);
    CHECK(vector_map_lanes(product(dtype::i8, dtype::i16, dtype::i32)) == 4);
    CHECK(vector_map_lanes(product(dtype::u8, dtype::u8, dtype::u8)) == 4);
    CHECK(vector_map_lanes(product(dtype::f64, dtype::f64, dtype::f64)) == 2);
    CHECK(vector_map_lanes(product(dtype::f32, dtype::f32, dtype::f64)) == 2); // float2 loads, double2 stores
    CHECK(vector_map_lanes(product(dtype::i64, dtype::i32, dtype::i64)) == 2);
    CHECK(vector_map_lanes(saxpy_sin()) == 4);
}

TEST_CASE("a kernel that reads or writes anything but its own element keeps the scalar form") {
    loom::ir::kernel k = product(dtype::f32, dtype::f32, dtype::f32);
    k.form = loom::ir::map_form::chunked; // CPUs: the chunked form
    CHECK(vector_map_lanes(k) == 0);
    CHECK(vector_map_lanes(product(dtype::c64, dtype::c64, dtype::c64)) == 0);
    CHECK(vector_map_lanes(product(dtype::f32x4, dtype::f32x4, dtype::f32x4)) == 0);
    {
        kernel_builder b; // bool elements
        const auto x = b.buffer(dtype::f32), y = b.buffer(dtype::boolean);
        b.store(y, b.op(opcode::isnan, dtype::boolean, b.load(x)));
        CHECK(vector_map_lanes(b.kernel()) == 0);
    }
    {
        kernel_builder b; // a neighbour read
        const auto x = b.buffer(dtype::f32), y = b.buffer(dtype::f32), d = b.scalar_param(dtype::i64);
        b.store(y, b.neighbour(x, b.scalar(d)));
        CHECK(vector_map_lanes(b.kernel()) == 0);
    }
    {
        kernel_builder b; // a gather: x[idx[i]]
        const auto x = b.buffer(dtype::f32), idx = b.buffer(dtype::u64), y = b.buffer(dtype::f32);
        loom::ir::node at{opcode::load_at, dtype::f32};
        at.slot = x;
        at.arg[0] = b.load(idx);
        b.store(y, b.node(at));
        CHECK(vector_map_lanes(b.kernel()) == 0);
    }
    {
        kernel_builder b; // a grid kernel
        const auto x = b.buffer(dtype::f32), y = b.buffer(dtype::f32), w = b.scalar_param(dtype::i64);
        b.store(y, b.load(x));
        b.grid_launch(w);
        CHECK(vector_map_lanes(b.kernel()) == 0);
    }
    {
        kernel_builder b; // a body of more than 64 live nodes: computing more than it moves
        const auto x = b.buffer(dtype::f32), y = b.buffer(dtype::f32);
        std::uint32_t v = b.load(x);
        for (int k = 0; k < 70; ++k) v = b.op(opcode::sin, dtype::f32, v);
        b.store(y, v);
        CHECK(vector_map_lanes(b.kernel()) == 0);
    }
}

TEST_CASE("the vector form reads and writes each buffer as one vector, after one alignment test, in both dialects") {
    const loom::ir::kernel k = saxpy_sin(); // y = a * x + sin(x)
    const std::string cl = emit(k, opencl_dialect()).text();
    CHECK(contains(cl, "if ((((size_t)p0 % 16) | ((size_t)p1 % 16)) == 0) {"));
    CHECK(contains(cl, "const float4 loom_v0 = *(__global const float4 *)(p0 + loom_first);"));
    CHECK(occurrences(cl, "loom_v0.") == 4); // y is written, not read
    CHECK(
        contains(cl, "*(__global float4 *)(p1 + loom_first) = (float4)(loom_s0_0, loom_s0_1, loom_s0_2, loom_s0_3);"));
    CHECK(occurrences(cl, "sin(") == 6); // four lanes, the tail, the misaligned loop
    const std::string cu = emit(k, cuda_dialect()).text();
    CHECK(contains(cu, "const float4 loom_v0 = *(const float4 *)(p0 + loom_first);"));
    CHECK(contains(cu, "*(float4 *)(p1 + loom_first) = make_float4(loom_s0_0, loom_s0_1, loom_s0_2, loom_s0_3);"));
    const std::string doubles = emit(product(dtype::f32, dtype::f32, dtype::f64), cuda_dialect()).text();
    CHECK(contains(doubles, "const float2 loom_v0 = *(const float2 *)(p0 + loom_first);"));
    CHECK(contains(doubles, "((size_t)p0 % 8) | ((size_t)p1 % 8) | ((size_t)p2 % 16)"));
    CHECK(contains(doubles, "= make_double2(loom_s0_0, loom_s0_1);"));
}
