// The emitter in the OpenCL dialect, on hand-built kernel IR: deterministic text, the
// pragmas it needs and no others, parameter qualifiers, and one line per live node.
#include "codegen_support.hpp"

using namespace loom_codegen_test;
using loom::codegen::emit;
using loom::codegen::opencl_dialect;

TEST_CASE("emitting the same IR twice, or equal IR built twice, gives the same text") {
    const auto k = saxpy_sin();
    const std::string a = emit(k, opencl_dialect()).text();
    CHECK(a == emit(k, opencl_dialect()).text());
    CHECK(a == emit(saxpy_sin(), opencl_dialect()).text());
    CHECK(a != emit(saxpy_sin(dtype::f64), opencl_dialect()).text());
}

TEST_CASE("OpenCL source turns FP contraction off and enables fp64 only when double is used") {
    const std::string f = emit(saxpy_sin(dtype::f32), opencl_dialect()).text();
    const std::string d = emit(saxpy_sin(dtype::f64), opencl_dialect()).text();
    CHECK(f.rfind("#pragma OPENCL FP_CONTRACT OFF\n", 0) == 0);
    CHECK(d.rfind("#pragma OPENCL FP_CONTRACT OFF\n", 0) == 0);
    CHECK_FALSE(contains(f, "cl_khr_fp64"));
    CHECK(occurrences(d, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable") == 1);
    CHECK_FALSE(contains(f, "double"));
}

TEST_CASE("a double used only inside the body, or only as a parameter, still enables fp64") {
    kernel_builder inner; // y = (float)((double)x * 2.0)
    const auto x = inner.buffer(dtype::f32), y = inner.buffer(dtype::f32);
    const auto wide = inner.op(opcode::cast, dtype::f64, inner.load(x));
    inner.store(y, inner.op(opcode::cast, dtype::f32, inner.op(opcode::add, dtype::f64, wide, wide)));
    CHECK(contains(emit(inner.kernel(), opencl_dialect()).text(), "cl_khr_fp64"));

    kernel_builder param_only; // y = (float)s for a double scalar s
    const auto s = param_only.scalar_param(dtype::f64), out = param_only.buffer(dtype::f32);
    param_only.store(out, param_only.op(opcode::cast, dtype::f32, param_only.scalar(s)));
    CHECK(contains(emit(param_only.kernel(), opencl_dialect()).text(), "cl_khr_fp64"));
}

TEST_CASE("read-only buffers are const, written buffers are not, scalars pass by value, n comes last") {
    const loom::codegen::kernel_source k = emit(saxpy_sin(), opencl_dialect());
    const std::string& s = k.body;
    CHECK(contains(s, "__kernel void " + k.name +
                          "(__global const float *restrict p0, __global float *restrict p1, float p2, ulong n)"));
    CHECK(contains(s, "p1[i] = v"));
    CHECK_FALSE(contains(s, "p0[i] ="));
}

TEST_CASE("a buffer read and written by one kernel is one non-const parameter") {
    kernel_builder b; // x = x + x
    const auto x = b.buffer(dtype::i32);
    const auto lx = b.load(x);
    b.store(x, b.op(opcode::add, dtype::i32, lx, lx));
    b.form(loom::ir::map_form::chunked); // one copy of the body (the grid-stride form has several)
    const std::string s = emit(b.kernel(), opencl_dialect()).text();
    CHECK(contains(s, "(__global int *restrict p0, ulong n)"));
    CHECK(occurrences(s, "p0[i]") == 2); // one load, one store
    CHECK(contains(s, "int v1 = (v0 + v0);"));
}

TEST_CASE("each load is emitted once however many nodes use it") {
    kernel_builder b; // y = x * x + x - sin(x)
    const auto x = b.buffer(dtype::f32), y = b.buffer(dtype::f32);
    const auto l1 = b.load(x);
    const auto l2 = b.load(x); // hash-consed to l1
    CHECK(l1 == l2);
    const auto sq = b.op(opcode::mul, dtype::f32, l1, l2);
    b.store(y, b.op(opcode::sub, dtype::f32, b.op(opcode::add, dtype::f32, sq, l1), b.op(opcode::sin, dtype::f32, l2)));
    b.form(loom::ir::map_form::chunked);
    const std::string s = emit(b.kernel(), opencl_dialect()).text();
    CHECK(occurrences(s, "p0[i]") == 1);
    CHECK(occurrences(s, " = p0[i];") == 1);
}

TEST_CASE("nodes that no store reaches are not emitted") {
    kernel_builder b;
    const auto x = b.buffer(dtype::f32), y = b.buffer(dtype::f32), z = b.buffer(dtype::f32);
    const auto lx = b.load(x);
    b.op(opcode::tgamma, dtype::f32, lx);         // dead
    b.op(opcode::mul, dtype::f32, lx, b.load(z)); // dead, with a dead load
    b.store(y, b.op(opcode::sqrt, dtype::f32, lx));
    b.form(loom::ir::map_form::chunked);
    const std::string s = emit(b.kernel(), opencl_dialect()).text();
    CHECK_FALSE(contains(s, "tgamma"));
    CHECK_FALSE(contains(s, "p2[i]"));
    CHECK_FALSE(contains(s, "(v0 * ")); // the dead product
    CHECK(contains(s, "sqrt(v0)"));
    CHECK(occurrences(s, "float v") == 2); // the load and the sqrt
}

TEST_CASE("min, max, clamp and integer abs are spelled as C++'s std functions compute them, not fmin/fmax") {
    kernel_builder b;
    const auto a = b.buffer(dtype::i32), c = b.buffer(dtype::i32), out = b.buffer(dtype::i32);
    const auto la = b.load(a), lc = b.load(c);
    const auto mn = b.op(opcode::min, dtype::i32, la, lc);
    const auto mx = b.op(opcode::max, dtype::i32, la, lc);
    const auto cl = b.op(opcode::clamp, dtype::i32, la, mn, mx);
    b.store(out, b.op(opcode::abs, dtype::i32, cl));
    const std::string s = emit(b.kernel(), opencl_dialect()).text();
    CHECK(contains(s, "int v2 = (v1 < v0 ? v1 : v0);")); // std::min(a, b): b < a ? b : a
    CHECK(contains(s, "int v3 = (v0 < v1 ? v1 : v0);")); // std::max(a, b): a < b ? b : a
    CHECK(contains(s, "int v4 = (v0 < v2 ? v2 : (v3 < v0 ? v3 : v0));"));
    CHECK(contains(s, "int v5 = (v4 < 0 ? -v4 : v4);"));
    CHECK_FALSE(contains(s, "fmin"));
    CHECK_FALSE(contains(s, "fabs"));
}

TEST_CASE("float abs is fabs, conversions are C casts, conversion to bool is != 0, index() is i") {
    kernel_builder b;
    const auto x = b.buffer(dtype::f32), out = b.buffer(dtype::f32), flags = b.buffer(dtype::u8);
    const auto lx = b.load(x);
    const auto ab = b.op(opcode::abs, dtype::f32, lx);
    const auto idx = b.op(opcode::cast, dtype::f32, b.index());
    b.store(out, b.op(opcode::add, dtype::f32, ab, idx));
    b.store(flags, b.op(opcode::cast, dtype::u8, b.op(opcode::cast, dtype::boolean, lx)));
    const std::string s = emit(b.kernel(), opencl_dialect()).text();
    CHECK(contains(s, "float v1 = fabs(v0);"));
    CHECK(contains(s, "ulong v2 = i;"));
    CHECK(contains(s, "float v3 = (float)v2;"));
    CHECK(contains(s, "bool v5 = (v0 != 0);"));
    CHECK(contains(s, "uchar v6 = (uchar)v5;"));
}

TEST_CASE("every element type has its OpenCL spelling") {
    kernel_builder b;
    const dtype all[] = {dtype::i8,  dtype::i16, dtype::i32, dtype::i64, dtype::u8,
                         dtype::u16, dtype::u32, dtype::u64, dtype::f32, dtype::f64};
    for (dtype t : all) {
        const auto p = b.buffer(t);
        b.store(p, b.op(opcode::negate, t, b.load(p)));
    }
    const std::string s = emit(b.kernel(), opencl_dialect()).text();
    for (const char* name :
         {"char *", "short *", "int *", "long *", "uchar *", "ushort *", "uint *", "ulong *", "float *", "double *"})
        CHECK_MESSAGE(contains(s, std::string("__global ") + name), name);
}

TEST_CASE("packed scalars leave the parameter list and are read from loom_scalars, in both dialects") {
    kernel_builder b; // y = x * s0 + s1, s1 packed
    const auto x = b.buffer(dtype::f32), y = b.buffer(dtype::f32);
    const auto s0 = b.scalar_param(dtype::f32), s1 = b.scalar_param(dtype::f64);
    b.store(y, b.op(opcode::cast, dtype::f32,
                    b.op(opcode::add, dtype::f64,
                         b.op(opcode::cast, dtype::f64, b.op(opcode::mul, dtype::f32, b.load(x), b.scalar(s0))),
                         b.scalar(s1))));
    loom::ir::kernel k = b.kernel();
    k.params[s1].packed = true;
    const std::string cl = emit(k, opencl_dialect()).text();
    CHECK(contains(cl, "float p2, __global const ulong *restrict loom_scalars, ulong n)"));
    CHECK(contains(cl, "const double p3 = *(__global const double *)(loom_scalars + 0);"));
    const std::string cu = emit(k, loom::codegen::cuda_dialect()).text();
    CHECK(contains(cu, "const unsigned long long *__restrict__ loom_scalars, unsigned long long n)"));
    CHECK(contains(cu, "const double p3 = *(const double *)(loom_scalars + 0);"));
}

TEST_CASE("complex values are float2/double2, their operations calls to helpers the prologue defines once") {
    kernel_builder b;
    const auto out = b.buffer(dtype::c128), z = b.buffer(dtype::c128), w = b.buffer(dtype::c64);
    const auto s = b.scalar_param(dtype::c128), r = b.scalar_param(dtype::f32);
    const auto widened = b.op(opcode::cast, dtype::c128, b.load(w));
    const auto product = b.op(opcode::mul, dtype::c128, b.load(z), widened);
    const auto real = b.op(opcode::cast, dtype::c128, b.op(opcode::cast, dtype::f64, b.scalar(r)));
    b.store(out, b.op(opcode::add, dtype::c128, b.op(opcode::mul, dtype::c128, product, b.scalar(s)), real));
    loom::ir::kernel k = b.kernel();
    // Both scalars packed: the complex<double> takes two 8-byte slots and is read by component.
    k.params[s].packed = true;
    k.params[r].packed = true;
    const std::string src = loom::codegen::emit(k, loom::codegen::opencl_dialect()).text();
    CAPTURE(src);
    CHECK(src.find("#pragma OPENCL EXTENSION cl_khr_fp64 : enable") != std::string::npos);
    CHECK(src.find("static double2 loom_cmul(double2 a, double2 b)") != std::string::npos);
    CHECK(src.find("static double2 loom_cmul(") == src.rfind("static double2 loom_cmul(")); // defined once
    CHECK(src.find("loom_cadd(") != std::string::npos);
    CHECK(src.find("loom_cmulf") == std::string::npos);          // no complex<float> helper is called
    CHECK(src.find("(double2)((double)v") != std::string::npos); // widened and real values made complex
    CHECK(src.find("const double2 p3 = (double2)(((__global const double *)(loom_scalars + 0))[0], "
                   "((__global const double *)(loom_scalars + 0))[1]);") != std::string::npos);
    CHECK(src.find("const float p4 = *(__global const float *)(loom_scalars + 2);") != std::string::npos);
}
