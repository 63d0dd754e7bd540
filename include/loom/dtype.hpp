// Element types Loom knows, and the mapping from C++ types to them.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace loom {

// c64 and c128 are std::complex<float> and std::complex<double> (docs/complex.md): two
// components, laid out as T[2] on the host and as float2/double2 on the device.
enum class dtype : std::uint8_t { boolean, i8, i16, i32, i64, u8, u16, u32, u64, f32, f64, c64, c128 };

// The number of dtypes: the size of a table indexed by dtype.
inline constexpr std::size_t dtype_count = std::size_t(dtype::c128) + 1;

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

template <class T> inline constexpr dtype dtype_v = dtype_of<std::remove_cv_t<std::remove_reference_t<T>>>::value;

template <class T> struct is_complex : std::false_type {};
template <> struct is_complex<std::complex<float>> : std::true_type {};
template <> struct is_complex<std::complex<double>> : std::true_type {};
template <class T> inline constexpr bool is_complex_v = is_complex<std::remove_cv_t<T>>::value;

// A number a host scalar in an expression may be: an arithmetic type or a complex one.
template <class T> inline constexpr bool is_host_number_v = std::is_arithmetic_v<T> || is_complex_v<T>;

// The element types a loom::vector may hold (bool results are stored in an integer vector).
template <class T> inline constexpr bool is_element_type_v =
    (std::is_arithmetic_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, long double>) || is_complex_v<T>;

// Size of one element of a type, in bytes.
constexpr unsigned size_of(dtype t) {
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
