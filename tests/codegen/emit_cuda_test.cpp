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
