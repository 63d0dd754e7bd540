// where(c, a, b) typed like ?:, cast<T>(e) as static_cast<T>, and index() as the element
// number, against the host.
#include "support.hpp"

#pragma GCC diagnostic ignored "-Wsign-compare"

using namespace loom_test;

namespace {

constexpr std::size_t n = 4096;

template <class T> operands<T, T, T> select_operands(T) {
    return operands<T, T, T>(full_range<T>(n, 1200), full_range<T>(n, 1201), full_range<T>(n, 1202));
}

} // namespace

TEST_CASE("where(a < b, b, c) matches ?: for every element type") {
    over_types(
        all_types{}, [](auto t) { return select_operands(t); },
        [](batch& bt, const auto& in) {
            record(
                bt, "where(a < b, b, c)",
                [](const auto& a, const auto& b, const auto& c) {
                    if constexpr (loom::expr::is_vector<std::decay_t<decltype(a)>>::value)
                        return loom::where(a < b, b, c);
                    else
                        return a < b ? b : c;
                },
                in);
        });
}

TEST_CASE("where converts its branches like ?: (uint32 vs int32 gives uint32) and takes a numeric condition") {
    const std::vector<std::int32_t> hc = {0, 1, -3, 0};
    const std::vector<std::uint32_t> hu = {7, 8, 9, 10};
    const std::vector<std::int32_t> hs = {-1, -2, -3, -4};
    const std::vector<double> hd = {0.5, 1.5, 2.5, 3.5};
    loom::vector<std::int32_t> c(ctx(), hc), s(ctx(), hs);
    loom::vector<std::uint32_t> u(ctx(), hu);
    loom::vector<double> d(ctx(), hd);
    loom::vector<std::int64_t> r1(ctx(), 4);
    loom::vector<double> r2(ctx(), 4), r3(ctx(), 4);
    r1 = loom::where(c, u, s);      // uint32: -1 becomes 4294967295
    r2 = loom::where(c != 0, s, d); // double
    r3 = loom::where(c, 1.25f, d);  // scalar branch
    CHECK(r1.to_host() == std::vector<std::int64_t>{4294967295LL, 8, 9, 4294967292LL});
    CHECK(r2.to_host() == std::vector<double>{0.5, -2.0, -3.0, 3.5});
    CHECK(r3.to_host() == std::vector<double>{0.5, 1.25, 1.25, 3.5});
}

TEST_CASE("cast<int32_t> of float truncates toward zero; cast<float> of integers rounds to nearest") {
    std::vector<float> hf = random_values<float>(n, -1e6f, 1e6f, 1210);
    hf[0] = -2.75f, hf[1] = 2.75f, hf[2] = -0.5f, hf[3] = 0.5f;
    std::vector<std::int64_t> hi = full_range<std::int64_t>(n, 1211);
    std::vector<std::uint64_t> hu = full_range<std::uint64_t>(n, 1212);
    std::vector<std::int32_t> h32 = full_range<std::int32_t>(n, 1213);
    std::vector<double> hd = random_values<double>(n, 0.0, 4e9, 1214);
    loom::vector<float> f(ctx(), hf);
    loom::vector<std::int64_t> i64(ctx(), hi);
    loom::vector<std::uint64_t> u64(ctx(), hu);
    loom::vector<std::int32_t> i32(ctx(), h32);
    loom::vector<double> d(ctx(), hd);
    loom::vector<std::int32_t> trunc(ctx(), n);
    loom::vector<float> from_i64(ctx(), n), from_u64(ctx(), n), from_i32(ctx(), n);
    loom::vector<double> exact(ctx(), n);
    loom::vector<std::uint32_t> to_u32(ctx(), n);
    loom::vector<std::uint8_t> to_u8(ctx(), n);
    loom::vector<std::int32_t> as_bool(ctx(), n);
    trunc = loom::cast<std::int32_t>(f);
    from_i64 = loom::cast<float>(i64);
    from_u64 = loom::cast<float>(u64);
    from_i32 = loom::cast<float>(i32);
    exact = loom::cast<double>(i32) * 3; // in double: no overflow
    to_u32 = loom::cast<std::uint32_t>(d);
    to_u8 = loom::cast<std::uint8_t>(i32); // modulo 256
    as_bool = loom::cast<bool>(f - f + i32 % 3);
    std::vector<std::int32_t> w_trunc(n), w_bool(n);
    std::vector<float> w_i64(n), w_u64(n), w_i32(n);
    std::vector<double> w_exact(n);
    std::vector<std::uint32_t> w_u32(n);
    std::vector<std::uint8_t> w_u8(n);
    for (std::size_t i = 0; i < n; ++i) {
        w_trunc[i] = static_cast<std::int32_t>(hf[i]);
        w_i64[i] = static_cast<float>(hi[i]);
        w_u64[i] = static_cast<float>(hu[i]);
        w_i32[i] = static_cast<float>(h32[i]);
        w_exact[i] = static_cast<double>(h32[i]) * 3;
        w_u32[i] = static_cast<std::uint32_t>(hd[i]);
        w_u8[i] = static_cast<std::uint8_t>(h32[i]);
        w_bool[i] = static_cast<bool>(hf[i] - hf[i] + h32[i] % 3);
    }
    check_elements("cast<int32>(float)", trunc.to_host(), w_trunc);
    check_elements("cast<float>(int64)", from_i64.to_host(), w_i64);
    check_elements("cast<float>(uint64)", from_u64.to_host(), w_u64);
    check_elements("cast<float>(int32)", from_i32.to_host(), w_i32);
    check_elements("cast<double>(int32) * 3", exact.to_host(), w_exact);
    check_elements("cast<uint32>(double)", to_u32.to_host(), w_u32);
    check_elements("cast<uint8>(int32)", to_u8.to_host(), w_u8);
    check_elements("cast<bool>(float)", as_bool.to_host(), w_bool);
}

TEST_CASE("assigning a vector of another type converts each element as static_cast does") {
    const std::vector<double> hd = {-2.75, 2.75, 1e10, -0.0, 255.9};
    loom::vector<double> d(ctx(), hd);
    loom::vector<float> f(ctx(), hd.size());
    loom::vector<std::int64_t> i(ctx(), hd.size());
    f = d;
    i = d;
    std::vector<float> wf;
    for (double v : hd) wf.push_back(static_cast<float>(v));
    CHECK(f.to_host() == wf);
    CHECK(i.to_host() == std::vector<std::int64_t>{-2, 2, 10000000000LL, 0, 255});
}

TEST_CASE("index() is the element number: y = cast<float>(index()) * 2.0f and integer arithmetic on it") {
    const std::size_t count = 1 << 20;
    loom::vector<float> y(ctx(), count);
    loom::vector<std::uint64_t> k(ctx(), count);
    loom::vector<std::int32_t> parity(ctx(), count);
    y = loom::cast<float>(loom::index()) * 2.0f;
    k = loom::index() * 3 + 1;
    parity = loom::where(loom::index() % 2 == 0, 1, -1);
    const auto hy = y.to_host();
    const auto hk = k.to_host();
    const auto hp = parity.to_host();
    std::vector<float> wy(count);
    std::vector<std::uint64_t> wk(count);
    std::vector<std::int32_t> wp(count);
    for (std::size_t i = 0; i < count; ++i) {
        wy[i] = static_cast<float>(i) * 2.0f;
        wk[i] = std::uint64_t(i) * 3 + 1;
        wp[i] = i % 2 == 0 ? 1 : -1;
    }
    check_elements("cast<float>(index()) * 2.0f", hy, wy);
    check_elements("index() * 3 + 1", hk, wk);
    check_elements("where(index() % 2 == 0, 1, -1)", hp, wp);
}
