// Operands of different types: C++'s integer promotion and usual arithmetic conversions,
// observed through values (results are read into a vector of the C++ result type).
#include "support.hpp"

#pragma GCC diagnostic ignored "-Wsign-compare" // the host reference compares mixed signedness on purpose

using namespace loom_test;

namespace {

constexpr std::size_t n = 1024;

} // namespace

TEST_CASE("a + b with a signed left operand has C++'s result type and value for every right operand type") {
    over_pairs(n, signed_integers{}, all_types{}, [](batch& bt, const auto& in) {
        record(
            bt, "a + b", [](const auto& a, const auto& b) { return a + b; }, in);
    });
}

TEST_CASE("a < b converts mixed signedness as C++ does (-1 < 1u is false) for every pair of integer types") {
    over_pairs(n, integers{}, integers{}, [](batch& bt, const auto& in) {
        record(
            bt, "a < b", [](const auto& a, const auto& b) { return a < b; }, in);
    });
}

TEST_CASE("int8 + int8 computes in int: sums beyond 127 survive in an int32 vector") {
    const std::vector<std::int8_t> ha = {100, 127, -128, -100, 5}, hb = {100, 127, -128, -100, -7};
    loom::vector<std::int8_t> a(ctx(), ha), b(ctx(), hb);
    loom::vector<std::int32_t> sum(ctx(), ha.size()), product(ctx(), ha.size());
    loom::vector<std::int8_t> narrowed(ctx(), ha.size());
    sum = a + b;
    product = a * b;
    narrowed = a + b; // computed in int, then converted to int8 (modulo 256)
    CHECK(sum.to_host() == std::vector<std::int32_t>{200, 254, -256, -200, -2});
    CHECK(product.to_host() == std::vector<std::int32_t>{10000, 16129, 16384, 10000, -35});
    CHECK(narrowed.to_host() == std::vector<std::int8_t>{-56, -2, 0, 56, -2});
}

TEST_CASE("uint32 mixed with int64 computes in int64, uint32 with int32 in uint32, int32 with uint64 in uint64") {
    const std::vector<std::uint32_t> hu = {4000000000u, 0u, 1u};
    const std::vector<std::int64_t> h64 = {-5, -1, -2};
    const std::vector<std::int32_t> h32 = {-5, -1, -2};
    const std::vector<std::uint64_t> hu64 = {1, 0, 10};
    loom::vector<std::uint32_t> u(ctx(), hu);
    loom::vector<std::int64_t> s64(ctx(), h64);
    loom::vector<std::int32_t> s32(ctx(), h32);
    loom::vector<std::uint64_t> u64(ctx(), hu64);
    loom::vector<std::int64_t> wide(ctx(), 3), wrapped(ctx(), 3), less(ctx(), 3);
    loom::vector<std::uint64_t> wide_u(ctx(), 3);
    wide = u + s64;     // int64: 3999999995, -1, -1
    wrapped = u + s32;  // uint32: 3999999995, 4294967295, 4294967295, widened to int64 by the assignment
    less = s32 < u;     // -1 converts to uint32 4294967295
    wide_u = s32 + u64; // uint64: wraps
    CHECK(wide.to_host() == std::vector<std::int64_t>{3999999995LL, -1, -1});
    CHECK(wrapped.to_host() == std::vector<std::int64_t>{3999999995LL, 4294967295LL, 4294967295LL});
    CHECK(less.to_host() == std::vector<std::int64_t>{0, 0, 0});
    CHECK(wide_u.to_host() == std::vector<std::uint64_t>{18446744073709551612ULL, 18446744073709551615ULL, 8});
}

TEST_CASE("unsigned 8- and 16-bit operands promote to int: a - b may be negative") {
    const std::vector<std::uint8_t> ha = {1, 0, 200};
    const std::vector<std::uint16_t> hb = {2, 65535, 100};
    loom::vector<std::uint8_t> a(ctx(), ha);
    loom::vector<std::uint16_t> b(ctx(), hb);
    loom::vector<std::int32_t> diff(ctx(), 3), neg(ctx(), 3);
    diff = a - b;
    neg = -a;
    CHECK(diff.to_host() == std::vector<std::int32_t>{-1, -65535, 100});
    CHECK(neg.to_host() == std::vector<std::int32_t>{-1, 0, -200});
}

TEST_CASE("a double host scalar makes a float expression compute in double") {
    const auto hx = random_values<float>(n, -1000.0f, 1000.0f, 980);
    loom::vector<float> x(ctx(), hx), in_double(ctx(), n), in_float(ctx(), n);
    loom::vector<double> exact(ctx(), n);
    in_double = x * 0.1; // (float)((double)x * 0.1)
    in_float = x * 0.1f; // float arithmetic
    exact = x * 0.1;     // kept in double
    std::vector<float> wd(n), wf(n);
    std::vector<double> we(n);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < n; ++i) {
        wd[i] = float(double(hx[i]) * 0.1);
        wf[i] = hx[i] * 0.1f;
        we[i] = double(hx[i]) * 0.1;
        differ += wd[i] != wf[i];
    }
    REQUIRE(differ > 0); // the two roundings must be told apart for the check to mean something
    check_elements("float = float * 0.1", in_double.to_host(), wd);
    check_elements("float = float * 0.1f", in_float.to_host(), wf);
    check_elements("double = float * 0.1", exact.to_host(), we);
}
