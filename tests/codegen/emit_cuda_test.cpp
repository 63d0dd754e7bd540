// The emitter in the CUDA dialect: the same IR as OpenCL, with CUDA's spellings: f-suffixed
// float math, extern "C" __global__ entry, __restrict__, no OpenCL pragmas.
#include "codegen_support.hpp"

using namespace loom_codegen_test;
using loom::codegen::cuda_dialect;
using loom::codegen::emit;
using loom::codegen::opencl_dialect;

namespace {

// out = fn(x) for a unary math opcode on type t.
std::string unary(opcode fn, dtype t) {
    kernel_builder b;
    const auto x = b.buffer(t), out = b.buffer(t);
    b.store(out, b.op(fn, t, b.load(x)));
    return emit(b.kernel(), cuda_dialect()).text();
}

std::string binary(opcode fn, dtype t) {
    kernel_builder b;
    const auto x = b.buffer(t), out = b.buffer(t);
    const auto lx = b.load(x);
    b.store(out, b.op(fn, t, lx, lx));
    return emit(b.kernel(), cuda_dialect()).text();
}

} // namespace

TEST_CASE("CUDA float math uses the f-suffixed functions and double math the plain ones") {
    CHECK(contains(unary(opcode::sin, dtype::f32), "= sinf(v0);"));
    CHECK(contains(unary(opcode::sin, dtype::f64), "= sin(v0);"));
    CHECK(contains(unary(opcode::rsqrt, dtype::f32), "= rsqrtf(v0);"));
    CHECK(contains(unary(opcode::rsqrt, dtype::f64), "= rsqrt(v0);"));
    CHECK(contains(unary(opcode::lgamma, dtype::f32), "= lgammaf(v0);"));
    CHECK(contains(unary(opcode::abs, dtype::f32), "= fabsf(v0);"));
    CHECK(contains(unary(opcode::abs, dtype::f64), "= fabs(v0);"));
    CHECK(contains(unary(opcode::fabs, dtype::f32), "= fabsf(v0);"));
    CHECK(contains(binary(opcode::pow, dtype::f32), "= powf(v0, v0);"));
    CHECK(contains(binary(opcode::pow, dtype::f64), "= pow(v0, v0);"));
    CHECK(contains(binary(opcode::fmin, dtype::f32), "= fminf(v0, v0);"));
    CHECK(contains(binary(opcode::atan2, dtype::f64), "= atan2(v0, v0);"));
}

TEST_CASE("every float_math function has an f-suffixed CUDA spelling for float") {
    const opcode unary_ops[] = {opcode::sin,   opcode::cos,   opcode::tan,  opcode::asin,  opcode::acos,
                                opcode::atan,  opcode::sinh,  opcode::cosh, opcode::tanh,  opcode::exp,
                                opcode::exp2,  opcode::log,   opcode::log2, opcode::log10, opcode::log1p,
                                opcode::expm1, opcode::sqrt,  opcode::cbrt, opcode::floor, opcode::ceil,
                                opcode::round, opcode::trunc, opcode::erf,  opcode::erfc,  opcode::tgamma};
    for (opcode op : unary_ops) {
        const std::string d = unary(op, dtype::f64), f = unary(op, dtype::f32);
        // The double spelling is the OpenCL one; the float spelling adds an f.
        const std::size_t at = d.find("v1 = ") + 5;
        const std::string name = d.substr(at, d.find('(', at) - at);
        CHECK_MESSAGE(contains(f, " = " + name + "f(v0);"), name);
    }
}

TEST_CASE("a CUDA kernel is extern \"C\" __global__, uses __restrict__ and no OpenCL pragmas") {
    const loom::codegen::kernel_source k = emit(saxpy_sin(dtype::f64), cuda_dialect());
    const std::string& s = k.body;
    CHECK(contains(s, "extern \"C\" __global__ void " + k.name +
                          "(const double *__restrict__ p0, double *__restrict__ p1, double p2, unsigned long long n)"));
    CHECK_FALSE(contains(s, "#pragma"));
    CHECK_FALSE(contains(s, "__global "));
    CHECK(contains(s, "blockIdx.x"));
}

TEST_CASE("CUDA and OpenCL kernels of one IR differ only in spelling: same values, same stores") {
    const auto k = saxpy_sin();
    const std::string cl = emit(k, opencl_dialect()).text(), cu = emit(k, cuda_dialect()).text();
    CHECK(occurrences(cl, " v") == occurrences(cu, " v"));
    CHECK(contains(cu, "p1[i] = v4;"));
    CHECK(contains(cl, "p1[i] = v4;"));
    CHECK(emit(k, cuda_dialect()).text() == cu);
}

TEST_CASE("CUDA spells the integer types with C++ names") {
    kernel_builder b;
    const auto a = b.buffer(dtype::i8), c = b.buffer(dtype::u64), d = b.buffer(dtype::i64);
    b.store(d, b.op(opcode::add, dtype::u64, b.op(opcode::cast, dtype::u64, b.load(a)), b.load(c)));
    const std::string s = emit(b.kernel(), cuda_dialect()).text();
    CHECK(contains(s, "const signed char *__restrict__ p0"));
    CHECK(contains(s, "const unsigned long long *__restrict__ p1"));
    CHECK(contains(s, "long long *__restrict__ p2"));
}

namespace {

// out = op(x) for a classification or bit-count opcode: the node's own type is bool or int.
std::string query(opcode fn, dtype operand, const loom::codegen::dialect& d) {
    kernel_builder b;
    const dtype result = fn == opcode::popcount || fn == opcode::clz || fn == opcode::ctz ? dtype::i32 : dtype::boolean;
    const auto x = b.buffer(operand), out = b.buffer(dtype::i32);
    b.store(out, b.op(opcode::cast, dtype::i32, b.op(fn, result, b.load(x))));
    return emit(b.kernel(), d).text();
}

} // namespace

TEST_CASE("CUDA's 32- and 64-bit bit counts are widened from 8 and 16 bits, clz less the added leading zeros") {
    const auto& cu = cuda_dialect();
    CHECK(contains(query(opcode::popcount, dtype::u8, cu), "= __popc((unsigned int)(unsigned char)v0);"));
    CHECK(contains(query(opcode::popcount, dtype::i16, cu), "= __popc((unsigned int)(unsigned short)v0);"));
    CHECK(contains(query(opcode::popcount, dtype::i64, cu), "= __popcll((unsigned long long)v0);"));
    CHECK(contains(query(opcode::clz, dtype::u8, cu), "= (__clz((int)(unsigned int)(unsigned char)v0) - 24);"));
    CHECK(contains(query(opcode::clz, dtype::i16, cu), "= (__clz((int)(unsigned int)(unsigned short)v0) - 16);"));
    CHECK(contains(query(opcode::clz, dtype::i32, cu), "= __clz((int)(unsigned int)(unsigned int)v0);"));
    CHECK(contains(query(opcode::clz, dtype::u64, cu), "= __clzll((long long)v0);"));
    // ctz is the popcount of the ones below the lowest set bit, in the operand's own unsigned type.
    CHECK(contains(query(opcode::ctz, dtype::i8, cu), "__popc((unsigned int)(unsigned char)(unsigned char)"));
    CHECK(contains(query(opcode::ctz, dtype::u64, cu), "__popcll((unsigned long long)(unsigned long long)"));
    for (dtype t : {dtype::i8, dtype::u16, dtype::i32, dtype::u64})
        for (opcode op : {opcode::popcount, opcode::clz, opcode::ctz}) compiles_with_nvrtc(query(op, t, cu));
}

TEST_CASE("OpenCL counts bits with its per-type built-ins, and writes ctz from popcount (OpenCL C 1.2 has none)") {
    const auto& cl = opencl_dialect();
    CHECK(contains(query(opcode::popcount, dtype::i8, cl), "= (int)popcount(v0);"));
    CHECK(contains(query(opcode::clz, dtype::u16, cl), "= (int)clz(v0);"));
    const std::string ctz = query(opcode::ctz, dtype::i16, cl);
    CHECK(contains(ctz, "= (int)popcount((ushort)(((ushort)v0 & (ushort)(0 - (ushort)v0)) - 1));"));
    CHECK_FALSE(contains(ctz, "ctz("));
}

TEST_CASE("classification calls the dialect's built-ins on floats; CUDA writes isnormal; integers need none") {
    const auto &cu = cuda_dialect(), &cl = opencl_dialect();
    CHECK(contains(query(opcode::isnan, dtype::f32, cu), "bool v1 = isnan(v0);"));
    CHECK(contains(query(opcode::signbit, dtype::f64, cl), "bool v1 = signbit(v0);"));
    CHECK(contains(query(opcode::isnormal, dtype::f64, cl), "bool v1 = isnormal(v0);"));
    CHECK(contains(query(opcode::isnormal, dtype::f32, cu),
                   "bool v1 = (fabsf(v0) >= 0x1p-126f && fabsf(v0) <= 0x1.fffffep+127f);"));
    // An integer is classified as the double it converts to: no fp64, no call.
    for (const auto* d : {&cu, &cl}) {
        CHECK(contains(query(opcode::isnan, dtype::i64, *d), "bool v1 = 0;"));
        CHECK(contains(query(opcode::isinf, dtype::u8, *d), "bool v1 = 0;"));
        CHECK(contains(query(opcode::isfinite, dtype::i32, *d), "bool v1 = 1;"));
        CHECK(contains(query(opcode::isnormal, dtype::u16, *d), "bool v1 = (v0 != 0);"));
        CHECK(contains(query(opcode::signbit, dtype::i8, *d), "bool v1 = (v0 < 0);"));
        CHECK(contains(query(opcode::signbit, dtype::u32, *d), "bool v1 = 0;"));
        CHECK_FALSE(contains(query(opcode::isnormal, dtype::i64, *d), "double"));
    }
    for (opcode op : {opcode::isnan, opcode::isinf, opcode::isfinite, opcode::isnormal, opcode::signbit})
        for (dtype t : {dtype::f32, dtype::f64, dtype::i16}) compiles_with_nvrtc(query(op, t, cu));
}
