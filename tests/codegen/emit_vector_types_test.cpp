// Short vectors in kernel text (docs/vector-types.md): every operation component by component
// in both dialects, OpenCL's vector literals and CUDA's make_ functions, the 32-byte types as
// Loom's own structs in CUDA (defined once, only where used), and NVRTC compiles the result.
#include "codegen_support.hpp"

using namespace loom_codegen_test;
using loom::codegen::cuda_dialect;
using loom::codegen::emit;
using loom::codegen::opencl_dialect;

namespace {

// out4 = cast<double4>(x) * s + splat(d); out = dot(x, x) + length(x) + x.z; made = (x.y, x.x)
// as int2 from the float components; q = k / k2 for int2 k, k2 (Loom's integer division).
loom::ir::kernel vector_kernel() {
    kernel_builder b;
    const auto x = b.buffer(dtype::f32x4), out4 = b.buffer(dtype::f64x4), out = b.buffer(dtype::f32);
    const auto made = b.buffer(dtype::i32x2), k = b.buffer(dtype::i32x2), s = b.scalar_param(dtype::f64x4);
    const auto d = b.scalar_param(dtype::f64);
    const auto lx = b.load(x);
    const auto wide = b.op(opcode::cast, dtype::f64x4, lx);
    const auto splat = b.op(opcode::cast, dtype::f64x4, b.scalar(d));
    b.store(out4, b.op(opcode::add, dtype::f64x4, b.op(opcode::mul, dtype::f64x4, wide, b.scalar(s)), splat));
    loom::ir::node z{opcode::component, dtype::f32};
    z.arg[0] = lx;
    z.slot = 2;
    const auto sum =
        b.op(opcode::add, dtype::f32, b.op(opcode::dot, dtype::f32, lx, lx), b.op(opcode::length, dtype::f32, lx));
    b.store(out, b.op(opcode::add, dtype::f32, sum, b.node(z)));
    loom::ir::node cx{opcode::component, dtype::f32}, cy = cx;
    cx.arg[0] = cy.arg[0] = lx;
    cy.slot = 1;
    loom::ir::node m{opcode::make_vector, dtype::i32x2};
    m.arg[0] = b.op(opcode::cast, dtype::i32, b.node(cy));
    m.arg[1] = b.op(opcode::cast, dtype::i32, b.node(cx));
    const auto lk = b.load(k);
    b.store(made, b.op(opcode::div, dtype::i32x2, b.node(m), lk));
    return b.kernel();
}

} // namespace

TEST_CASE("short vector operations are written component by component in OpenCL C") {
    const std::string s = emit(vector_kernel(), opencl_dialect()).text();
    CHECK(contains(s, "__global const float4 *restrict p0"));
    CHECK(contains(s, "double4 p5"));
    CHECK(contains(s, "(double4)((double)v0.x, (double)v0.y, (double)v0.z, (double)v0.w)"));
    CHECK(contains(s, "(v0.x * v0.x + v0.y * v0.y + v0.z * v0.z + v0.w * v0.w)"));
    CHECK(contains(s, "sqrt((v0.x * v0.x"));
    CHECK(contains(s, "v0.z;"));
    CHECK(contains(s, "(int2)("));
    // Integer division keeps Loom's rule per component: x / 0 == 0.
    CHECK(occurrences(s, " == 0 ? (int)0 : ") == 2);
    CHECK(contains(s, "cl_khr_fp64"));
}

TEST_CASE("CUDA builds short vectors with make_ functions, defines the 32-byte ones, and NVRTC compiles it") {
    const std::string s = emit(vector_kernel(), cuda_dialect()).text();
    CHECK(contains(s, "const float4 *__restrict__ p0"));
    CHECK(contains(s, "make_loom_double4((double)v0.x"));
    CHECK(contains(s, "make_int2("));
    CHECK(occurrences(s, "struct __align__(16) loom_double4 { double x, y, z, w; };") == 1);
    CHECK_FALSE(contains(s, "loom_long4"));
    CHECK(contains(s, "sqrtf((v0.x * v0.x"));
    compiles_with_nvrtc(s);
}

TEST_CASE("a kernel without short vectors defines none") {
    CHECK_FALSE(contains(emit(saxpy_sin(), cuda_dialect()).text(), "__align__"));
}

TEST_CASE("packed short vector scalars are read by component from their 8-byte slots") {
    kernel_builder b; // y = x * s4 + cast<float4>(d4.x ...) with both scalars packed
    const auto x = b.buffer(dtype::f32x4), y = b.buffer(dtype::f32x4);
    const auto d4 = b.scalar_param(dtype::f64x4), s4 = b.scalar_param(dtype::f32x4);
    b.store(y, b.op(opcode::add, dtype::f32x4, b.op(opcode::mul, dtype::f32x4, b.load(x), b.scalar(s4)),
                    b.op(opcode::cast, dtype::f32x4, b.scalar(d4))));
    loom::ir::kernel k = b.kernel();
    k.params[d4].packed = true;
    k.params[s4].packed = true;
    const std::string cl = emit(k, opencl_dialect()).text();
    CAPTURE(cl);
    CHECK(contains(cl, "const double4 p2 = (double4)(((__global const double *)(loom_scalars + 0))[0], "));
    CHECK(contains(cl, "((__global const double *)(loom_scalars + 0))[3]);"));
    CHECK(contains(cl, "const float4 p3 = (float4)(((__global const float *)(loom_scalars + 4))[0], "));
    const std::string cu = emit(k, cuda_dialect()).text();
    CHECK(contains(cu, "const loom_double4 p2 = make_loom_double4(((const double *)(loom_scalars + 0))[0], "));
    CHECK(contains(cu, "const float4 p3 = make_float4(((const float *)(loom_scalars + 4))[0], "));
    compiles_with_nvrtc(cu);
}
