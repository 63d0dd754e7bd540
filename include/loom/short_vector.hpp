// Short vector element types: loom::float4, loom::int2, loom::uchar4, ... (docs/vector-types.md).
// Each is a plain struct of two or four components named x, y (z, w) of the size of OpenCL C's
// and CUDA's type of the same name, aligned to its size up to 16 bytes: OpenCL's alignment for
// all but the three 32-byte types, which take CUDA's (double4, longlong4: 16). A host array has
// the device's stride either way, so a loom::vector<loom::float4> copies to and from the device
// as it is in both dialects; and no host function passes a 32-byte-aligned value, which GCC
// warns changed ABI (-Wpsabi).
#pragma once

#include <cstddef>
#include <cstdint>

namespace loom {

template <class T, unsigned N> struct short_vector;

template <class T> struct alignas(2 * sizeof(T)) short_vector<T, 2> {
    using component_type = T;
    static constexpr unsigned width = 2;
    T x{}, y{};

    constexpr short_vector() = default;
    constexpr explicit short_vector(T v) : x(v), y(v) {} // every component v, as OpenCL's (float2)(v)
    constexpr short_vector(T x_, T y_) : x(x_), y(y_) {}
    constexpr T& operator[](std::size_t i) { return i == 0 ? x : y; }
    constexpr const T& operator[](std::size_t i) const { return i == 0 ? x : y; }
    friend constexpr bool operator==(const short_vector& a, const short_vector& b) { return a.x == b.x && a.y == b.y; }
    friend constexpr bool operator!=(const short_vector& a, const short_vector& b) { return !(a == b); }
};

template <class T> struct alignas(4 * sizeof(T) < 16 ? 4 * sizeof(T) : 16) short_vector<T, 4> {
    using component_type = T;
    static constexpr unsigned width = 4;
    T x{}, y{}, z{}, w{};

    constexpr short_vector() = default;
    constexpr explicit short_vector(T v) : x(v), y(v), z(v), w(v) {}
    constexpr short_vector(T x_, T y_, T z_, T w_) : x(x_), y(y_), z(z_), w(w_) {}
    constexpr T& operator[](std::size_t i) { return i == 0 ? x : i == 1 ? y : i == 2 ? z : w; }
    constexpr const T& operator[](std::size_t i) const { return i == 0 ? x : i == 1 ? y : i == 2 ? z : w; }
    friend constexpr bool operator==(const short_vector& a, const short_vector& b) {
        return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w;
    }
    friend constexpr bool operator!=(const short_vector& a, const short_vector& b) { return !(a == b); }
};

// Component I of a host value: loom::get<0>(v) is v.x (loom::get<I>(e) of an expression is in
// loom/expr/functions.hpp).
template <std::size_t I, class T, unsigned N> constexpr T& get(short_vector<T, N>& v) {
    static_assert(I < N, "loom::get<I>: I is past the vector's last component");
    return v[I];
}
template <std::size_t I, class T, unsigned N> constexpr const T& get(const short_vector<T, N>& v) {
    static_assert(I < N, "loom::get<I>: I is past the vector's last component");
    return v[I];
}

// OpenCL C's names. There is no width 3: OpenCL's float3 takes 16 bytes and CUDA's 12.
using char2 = short_vector<std::int8_t, 2>;
using uchar2 = short_vector<std::uint8_t, 2>;
using short2 = short_vector<std::int16_t, 2>;
using ushort2 = short_vector<std::uint16_t, 2>;
using int2 = short_vector<std::int32_t, 2>;
using uint2 = short_vector<std::uint32_t, 2>;
using long2 = short_vector<std::int64_t, 2>;
using ulong2 = short_vector<std::uint64_t, 2>;
using float2 = short_vector<float, 2>;
using double2 = short_vector<double, 2>;
using char4 = short_vector<std::int8_t, 4>;
using uchar4 = short_vector<std::uint8_t, 4>;
using short4 = short_vector<std::int16_t, 4>;
using ushort4 = short_vector<std::uint16_t, 4>;
using int4 = short_vector<std::int32_t, 4>;
using uint4 = short_vector<std::uint32_t, 4>;
using long4 = short_vector<std::int64_t, 4>;
using ulong4 = short_vector<std::uint64_t, 4>;
using float4 = short_vector<float, 4>;
using double4 = short_vector<double, 4>;

// The dialects' layouts (one assertion each: a conjunction of equal constants reads as a
// redundant expression to clang-tidy).
static_assert(sizeof(float4) == 16);
static_assert(alignof(float4) == 16);
static_assert(sizeof(double2) == 16);
static_assert(alignof(double2) == 16);
static_assert(sizeof(double4) == 32);
static_assert(alignof(double4) == 16);
static_assert(sizeof(uchar4) == 4);
static_assert(alignof(uchar4) == 4);
static_assert(sizeof(char2) == 2);
static_assert(sizeof(short4) == 8);
static_assert(sizeof(long2) == 16);
static_assert(sizeof(ulong4) == 32);

} // namespace loom
