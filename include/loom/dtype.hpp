// Element types Loom knows, and the mapping from C++ types to them.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "loom/short_vector.hpp"

namespace loom {

// c64 and c128 are std::complex<float> and std::complex<double> (docs/complex.md): two
// components, laid out as T[2] on the host and as float2/double2 on the device.
// The short vectors (loom::char2 ... loom::double4, docs/vector-types.md) follow: two, then four
// components of i8 ... f64 in the order of those scalar types, so that a vector's component type
// and width are arithmetic on its enumerator (component_dtype, width_of).
enum class dtype : std::uint8_t {
    boolean,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    f32,
    f64,
    c64,
    c128,
    i8x2,
    i16x2,
    i32x2,
    i64x2,
    u8x2,
    u16x2,
    u32x2,
    u64x2,
    f32x2,
    f64x2,
    i8x4,
    i16x4,
    i32x4,
    i64x4,
    u8x4,
    u16x4,
    u32x4,
    u64x4,
    f32x4,
    f64x4
};

// The number of dtypes: the size of a table indexed by dtype.
inline constexpr std::size_t dtype_count = std::size_t(dtype::f64x4) + 1;

// Short vectors: whether t is one, its width (1 for every other type), its component type (t
// itself for every other type), and the vector of `width` components of type c (i8 ... f64).
constexpr std::size_t component_dtypes = std::size_t(dtype::f64) - std::size_t(dtype::i8) + 1;
constexpr bool is_short_vector(dtype t) { return t >= dtype::i8x2; }
constexpr unsigned width_of(dtype t) { return !is_short_vector(t) ? 1 : t >= dtype::i8x4 ? 4 : 2; }
constexpr dtype component_dtype(dtype t) {
    return !is_short_vector(t)
               ? t
               : dtype(std::size_t(dtype::i8) + (std::size_t(t) - std::size_t(dtype::i8x2)) % component_dtypes);
}
constexpr dtype vector_dtype(dtype component, unsigned width) {
    return width == 1 ? component
                      : dtype(std::size_t(width == 2 ? dtype::i8x2 : dtype::i8x4) + std::size_t(component) -
                              std::size_t(dtype::i8));
}

template <class T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr dtype value = dtype::boolean; };
template <> struct dtype_of<std::int8_t> { static constexpr dtype value = dtype::i8; };
template <> struct dtype_of<std::int16_t> { static constexpr dtype value = dtype::i16; };
template <> struct dtype_of<std::int32_t> { static constexpr dtype value = dtype::i32; };
template <> struct dtype_of<long> { static constexpr dtype value = dtype::i64; };
template <> struct dtype_of<long long> { static constexpr dtype value = dtype::i64; };
template <> struct dtype_of<std::uint8_t> { static constexpr dtype value = dtype::u8; };
template <> struct dtype_of<std::uint16_t> { static constexpr dtype value = dtype::u16; };
template <> struct dtype_of<std::uint32_t> { static constexpr dtype value = dtype::u32; };
template <> struct dtype_of<unsigned long> { static constexpr dtype value = dtype::u64; };
template <> struct dtype_of<unsigned long long> { static constexpr dtype value = dtype::u64; };
template <> struct dtype_of<float> { static constexpr dtype value = dtype::f32; };
template <> struct dtype_of<double> { static constexpr dtype value = dtype::f64; };
template <> struct dtype_of<std::complex<float>> { static constexpr dtype value = dtype::c64; };
template <> struct dtype_of<std::complex<double>> { static constexpr dtype value = dtype::c128; };
// plain char is a distinct type in C++; it is signed on every platform Loom targets.
template <> struct dtype_of<char> { static constexpr dtype value = dtype::i8; };
template <class T, unsigned N> struct dtype_of<short_vector<T, N>> {
    static_assert(!std::is_same_v<T, bool> && std::is_arithmetic_v<T> && !std::is_same_v<T, long double>,
                  "loom::short_vector: the components are integers of 8 to 64 bits, float or double");
    static constexpr dtype value = vector_dtype(dtype_of<T>::value, N);
};

template <class T> inline constexpr dtype dtype_v = dtype_of<std::remove_cv_t<std::remove_reference_t<T>>>::value;

template <class T> struct is_complex : std::false_type {};
template <> struct is_complex<std::complex<float>> : std::true_type {};
template <> struct is_complex<std::complex<double>> : std::true_type {};
template <class T> inline constexpr bool is_complex_v = is_complex<std::remove_cv_t<T>>::value;

template <class T> struct is_short_vector_type : std::false_type {};
template <class T, unsigned N> struct is_short_vector_type<short_vector<T, N>> : std::true_type {};
template <class T> inline constexpr bool is_short_vector_v = is_short_vector_type<std::remove_cv_t<T>>::value;

// A number a host scalar in an expression may be: an arithmetic type, a complex one or a short vector.
template <class T> inline constexpr bool is_host_number_v =
    std::is_arithmetic_v<T> || is_complex_v<T> || is_short_vector_v<T>;

// The element types a loom::vector may hold (bool results are stored in an integer vector).
template <class T> inline constexpr bool is_element_type_v = (std::is_arithmetic_v<T> && !std::is_same_v<T, bool> &&
                                                              !std::is_same_v<T, long double>) ||
                                                             is_complex_v<T> || is_short_vector_v<T>;

// Size of one element of a type, in bytes.
constexpr unsigned size_of(dtype t) {
    if (is_short_vector(t)) return width_of(t) * size_of(component_dtype(t));
    switch (t) {
    case dtype::boolean:
    case dtype::i8:
    case dtype::u8: return 1;
    case dtype::i16:
    case dtype::u16: return 2;
    case dtype::i32:
    case dtype::u32:
    case dtype::f32: return 4;
    case dtype::c128: return 16;
    default: return 8; // 64-bit types and complex<float>
    }
}

const char* name_of(dtype t); // "float", "int64", ... for messages and logs

} // namespace loom
