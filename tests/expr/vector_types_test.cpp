// Short vector elements (loom::float4, loom::int2, ... docs/vector-types.md): arithmetic with
// vectors and broadcast scalars, components, dot and length, conversions, math functions,
// reductions and scans, each against a host loop over the struct's components; fused equal to
// one statement per flush; the run-time errors. Statements are recorded in batches before the
// first read-back, so that each batch's kernels compile together.
#include "support.hpp"

#include <cmath>
#include <cstring>

using namespace loom_test;

namespace {

template <class V> using comp_t = typename V::component_type;
constexpr std::size_t n = 37;

// n vectors with every component uniform in [lo, hi).
template <class V> std::vector<V> random_vectors(comp_t<V> lo, comp_t<V> hi, std::uint64_t stream) {
    std::vector<V> v(n);
    for (unsigned c = 0; c < V::width; ++c) {
        const std::vector<comp_t<V>> part = random_values<comp_t<V>>(n, lo, hi, stream + 101 * c);
        for (std::size_t i = 0; i < n; ++i) v[i][c] = part[i];
    }
    return v;
}

// The components, in memory order: what check_elements compares.
template <class V> std::vector<comp_t<V>> flat(const std::vector<V>& v) {
    std::vector<comp_t<V>> f;
    for (const V& e : v)
        for (unsigned c = 0; c < V::width; ++c) f.push_back(e[c]);
    return f;
}

// want[i] = f(i) component by component: f(i, c) gives component c of element i.
template <class V, class F> std::vector<V> host_map(F f) {
    std::vector<V> v(n);
    for (std::size_t i = 0; i < n; ++i)
        for (unsigned c = 0; c < V::width; ++c) v[i][c] = comp_t<V>(f(i, c));
    return v;
}

template <class V> void check_vectors(const std::string& what, const std::vector<V>& got, const std::vector<V>& want,
                                      std::uint64_t max_ulps = 0) {
    check_elements(what, flat(got), flat(want), max_ulps);
}

template <class T>
void check_near(const std::string& what, const std::vector<T>& got, const std::vector<T>& want, double tolerance) {
    std::size_t bad = 0;
    std::string first;
    for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i)
        if (!(std::fabs(double(got[i]) - double(want[i])) <= tolerance * (1 + std::fabs(double(want[i])))) && bad++ < 4)
            first += "\n  [" + std::to_string(i) + "] got " + show(got[i]) + ", want " + show(want[i]);
    INFO(what, ": ", bad, " elements differ", first);
    CHECK(got.size() == want.size());
    CHECK(bad == 0);
}

template <class V> void check_identical(const std::string& what, const std::vector<V>& a, const std::vector<V>& b) {
    INFO(what);
    REQUIRE(a.size() == b.size());
    CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(V)) == 0);
}

// C++'s result of a op b in the components' promoted type, converted back as an assignment does.
template <class V> using wide_t = decltype(comp_t<V>() + comp_t<V>());

} // namespace

TEST_CASE("short vector host types have the device types' size and alignment") {
    static_assert(sizeof(loom::float4) == 16 && alignof(loom::float4) == 16);
    static_assert(sizeof(loom::double4) == 32 && alignof(loom::double4) == 16); // CUDA's alignment
    static_assert(sizeof(loom::char2) == 2 && alignof(loom::char2) == 2);
    static_assert(sizeof(loom::uint2) == 8 && alignof(loom::uint2) == 8);
    static_assert(std::is_trivially_copyable_v<loom::long4> && std::is_standard_layout_v<loom::long4>);
    CHECK(loom::size_of(loom::dtype_v<loom::double4>) == 32);
    CHECK(loom::dtype_v<loom::float4> == loom::dtype::f32x4);
    CHECK(loom::dtype_v<loom::uchar2> == loom::dtype::u8x2);
    CHECK(loom::component_dtype(loom::dtype::i64x4) == loom::dtype::i64);
    CHECK(loom::width_of(loom::dtype::u16x2) == 2);
    CHECK(std::string(loom::name_of(loom::dtype::f64x2)) == "double2");
    const loom::int4 v(1, 2, 3, 4);
    CHECK(loom::get<2>(v) == 3);
    CHECK(v.w == 4);
    CHECK(v == loom::int4(1, 2, 3, 4));
    CHECK(v != loom::int4(7));
}

TEST_CASE_TEMPLATE("short vectors round-trip, fill and read one element", V, loom::float4, loom::double2, loom::uchar4,
                   loom::short2, loom::long4, loom::double4, loom::uint2) {
    const auto h = random_vectors<V>(comp_t<V>(0), comp_t<V>(100), 3000);
    loom::vector<V> a(ctx(), h);
    const V fill_value(comp_t<V>(7));
    loom::vector<V> f(ctx(), n, fill_value);
    loom::vector<V> copied = a;
    std::vector<V> back(n);
    loom::copy(copied, back);
    check_identical("round trip", a.to_host(), h);
    check_identical("copy", back, h);
    check_identical("fill", f.to_host(), std::vector<V>(n, fill_value));
    CHECK(V(a[n - 1]) == h[n - 1]);
}

TEST_CASE_TEMPLATE("short vector arithmetic with vectors, broadcast scalars and vector host scalars matches the "
                   "components",
                   V, loom::float2, loom::float4, loom::double2, loom::double4, loom::int2, loom::int4, loom::uint4,
                   loom::char4, loom::long2) {
    using C = comp_t<V>;
    constexpr bool is_float = std::is_floating_point_v<C>;
    const auto ha = random_vectors<V>(C(1), C(60), 3100), hb = random_vectors<V>(C(1), C(9), 3101);
    loom::vector<V> a(ctx(), ha), b(ctx(), hb), sum(ctx(), n), diff(ctx(), n), prod(ctx(), n), quot(ctx(), n),
        scaled(ctx(), n), shifted(ctx(), n), with_host(ctx(), n), negated(ctx(), n), compound(ctx(), ha);
    const C s = C(3);
    V hv; // (1, 2[, 3, 4])
    for (unsigned c = 0; c < V::width; ++c) hv[c] = C(c + 1);
    sum = a + b;
    diff = a - b;
    prod = a * b;
    quot = a / b;
    scaled = s * a;         // broadcast on the left
    shifted = a - s;        // and on the right
    with_host = a * hv + b; // a vector host scalar: a kernel argument
    negated = -a;
    compound += b * hv;
    auto op = [&](auto f) {
        return host_map<V>([&](std::size_t i, unsigned c) { return f(wide_t<V>(ha[i][c]), wide_t<V>(hb[i][c]), c); });
    };
    const std::uint64_t ulps = is_float ? 1 : 0; // OpenCL's float division is within 2.5 ulp
    check_vectors("a + b", sum.to_host(), op([](auto x, auto y, unsigned) { return x + y; }));
    check_vectors("a - b", diff.to_host(), op([](auto x, auto y, unsigned) { return x - y; }));
    check_vectors("a * b", prod.to_host(), op([](auto x, auto y, unsigned) { return x * y; }));
    check_vectors("a / b", quot.to_host(), op([](auto x, auto y, unsigned) { return x / y; }), is_float ? 3 : ulps);
    check_vectors("s * a", scaled.to_host(), op([&](auto x, auto, unsigned) { return s * x; }));
    check_vectors("a - s", shifted.to_host(), op([&](auto x, auto, unsigned) { return x - s; }));
    check_vectors("a * hv + b", with_host.to_host(),
                  op([&](auto x, auto y, unsigned c) { return x * wide_t<V>(hv[c]) + y; }));
    check_vectors("-a", negated.to_host(), op([](auto x, auto, unsigned) { return -x; }));
    check_vectors("a += b * hv", compound.to_host(),
                  op([&](auto x, auto y, unsigned c) { return x + y * wide_t<V>(hv[c]); }));
}

TEST_CASE_TEMPLATE("integer short vectors take %, bitwise operators and shifts component by component", V, loom::int2,
                   loom::uint4, loom::uchar4, loom::long4) {
    using C = comp_t<V>;
    const auto ha = random_vectors<V>(C(0), C(120), 3200), hb = random_vectors<V>(C(0), C(7), 3201);
    loom::vector<V> a(ctx(), ha), b(ctx(), hb), mod(ctx(), n), bits(ctx(), n), left(ctx(), n), right(ctx(), n),
        flipped(ctx(), n);
    mod = a % b; // b holds zeros: x % 0 == x, as for scalars
    bits = (a & b) | (a ^ C(5));
    left = a << b;
    right = a >> 1;
    flipped = ~a;
    auto op = [&](auto f) {
        return host_map<V>([&](std::size_t i, unsigned c) { return f(wide_t<V>(ha[i][c]), wide_t<V>(hb[i][c])); });
    };
    check_vectors("a % b", mod.to_host(), op([](auto x, auto y) { return y == 0 ? x : x % y; }));
    check_vectors("(a & b) | (a ^ 5)", bits.to_host(), op([](auto x, auto y) { return (x & y) | (x ^ 5); }));
    check_vectors("a << b", left.to_host(), op([](auto x, auto y) { return x << y; }));
    check_vectors("a >> 1", right.to_host(), op([](auto x, auto) { return x >> 1; }));
    check_vectors("~a", flipped.to_host(), op([](auto x, auto) { return ~x; }));
}

TEST_CASE("components, make_vec, dot and length of short vectors") {
    const auto h4 = random_vectors<loom::float4>(-4.0f, 4.0f, 3300),
               g4 = random_vectors<loom::float4>(-4.0f, 4.0f, 3301);
    const auto h2 = random_vectors<loom::double2>(-4.0, 4.0, 3302);
    const auto hi = random_vectors<loom::int2>(-50, 50, 3303);
    loom::vector<loom::float4> a(ctx(), h4), b(ctx(), g4), made(ctx(), n);
    loom::vector<loom::double2> d(ctx(), h2);
    loom::vector<loom::int2> k(ctx(), hi), swapped(ctx(), n);
    loom::vector<float> xs(ctx(), n), zw(ctx(), n), dots(ctx(), n), lengths(ctx(), n);
    loom::vector<double> dlen(ctx(), n);
    loom::vector<std::int32_t> ky(ctx(), n);
    xs = x(a) + loom::get<1>(a) * 2.0f; // x() found unqualified (argument-dependent lookup)
    zw = z(a) - w(a + b);
    made = loom::make_vec<loom::float4>(w(a), z(a), 1.5f, x(b) * 2);
    swapped = loom::make_vec<loom::int2>(y(k), x(k));
    ky = loom::get<1>(k);
    dots = loom::dot(a, b);
    lengths = loom::length(a);
    dlen = loom::length(d * 2.0);
    std::vector<float> want_x(n), want_zw(n), want_dot(n), want_len(n);
    std::vector<double> want_dlen(n);
    std::vector<std::int32_t> want_ky(n);
    std::vector<loom::float4> want_made(n);
    std::vector<loom::int2> want_swapped(n);
    for (std::size_t i = 0; i < n; ++i) {
        const loom::float4 p = h4[i], q = g4[i];
        want_x[i] = p.x + p.y * 2.0f;
        want_zw[i] = p.z - (p.w + q.w);
        want_made[i] = loom::float4(p.w, p.z, 1.5f, q.x * 2);
        want_swapped[i] = loom::int2(hi[i].y, hi[i].x);
        want_ky[i] = hi[i].y;
        want_dot[i] = p.x * q.x + p.y * q.y + p.z * q.z + p.w * q.w;
        want_len[i] = std::sqrt(p.x * p.x + p.y * p.y + p.z * p.z + p.w * p.w);
        const double u = h2[i].x * 2.0, v = h2[i].y * 2.0;
        want_dlen[i] = std::sqrt(u * u + v * v);
    }
    check_elements("x(a) + get<1>(a) * 2", xs.to_host(), want_x);
    check_elements("z(a) - w(a + b)", zw.to_host(), want_zw);
    check_vectors("make_vec<float4>", made.to_host(), want_made);
    check_vectors("make_vec<int2>(y, x)", swapped.to_host(), want_swapped);
    check_elements("get<1>(int2)", ky.to_host(), want_ky);
    check_elements("dot(a, b), left to right", dots.to_host(), want_dot);
    check_elements("length(a)", lengths.to_host(), want_len, 1); // OpenCL's sqrt: correctly rounded or 3 ulp
    check_elements("length(d * 2.0)", dlen.to_host(), want_dlen, 1);
}

TEST_CASE("short vectors convert component by component, and scalars broadcast") {
    const auto hi = random_vectors<loom::int4>(-1000, 1000, 3400);
    const auto hf = random_vectors<loom::float4>(-100.0f, 100.0f, 3401);
    const auto hd = random_vectors<loom::double2>(-100.0, 100.0, 3402);
    const auto hs = random_values<float>(n, -5.0f, 5.0f, 3403);
    loom::vector<loom::int4> i4(ctx(), hi), truncated(ctx(), n);
    loom::vector<loom::float4> f4(ctx(), hf), from_int(ctx(), n), splat(ctx(), n), mixed(ctx(), n);
    loom::vector<loom::double2> d2(ctx(), hd);
    loom::vector<loom::float2> narrowed(ctx(), n);
    loom::vector<loom::double4> widened(ctx(), n);
    loom::vector<float> s(ctx(), hs);
    from_int = loom::cast<loom::float4>(i4);
    truncated = loom::cast<loom::int4>(f4);
    narrowed = loom::cast<loom::float2>(d2);
    splat = loom::cast<loom::float4>(s);
    mixed = f4 + i4;    // int4 + float4 is float4, as int + float is float
    widened = f4 * 2.0; // float4 * double is double4 (C++'s rule, as for complex<float>)
    check_vectors("cast<float4>(int4)", from_int.to_host(),
                  host_map<loom::float4>([&](std::size_t i, unsigned c) { return float(hi[i][c]); }));
    check_vectors("cast<int4>(float4)", truncated.to_host(),
                  host_map<loom::int4>([&](std::size_t i, unsigned c) { return std::int32_t(hf[i][c]); }));
    check_vectors("cast<float2>(double2)", narrowed.to_host(),
                  host_map<loom::float2>([&](std::size_t i, unsigned c) { return float(hd[i][c]); }));
    check_vectors("cast<float4>(float)", splat.to_host(),
                  host_map<loom::float4>([&](std::size_t i, unsigned) { return hs[i]; }));
    check_vectors("float4 + int4", mixed.to_host(),
                  host_map<loom::float4>([&](std::size_t i, unsigned c) { return hf[i][c] + float(hi[i][c]); }));
    check_vectors("float4 * 2.0", widened.to_host(),
                  host_map<loom::double4>([&](std::size_t i, unsigned c) { return double(hf[i][c]) * 2.0; }));
}

TEST_CASE_TEMPLATE("math functions, min, max and clamp apply to float and double vectors component by component", V,
                   loom::float4, loom::double2) {
    using C = comp_t<V>;
    const auto ha = random_vectors<V>(C(0.1), C(3), 3500), hb = random_vectors<V>(C(-3), C(3), 3501);
    loom::vector<V> a(ctx(), ha), b(ctx(), hb), sines(ctx(), n), roots(ctx(), n), magnitudes(ctx(), n), lows(ctx(), n),
        highs(ctx(), n), mins(ctx(), n), clamped(ctx(), n), powers(ctx(), n);
    sines = loom::sin(a);
    roots = loom::sqrt(a);
    magnitudes = loom::fabs(b);
    lows = loom::fmin(a, b);
    highs = loom::fmax(a, C(1));
    mins = loom::min(a, b);
    clamped = loom::clamp(b, C(-1), C(1));
    powers = loom::pow(a, b);
    auto op = [&](auto f) { return host_map<V>([&](std::size_t i, unsigned c) { return f(ha[i][c], hb[i][c]); }); };
    check_vectors("sin", sines.to_host(), op([](C x, C) { return std::sin(x); }), 4);
    check_vectors("sqrt", roots.to_host(), op([](C x, C) { return std::sqrt(x); }), 3);
    check_vectors("fabs", magnitudes.to_host(), op([](C, C y) { return std::fabs(y); }));
    check_vectors("fmin", lows.to_host(), op([](C x, C y) { return std::fmin(x, y); }));
    check_vectors("fmax(a, 1)", highs.to_host(), op([](C x, C) { return std::fmax(x, C(1)); }));
    check_vectors("min", mins.to_host(), op([](C x, C y) { return std::min(x, y); }));
    check_vectors("clamp", clamped.to_host(), op([](C, C y) { return std::clamp(y, C(-1), C(1)); }));
    check_vectors("pow", powers.to_host(), op([](C x, C y) { return std::pow(x, y); }), 16);
}

TEST_CASE_TEMPLATE("sum, min and max of short vector expressions fold component by component, on the host and the "
                   "device",
                   V, loom::float4, loom::double2, loom::int2, loom::int4, loom::uint4) {
    using C = comp_t<V>;
    constexpr std::size_t m = 1000;
    std::vector<V> h(m);
    for (std::size_t i = 0; i < m; ++i)
        for (unsigned c = 0; c < V::width; ++c)
            h[i][c] = C((i * 7 + c * 13) % 97) - (std::is_signed_v<C> ? C(40) : C(0));
    loom::vector<V> a(ctx(), h);
    V want_sum, want_min(std::numeric_limits<C>::max()), want_max(std::numeric_limits<C>::lowest());
    for (const V& e : h)
        for (unsigned c = 0; c < V::width; ++c) {
            want_sum[c] = C(want_sum[c] + C(2) * e[c]);
            want_min[c] = std::min(want_min[c], e[c]);
            want_max[c] = std::max(want_max[c], e[c]);
        }
    const auto total = loom::sum(a * C(2)); // small integers: exact in every component type
    static_assert(std::is_same_v<std::decay_t<decltype(total)>, V>);
    CHECK(total == want_sum);
    CHECK(loom::min(a) == want_min);
    CHECK(loom::max(a) == want_max);
    loom::scalar<V> on_device = loom::sum(a * C(2), loom::on_device);
    loom::scalar<V> low = loom::min(a, loom::on_device);
    CHECK(on_device.value() == want_sum);
    CHECK(low.value() == want_min);
}

TEST_CASE("inclusive_scan of a float4 vector adds component by component") {
    constexpr std::size_t m = 300;
    std::vector<loom::float4> h(m);
    for (std::size_t i = 0; i < m; ++i) h[i] = loom::float4(float(i % 5), 1.0f, float(i % 3) - 1.0f, 0.5f);
    loom::vector<loom::float4> a(ctx(), h), out(ctx(), m);
    loom::inclusive_scan(a, out);
    std::vector<loom::float4> want(m);
    loom::float4 running;
    for (std::size_t i = 0; i < m; ++i) {
        for (unsigned c = 0; c < 4; ++c) running[c] += h[i][c];
        want[i] = running;
    }
    check_vectors("inclusive_scan(float4)", out.to_host(), want); // small integers and halves: exact
}

TEST_CASE("short vectors through device scalars, gathers, shifts, slices and where") {
    const auto h = random_vectors<loom::float4>(-4.0f, 4.0f, 3600);
    const auto hc = random_values<std::int32_t>(n, 0, 2, 3601);
    std::vector<std::uint64_t> hidx(n);
    for (std::size_t i = 0; i < n; ++i) hidx[i] = (i * 5) % n;
    loom::vector<loom::float4> a(ctx(), h), gathered(ctx(), n), picked(ctx(), n), scaled(ctx(), n),
        sliced(ctx(), n, loom::float4(0));
    loom::vector<std::uint64_t> idx(ctx(), hidx);
    loom::vector<std::int32_t> cond(ctx(), hc);
    loom::scalar<loom::float4> s(ctx(), loom::float4(1, -1, 2, 0.5f));
    gathered = loom::gather(a, idx) + loom::shift(a, 1); // a clamped neighbour read
    picked = loom::where(cond != 0, a, -a);
    scaled = a * s;
    sliced.slice(1, n / 2, 2) = a.slice(0, n / 2, 2) * 2.0f;
    const loom::float4 sv(1, -1, 2, 0.5f);
    check_vectors("gather + shift", gathered.to_host(), host_map<loom::float4>([&](std::size_t i, unsigned c) {
                      return h[hidx[i]][c] + h[std::min(i + 1, n - 1)][c];
                  }));
    check_vectors("where", picked.to_host(),
                  host_map<loom::float4>([&](std::size_t i, unsigned c) { return hc[i] ? h[i][c] : -h[i][c]; }));
    check_vectors("a * device scalar", scaled.to_host(),
                  host_map<loom::float4>([&](std::size_t i, unsigned c) { return h[i][c] * sv[c]; }));
    check_vectors("slice", sliced.to_host(), host_map<loom::float4>([&](std::size_t i, unsigned c) {
                      return i % 2 == 1 && i / 2 < n / 2 ? h[i - 1][c] * 2.0f : 0.0f;
                  }));
}

TEST_CASE("fused short vector statements equal one statement per flush, bit for bit") {
    const auto ha = random_vectors<loom::float4>(-2.0f, 2.0f, 3700),
               hb = random_vectors<loom::float4>(-2.0f, 2.0f, 3701);
    const auto hk = random_vectors<loom::int2>(-9, 9, 3702);
    auto run = [&](loom::context& c) {
        loom::vector<loom::float4> a(c, ha), b(c, hb);
        loom::vector<loom::int2> k(c, hk);
        loom::vector<float> d(c, n);
        a = a * b + 0.5f;
        b = loom::sqrt(loom::fabs(a)) - loom::make_vec<loom::float4>(y(a), x(a), 1.0f, 2.0f);
        k = k * 3 / (k + 10);
        d = loom::dot(a, b) + loom::length(b) + float(1) * loom::cast<float>(x(k));
        return std::make_tuple(a.to_host(), b.to_host(), k.to_host(), d.to_host());
    };
    loom::context_options unfused_options;
    unfused_options.fusion = 0;
    loom::context unfused(unfused_options);
    const auto fused_result = run(ctx()), unfused_result = run(unfused);
    check_identical("a", std::get<0>(fused_result), std::get<0>(unfused_result));
    check_identical("b", std::get<1>(fused_result), std::get<1>(unfused_result));
    check_identical("k", std::get<2>(fused_result), std::get<2>(unfused_result));
    check_identical("d", std::get<3>(fused_result), std::get<3>(unfused_result));
}

TEST_CASE("a short vector assigned to a vector of another width or a scalar type is a loom::error") {
    loom::vector<loom::float4> a(ctx(), n, loom::float4(1));
    loom::vector<float> f(ctx(), n);
    loom::vector<loom::float2> f2(ctx(), n);
    CHECK_THROWS_WITH_AS(f = a * 2.0f, doctest::Contains("take a component with loom::get<I>"), loom::error);
    CHECK_THROWS_WITH_AS(f2 = a, doctest::Contains("short vectors convert only to vectors of their width"),
                         loom::error);
    check_identical("f kept", f.to_host(), std::vector<float>(n, 0.0f));
}

TEST_CASE("many short vector host scalars in one kernel travel packed and read back by component") {
    // 48 distinct double4 and float4 scalars (32 and 16 bytes each) pass the parameter limit
    // of common devices: the rest travel in the packed-scalar buffer, 8-byte slots.
    const auto ha = random_vectors<loom::double4>(-1.0, 1.0, 3800);
    loom::vector<loom::double4> a(ctx(), ha), acc(ctx(), n, loom::double4(0));
    loom::vector<loom::float4> facc(ctx(), n, loom::float4(0));
    std::vector<loom::double4> want(n, loom::double4(0));
    std::vector<loom::float4> fwant(n, loom::float4(0));
    for (int j = 0; j < 48; ++j) {
        const loom::double4 s(j, j + 0.25, j + 0.5, -j);
        const loom::float4 f(float(j), 1.0f, float(-j), 0.5f);
        acc += a * s;
        facc += f;
        for (std::size_t i = 0; i < n; ++i)
            for (unsigned c = 0; c < 4; ++c) {
                want[i][c] += ha[i][c] * s[c];
                fwant[i][c] += f[c];
            }
    }
    check_vectors("sum of a * s_j", acc.to_host(), want);
    check_vectors("sum of f_j", facc.to_host(), fwant);
}

TEST_CASE("exclusive scans, products, user reductions and traced maps take short vectors") {
    constexpr std::size_t m = 200;
    std::vector<loom::int4> h(m);
    for (std::size_t i = 0; i < m; ++i) h[i] = loom::int4(int(i % 11) - 5, int(i % 7), -int(i % 3), int(i * 37 % 101));
    loom::vector<loom::int4> a(ctx(), h), running_max(ctx(), m), before(ctx(), m), mapped(ctx(), m),
        magnitude(ctx(), m);
    const loom::int4 lowest(std::numeric_limits<std::int32_t>::lowest());
    loom::inclusive_scan(a, running_max, lowest, [](auto p, auto q) { return loom::max(p, q); });
    loom::exclusive_scan(a * 2, before, loom::int4(1, 2, 3, 4));
    mapped = loom::map([](auto p, auto q) { return p * q + 1; }, a, a);
    magnitude = loom::abs(a);
    const loom::int4 total = loom::reduce(a, loom::int4(0), [](auto p, auto q) { return p + q; });
    const loom::double2 product = loom::product(loom::make_vec<loom::double2>(loom::cast<double>(x(a) % 2) + 1.5, 1.0));
    std::vector<loom::int4> want_max(m), want_before(m), want_mapped(m), want_abs(m);
    loom::int4 run = lowest, sum_before(1, 2, 3, 4), want_total(0);
    double want_product = 1;
    for (std::size_t i = 0; i < m; ++i) {
        for (unsigned c = 0; c < 4; ++c) {
            run[c] = std::max(run[c], h[i][c]);
            want_mapped[i][c] = h[i][c] * h[i][c] + 1;
            want_abs[i][c] = std::abs(h[i][c]);
            want_total[c] += h[i][c];
        }
        want_max[i] = run;
        want_before[i] = sum_before;
        for (unsigned c = 0; c < 4; ++c) sum_before[c] += 2 * h[i][c];
        want_product *= double(h[i].x % 2) + 1.5;
    }
    check_vectors("inclusive_scan with max", running_max.to_host(), want_max);
    check_vectors("exclusive_scan with +", before.to_host(), want_before);
    check_vectors("map(p * q + 1)", mapped.to_host(), want_mapped);
    check_vectors("abs", magnitude.to_host(), want_abs);
    CHECK(total == want_total);
    CHECK(product.x == doctest::Approx(want_product).epsilon(1e-12));
    CHECK(product.y == 1.0);
}

TEST_CASE("a matrix of float4 takes broadcasts and sums along each axis") {
    constexpr std::size_t rows = 7, cols = 300; // columns past one CPU lanes block
    std::vector<loom::float4> ha(rows * cols), hx(cols);
    for (std::size_t i = 0; i < rows * cols; ++i) ha[i] = loom::float4(float(i % 5), 1.0f, float(i % 3) - 1.0f, 0.5f);
    for (std::size_t j = 0; j < cols; ++j) hx[j] = loom::float4(float(j % 4), 2.0f, 1.0f, -1.0f);
    loom::matrix<loom::float4> A(ctx(), rows, cols, ha);
    loom::vector<loom::float4> x(ctx(), hx);
    const loom::vector<loom::float4> Ax = loom::sum(A * loom::as_row(x), loom::axis<1>);
    const loom::vector<loom::float4> col = loom::sum(A, loom::axis<0>);
    std::vector<loom::float4> want_ax(rows), want_col(cols);
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j)
            for (unsigned c = 0; c < 4; ++c) {
                want_ax[i][c] += ha[i * cols + j][c] * hx[j][c];
                want_col[j][c] += ha[i * cols + j][c];
            }
    check_vectors("sum(A * as_row(x), axis<1>)", Ax.to_host(), want_ax); // small integers: exact
    check_vectors("sum(A, axis<0>)", col.to_host(), want_col);
}
