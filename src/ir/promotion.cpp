// Conversion rules; see promotion.hpp.
#include "ir/promotion.hpp"

namespace loom::ir {
namespace {

int rank(dtype t) {
    switch (t) {
    case dtype::i8:
    case dtype::u8: return 1;
    case dtype::i16:
    case dtype::u16: return 2;
    case dtype::i32:
    case dtype::u32: return 3;
    case dtype::i64:
    case dtype::u64: return 4;
    default: return 0;
    }
}

} // namespace

bool is_float(dtype t) { return t == dtype::f32 || t == dtype::f64; }
bool is_signed_integer(dtype t) { return t >= dtype::i8 && t <= dtype::i64; }
bool is_unsigned_integer(dtype t) { return t >= dtype::u8 && t <= dtype::u64; }

dtype integer_promotion(dtype t) {
    if (is_short_vector(t)) return vector_dtype(integer_promotion(component_dtype(t)), width_of(t));
    switch (t) {
    case dtype::boolean:
    case dtype::i8:
    case dtype::i16:
    case dtype::u8:
    case dtype::u16: return dtype::i32;
    default: return t;
    }
}

bool is_complex(dtype t) { return t == dtype::c64 || t == dtype::c128; }
bool is_double_precision(dtype t) {
    return t == dtype::f64 || t == dtype::c128 || t == dtype::f64x2 || t == dtype::f64x4;
}
dtype complex_of(dtype real) { return real == dtype::f32 ? dtype::c64 : dtype::c128; }
dtype component_of(dtype t) { return t == dtype::c64 ? dtype::f32 : t == dtype::c128 ? dtype::f64 : t; }

bool is_float_vector(dtype t) { return is_short_vector(t) && is_float(component_dtype(t)); }
bool is_integer_vector(dtype t) { return is_short_vector(t) && !is_float(component_dtype(t)); }

dtype usual_arithmetic(dtype a, dtype b) {
    if (is_short_vector(a) || is_short_vector(b))
        return vector_dtype(usual_arithmetic(component_dtype(a), component_dtype(b)),
                            is_short_vector(a) ? width_of(a) : width_of(b));
    if (is_complex(a) || is_complex(b)) return complex_of(usual_arithmetic(component_of(a), component_of(b)));
    if (a == dtype::f64 || b == dtype::f64) return dtype::f64;
    if (a == dtype::f32 || b == dtype::f32) return dtype::f32;
    a = integer_promotion(a);
    b = integer_promotion(b);
    if (a == b) return a;
    const bool sa = is_signed_integer(a), sb = is_signed_integer(b);
    if (sa == sb) return rank(a) >= rank(b) ? a : b;
    const dtype s = sa ? a : b, u = sa ? b : a;
    if (rank(u) >= rank(s)) return u;
    // The signed type is wider, so it represents every value of the unsigned one
    // (int64 vs uint32 is the only case among Loom's types).
    return s;
}

dtype math_result(dtype a) {
    if (is_short_vector(a)) return vector_dtype(math_result(component_dtype(a)), width_of(a));
    return a == dtype::f32 ? dtype::f32 : dtype::f64;
}
dtype math_result(dtype a, dtype b) {
    if (is_short_vector(a) || is_short_vector(b))
        return vector_dtype(math_result(component_dtype(a), component_dtype(b)),
                            is_short_vector(a) ? width_of(a) : width_of(b));
    return a == dtype::f32 && b == dtype::f32 ? dtype::f32 : dtype::f64;
}

} // namespace loom::ir
