// The typing rules of short vectors (docs/vector-types.md): C++'s rules component by component,
// scalars broadcast, one width per operation, no comparisons or classification, no mix with complex numbers; and
// the dtype helpers that tables indexed by dtype rely on.
#include <doctest/doctest.h>

#include <complex>
#include <cstdint>
#include <string>

#include "ir/promotion.hpp"
#include "loom/detail/shape_builder.hpp"
#include "loom/dtype.hpp"
#include "loom/error.hpp"
#include "loom_type.hpp"

namespace {

using loom::dtype;
using loom::opcode;

using loom::test::dt;

using loom::test::loom_type;

} // namespace

TEST_CASE("short vector dtypes name their component type and width, in OpenCL's spelling") {
    for (std::size_t t = 0; t < loom::dtype_count; ++t) {
        const dtype d = dtype(t);
        CAPTURE(loom::name_of(d));
        if (!loom::is_short_vector(d)) {
            CHECK(loom::width_of(d) == 1);
            CHECK(loom::component_dtype(d) == d);
            continue;
        }
        CHECK(loom::vector_dtype(loom::component_dtype(d), loom::width_of(d)) == d);
        CHECK(loom::size_of(d) == loom::width_of(d) * loom::size_of(loom::component_dtype(d)));
    }
    CHECK(dt<loom::char2>() == dtype::i8x2);
    CHECK(dt<loom::ulong4>() == dtype::u64x4);
    CHECK(dt<loom::double4>() == dtype::f64x4);
    CHECK(std::string(loom::name_of(dtype::u8x4)) == "uchar4");
    CHECK(std::string(loom::name_of(dtype::i64x2)) == "long2");
    CHECK(loom::ir::is_double_precision(dtype::f64x2));
    CHECK_FALSE(loom::ir::is_double_precision(dtype::f32x4));
}

TEST_CASE("short vector arithmetic follows C++'s conversions component by component, a scalar broadcast") {
    CHECK(loom_type<loom::float4, loom::float4>(opcode::add) == dtype::f32x4);
    CHECK(loom_type<loom::float4, float>(opcode::mul) == dtype::f32x4);
    CHECK(loom_type<std::int32_t, loom::float4>(opcode::sub) == dtype::f32x4);
    CHECK(loom_type<loom::float4, double>(opcode::mul) == dtype::f64x4); // as float * double
    CHECK(loom_type<loom::int4, loom::float4>(opcode::add) == dtype::f32x4);
    CHECK(loom_type<loom::uchar4, loom::uchar4>(opcode::add) == dtype::i32x4); // integer promotion
    CHECK(loom_type<loom::uint2, std::int64_t>(opcode::add) == dtype::i64x2);
    CHECK(loom_type<loom::char2>(opcode::negate) == dtype::i32x2);
    CHECK(loom_type<loom::uint4, std::int32_t>(opcode::bit_and) == dtype::u32x4);
    CHECK(loom_type<loom::short4, loom::int4>(opcode::shift_left) == dtype::i32x4);
    CHECK(loom_type<std::int32_t, loom::int2>(opcode::shift_right) == dtype::i32x2); // a broadcast left operand
    CHECK(loom_type<loom::float2>(opcode::sin) == dtype::f32x2);
    CHECK(loom_type<loom::int2>(opcode::sqrt) == dtype::f64x2); // <cmath>'s rule: an integer gives double
    CHECK(loom_type<loom::double4, float>(opcode::pow) == dtype::f64x4);
    CHECK(loom_type<loom::float4, float>(opcode::min) == dtype::f32x4);
    CHECK(loom_type<loom::int4, std::int32_t, std::int32_t>(opcode::clamp) == dtype::i32x4);
    CHECK(loom_type<loom::float4>(opcode::abs) == dtype::f32x4);
    CHECK(loom_type<loom::char4>(opcode::abs) == dtype::i32x4);
    CHECK(loom_type<loom::float4, loom::float4>(opcode::dot) == dtype::f32);
    CHECK(loom_type<loom::float2, loom::double2>(opcode::dot) == dtype::f64);
    CHECK(loom_type<loom::double4>(opcode::length) == dtype::f64);
    CHECK(loom_type<bool, loom::float4, float>(opcode::select) == dtype::f32x4);
}

TEST_CASE("components, vectors from components and conversions") {
    loom::detail::shape_builder b;
    const auto v = b.vector_slot(dtype::f32x4);
    CHECK(b.type_of(b.component(v, 3)) == dtype::f32);
    CHECK(b.component(v, 1) != b.component(v, 2));
    CHECK_THROWS_WITH_AS(b.component(v, 4), doctest::Contains("has 4 components"), loom::error);
    CHECK_THROWS_WITH_AS(b.component(b.vector_slot(dtype::f32), 0), doctest::Contains("not a short vector"),
                         loom::error);
    const loom::detail::node_ref parts[] = {b.vector_slot(dtype::i32), b.vector_slot(dtype::f64)};
    CHECK(b.type_of(b.make_vector(dtype::f32x2, parts, 2)) == dtype::f32x2);
    CHECK_THROWS_WITH_AS(b.make_vector(dtype::f32x4, parts, 2), doctest::Contains("made of 4 components"), loom::error);
    CHECK(b.type_of(b.cast(dtype::i32x4, v)) == dtype::i32x4);
    CHECK(b.type_of(b.cast(dtype::f64x2, b.vector_slot(dtype::i8))) == dtype::f64x2); // a broadcast
    CHECK_THROWS_WITH_AS(b.cast(dtype::f32, v), doctest::Contains("take a component with loom::get<I>"), loom::error);
    CHECK_THROWS_WITH_AS(b.cast(dtype::f32x2, v), doctest::Contains("vectors of their width"), loom::error);
    CHECK_THROWS_AS(b.cast(dtype::c64, v), loom::error);
    CHECK_THROWS_AS(b.cast(dtype::f32x2, b.vector_slot(dtype::c64)), loom::error);
}

TEST_CASE("short vectors of two widths, comparisons and complex mixes are rejected with loom::error") {
    CHECK_THROWS_WITH_AS((loom_type<loom::float2, loom::float4>(opcode::add)), doctest::Contains("different widths"),
                         loom::error);
    CHECK_THROWS_WITH_AS((loom_type<loom::float4, loom::float4>(opcode::less)),
                         doctest::Contains("not compared as a whole"), loom::error);
    CHECK_THROWS_AS((loom_type<loom::int2, loom::int2>(opcode::equal)), loom::error);
    CHECK_THROWS_AS((loom_type<loom::int2, std::int32_t>(opcode::logical_and)), loom::error);
    CHECK_THROWS_AS((loom_type<loom::int2>(opcode::logical_not)), loom::error);
    CHECK_THROWS_WITH_AS((loom_type<loom::float2, std::complex<float>>(opcode::mul)),
                         doctest::Contains("does not mix with a complex number"), loom::error);
    CHECK_THROWS_WITH_AS((loom_type<loom::float4, loom::int4>(opcode::mod)), doctest::Contains("operator %"),
                         loom::error);
    CHECK_THROWS_AS((loom_type<loom::float2, std::int32_t>(opcode::shift_left)), loom::error);
    CHECK_THROWS_AS((loom_type<loom::float4>(opcode::bit_not)), loom::error);
    CHECK_THROWS_AS((loom_type<loom::uint4>(opcode::abs)), loom::error);
    CHECK_THROWS_AS((loom_type<loom::float4>(opcode::real)), loom::error);
    CHECK_THROWS_AS((loom_type<loom::int4, float, float>(opcode::select)), loom::error); // a vector condition
    CHECK_THROWS_AS((loom_type<float, float>(opcode::dot)), loom::error);
    CHECK_THROWS_AS((loom_type<loom::float4, float>(opcode::dot)), loom::error);
    CHECK_THROWS_AS((loom_type<float>(opcode::length)), loom::error);
    CHECK_THROWS_AS((loom_type<loom::float2, loom::float4, float>(opcode::clamp)), loom::error);
    // Classification and bit counts would give one answer per component, as comparisons would.
    for (const opcode op : {opcode::isnan, opcode::isinf, opcode::isfinite, opcode::isnormal, opcode::signbit})
        CHECK_THROWS_WITH_AS((loom_type<loom::float4>(op)), doctest::Contains("classify a component"), loom::error);
    for (const opcode op : {opcode::popcount, opcode::clz, opcode::ctz})
        CHECK_THROWS_WITH_AS((loom_type<loom::uint2>(op)), doctest::Contains("count the bits of a component"),
                             loom::error);
}
