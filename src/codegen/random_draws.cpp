// The device functions behind loom::random_uniform, random_normal and random_bits
// (loom/random.hpp): Philox4x32-10 over the counter (element index, stream) and the key `seed`,
// then the distribution's arithmetic, in the common subset of OpenCL C and CUDA C++. They are
// source functions (ir/source_function.hpp), so a kernel defines each it calls once, and the
// emitters need nothing of their own.
#include <string>

#include "loom/detail/shape_builder.hpp"
#include "loom/error.hpp"
#include "loom/random.hpp"

namespace loom::detail {
namespace {

// The generator, as Random123's philox4x32_R(10, ...) computes it: ten rounds, the key bumped by
// the Weyl constants between them. Counter: the index's low and high words, then the stream's;
// key: the seed's low and high words. Leaves the four words in w0..w3.
const char* const philox =
    "#ifdef __OPENCL_VERSION__\n"
    "#define LOOM_MUL_HI(a, b) mul_hi(a, b)\n"
    "#else\n"
    "#define LOOM_MUL_HI(a, b) __umulhi(a, b)\n"
    "#endif\n"
    "unsigned int w0 = (unsigned int)i, w1 = (unsigned int)(i >> 32);\n"
    "unsigned int w2 = (unsigned int)stream, w3 = (unsigned int)(stream >> 32);\n"
    "unsigned int k0 = (unsigned int)seed, k1 = (unsigned int)(seed >> 32);\n"
    "for (int round = 0; round < 10; ++round) {\n"
    "    if (round > 0) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }\n"
    "    const unsigned int hi0 = LOOM_MUL_HI(0xD2511F53u, w0), lo0 = 0xD2511F53u * w0;\n"
    "    const unsigned int hi1 = LOOM_MUL_HI(0xCD9E8D57u, w2), lo1 = 0xCD9E8D57u * w2;\n"
    "    w0 = hi1 ^ w1 ^ k0; w1 = lo1; w2 = hi0 ^ w3 ^ k1; w3 = lo0;\n"
    "}\n";

// Exact powers of two: 2^-24, 2^-21, 2^-53, and 2 pi to each type's precision.
const char* const float_uniform = "(float)(w0 >> 8) * 5.9604644775390625e-8f";
const char* const double_uniform =
    "((double)(w0 >> 11) * 4.76837158203125e-7 + (double)w1 * 1.1102230246251565404236316680908203125e-16)";

std::string body(random_distribution d, dtype type) {
    std::string s = philox;
    const bool f32 = type == dtype::f32;
    switch (d) {
    case random_distribution::uniform:
        return s + "return " + (f32 ? float_uniform : double_uniform) + ";";
    case random_distribution::normal:
        if (f32)
            return s + "const float u1 = (float)((w0 >> 8) + 1u) * 5.9604644775390625e-8f;\n"
                       "const float u2 = (float)(w1 >> 8) * 5.9604644775390625e-8f;\n"
                       "#ifdef __OPENCL_VERSION__\n"
                       "return sqrt(-2.0f * log(u1)) * cos(6.28318548f * u2);\n"
                       "#else\n"
                       "return sqrtf(-2.0f * logf(u1)) * cosf(6.28318548f * u2);\n"
                       "#endif";
        return s + "const double u1 = " + double_uniform + " + 1.1102230246251565404236316680908203125e-16;\n"
                   "const double u2 = (double)(w2 >> 11) * 4.76837158203125e-7 + "
                   "(double)w3 * 1.1102230246251565404236316680908203125e-16;\n"
                   "return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);";
    case random_distribution::bits:
        if (type == dtype::u32) return s + "return w0;";
        return s + "return ((seed - seed) + w1) << 32 | w0;"; // seed - seed: a zero of the 64-bit type
    }
    throw error("loom: internal error: an unknown random distribution");
}

const char* name_of(random_distribution d) {
    switch (d) {
    case random_distribution::uniform: return "philox_uniform";
    case random_distribution::normal: return "philox_normal";
    case random_distribution::bits: return "philox_bits";
    }
    return "philox";
}

} // namespace

std::uint32_t random_function(random_distribution d, dtype type) {
    const dtype params[] = {dtype::u64, dtype::u64, dtype::u64};
    const std::string names[] = {"i", "seed", "stream"};
    return source_function_id(name_of(d), type, params, names, 3, body(d, type));
}

} // namespace loom::detail
