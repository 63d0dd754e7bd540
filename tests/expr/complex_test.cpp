// std::complex<float> and std::complex<double> elements: arithmetic, the complex functions,
// mixed real and complex operands, casts and reductions, each against std::complex on the
// host, at odd sizes; fused equal to one statement per flush; the run-time errors.
#include "support.hpp"

#include <complex>

using namespace loom_test;

namespace {

template <class T> using cx = std::complex<T>;

// n complex values with both parts uniform in [lo, hi).
template <class T> std::vector<cx<T>> random_complex(std::size_t n, T lo, T hi, std::uint64_t stream) {
    const std::vector<T> re = random_values<T>(n, lo, hi, stream), im = random_values<T>(n, lo, hi, stream + 7777);
    std::vector<cx<T>> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = {re[i], im[i]};
    return v;
}

template <class T> std::string show_complex(cx<T> z) { return "(" + show(z.real()) + ", " + show(z.imag()) + ")"; }

// |got - want| within `eps_count` machine epsilons of |want| + `scale`, per element: complex
// products and quotients are exact only to a few rounding errors of the operands' magnitudes.
template <class T> void check_close(const std::string& what, const std::vector<cx<T>>& got,
                                    const std::vector<cx<T>>& want, double eps_count, double scale = 1) {
    std::size_t bad = 0;
    std::string first;
    for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
        const double err = std::abs(cx<double>(got[i]) - cx<double>(want[i]));
        const double bound =
            eps_count * double(std::numeric_limits<T>::epsilon()) * (std::abs(cx<double>(want[i])) + scale);
        if (!(err <= bound) && bad++ < 4)
            first += "\n  [" + std::to_string(i) + "] got " + show_complex(got[i]) + ", want " + show_complex(want[i]);
    }
    INFO(what, ": ", bad, " of ", want.size(), " elements differ", first);
    CHECK(got.size() == want.size());
    CHECK(bad == 0);
}

template <class T>
void check_close(const std::string& what, const std::vector<T>& got, const std::vector<T>& want, double eps_count) {
    std::vector<cx<T>> g(got.begin(), got.end()), w(want.begin(), want.end());
    check_close(what, g, w, eps_count);
}

// Bit-for-bit equality (fused against unfused).
template <class T> void check_identical(const std::string& what, const std::vector<T>& a, const std::vector<T>& b) {
    INFO(what);
    REQUIRE(a.size() == b.size());
    CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

template <class T, class F> std::vector<std::invoke_result_t<F, std::size_t>> host_map(std::size_t n, F f) {
    std::vector<std::invoke_result_t<F, std::size_t>> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = f(i);
    return v;
}

} // namespace

TEST_CASE_TEMPLATE("complex vectors upload and download as T[2] and take complex fills", T, float, double) {
    for (std::size_t n : {std::size_t(1), std::size_t(1001)}) {
        CAPTURE(n);
        const auto h = random_complex<T>(n, T(-3), T(3), 2000 + n);
        loom::vector<cx<T>> z(ctx(), h);
        check_identical("round trip", z.to_host(), h);
        loom::vector<cx<T>> f(ctx(), n, cx<T>(T(1.5), T(-2)));
        check_identical("fill", f.to_host(), std::vector<cx<T>>(n, cx<T>(T(1.5), T(-2))));
        CHECK(cx<T>(z[n - 1]) == h[n - 1]); // v[i] reads one element
    }
}

TEST_CASE_TEMPLATE("complex arithmetic and comparisons match std::complex", T, float, double) {
    for (std::size_t n : {std::size_t(1), std::size_t(1001)}) {
        CAPTURE(n);
        const auto ha = random_complex<T>(n, T(-2), T(2), 2010 + n);
        auto hb = random_complex<T>(n, T(-2), T(2), 2020 + n);
        for (std::size_t i = 0; i < n; i += 3) hb[i] = ha[i]; // equal elements for == and !=
        const cx<T> s(T(0.75), T(-1.25));
        loom::vector<cx<T>> a(ctx(), ha), b(ctx(), hb), sum(ctx(), n), diff(ctx(), n), prod(ctx(), n), quot(ctx(), n),
            neg(ctx(), n), plus(ctx(), n), scaled(ctx(), n), divided(ctx(), n), compound(ctx(), ha);
        loom::vector<std::int32_t> eq(ctx(), n), ne(ctx(), n);
        sum = a + b;
        diff = a - b;
        prod = a * b;
        quot = a / b;
        neg = -a;
        plus = +a;
        scaled = s * a - b * s;
        divided = s / a + a / s;
        eq = a == b;
        ne = a != b;
        compound *= b;
        compound += s;
        check_close("a + b", sum.to_host(), host_map<T>(n, [&](std::size_t i) { return ha[i] + hb[i]; }), 2);
        check_close("a - b", diff.to_host(), host_map<T>(n, [&](std::size_t i) { return ha[i] - hb[i]; }), 2);
        check_close("a * b", prod.to_host(), host_map<T>(n, [&](std::size_t i) { return ha[i] * hb[i]; }), 8, 4);
        check_close("a / b", quot.to_host(), host_map<T>(n, [&](std::size_t i) { return ha[i] / hb[i]; }), 16);
        check_close("-a", neg.to_host(), host_map<T>(n, [&](std::size_t i) { return -ha[i]; }), 0);
        check_close("+a", plus.to_host(), ha, 0);
        check_close("s * a - b * s", scaled.to_host(),
                    host_map<T>(n, [&](std::size_t i) { return s * ha[i] - hb[i] * s; }), 16, 4);
        check_close("s / a + a / s", divided.to_host(),
                    host_map<T>(n, [&](std::size_t i) { return s / ha[i] + ha[i] / s; }), 32, 4);
        check_close("a *= b; a += s", compound.to_host(),
                    host_map<T>(n, [&](std::size_t i) { return ha[i] * hb[i] + s; }), 8, 4);
        check_elements("a == b", eq.to_host(),
                       host_map<T>(n, [&](std::size_t i) { return std::int32_t(ha[i] == hb[i]); }));
        check_elements("a != b", ne.to_host(),
                       host_map<T>(n, [&](std::size_t i) { return std::int32_t(ha[i] != hb[i]); }));
    }
}

TEST_CASE_TEMPLATE("complex functions match std::complex", T, float, double) {
    for (std::size_t n : {std::size_t(1), std::size_t(1001)}) {
        CAPTURE(n);
        const auto hz = random_complex<T>(n, T(-4), T(4), 2030 + n);
        const auto hr = random_values<T>(n, T(0), T(3), 2040 + n), ht = random_values<T>(n, T(-6), T(6), 2050 + n);
        loom::vector<cx<T>> z(ctx(), hz), conj(ctx(), n), exp(ctx(), n), log(ctx(), n), sqrt(ctx(), n), polar(ctx(), n),
            from_real(ctx(), n);
        loom::vector<T> r(ctx(), hr), t(ctx(), ht), abs(ctx(), n), arg(ctx(), n), re(ctx(), n), im(ctx(), n),
            re_of_real(ctx(), n);
        abs = loom::abs(z);
        arg = loom::arg(z);
        re = loom::real(z);
        im = loom::imag(z);
        conj = loom::conj(z);
        exp = loom::exp(z);
        log = loom::log(z);
        sqrt = loom::sqrt(z);
        polar = loom::polar(r, t);
        from_real = loom::cast<cx<T>>(r * 2);
        re_of_real = loom::real(r) + loom::imag(r);
        static_assert(std::is_same_v<loom::value_type_t<decltype(loom::abs(z))>, T>);
        static_assert(std::is_same_v<loom::value_type_t<decltype(loom::real(z))>, T>);
        static_assert(std::is_same_v<loom::value_type_t<decltype(loom::polar(r, t))>, cx<T>>);
        check_close("abs", abs.to_host(), host_map<T>(n, [&](std::size_t i) { return std::abs(hz[i]); }), 4);
        check_close("arg", arg.to_host(), host_map<T>(n, [&](std::size_t i) { return std::arg(hz[i]); }), 8);
        check_close("real", re.to_host(), host_map<T>(n, [&](std::size_t i) { return hz[i].real(); }), 0);
        check_close("imag", im.to_host(), host_map<T>(n, [&](std::size_t i) { return hz[i].imag(); }), 0);
        check_close("conj", conj.to_host(), host_map<T>(n, [&](std::size_t i) { return std::conj(hz[i]); }), 0);
        check_close("exp", exp.to_host(), host_map<T>(n, [&](std::size_t i) { return std::exp(hz[i]); }), 16);
        check_close("log", log.to_host(), host_map<T>(n, [&](std::size_t i) { return std::log(hz[i]); }), 16);
        check_close("sqrt", sqrt.to_host(), host_map<T>(n, [&](std::size_t i) { return std::sqrt(hz[i]); }), 8);
        check_close("polar", polar.to_host(), host_map<T>(n, [&](std::size_t i) { return std::polar(hr[i], ht[i]); }),
                    16);
        check_close("cast<complex>(r * 2)", from_real.to_host(),
                    host_map<T>(n, [&](std::size_t i) { return cx<T>(hr[i] * 2); }), 0);
        check_close("real(r) + imag(r)", re_of_real.to_host(), hr, 0);
    }
}

TEST_CASE("mixed real and complex operands follow the component promotion rule") {
    constexpr std::size_t n = 1001;
    const auto hf = random_complex<float>(n, -2.0f, 2.0f, 2060);
    const auto hd = random_values<double>(n, -2.0, 2.0, 2061);
    const auto hi = random_values<std::int32_t>(n, -100, 100, 2062);
    loom::vector<cx<float>> zf(ctx(), hf), with_int(ctx(), n), with_int_scalar(ctx(), n);
    loom::vector<double> d(ctx(), hd);
    loom::vector<std::int32_t> k(ctx(), hi);
    loom::vector<cx<double>> with_double(ctx(), n), with_double_scalar(ctx(), n), widened(ctx(), n),
        complex_double_scalar(ctx(), n);
    // complex<float> with double: complex<double>; with an integer or float: complex<float>.
    static_assert(std::is_same_v<loom::value_type_t<decltype(zf * d)>, cx<double>>);
    static_assert(std::is_same_v<loom::value_type_t<decltype(zf * 2.0)>, cx<double>>);
    static_assert(std::is_same_v<loom::value_type_t<decltype(zf + k)>, cx<float>>);
    static_assert(std::is_same_v<loom::value_type_t<decltype(3 * zf)>, cx<float>>);
    static_assert(std::is_same_v<loom::value_type_t<decltype(zf * cx<double>(1, 1))>, cx<double>>);
    with_double = zf * d;
    with_double_scalar = zf * 0.1;
    with_int = zf + k;
    with_int_scalar = 3 * zf - 2.5f;
    widened = loom::cast<cx<double>>(zf);
    complex_double_scalar = zf * cx<double>(0.1, -0.3);
    check_close("zf * d", with_double.to_host(),
                host_map<double>(n, [&](std::size_t i) { return cx<double>(hf[i]) * hd[i]; }), 2);
    check_close("zf * 0.1", with_double_scalar.to_host(),
                host_map<double>(n, [&](std::size_t i) { return cx<double>(hf[i]) * 0.1; }), 2);
    check_close("zf + k", with_int.to_host(), host_map<float>(n, [&](std::size_t i) { return hf[i] + float(hi[i]); }),
                2, 100);
    check_close("3 * zf - 2.5f", with_int_scalar.to_host(),
                host_map<float>(n, [&](std::size_t i) { return 3.0f * hf[i] - 2.5f; }), 4, 4);
    check_close("cast<complex<double>>(zf)", widened.to_host(),
                host_map<double>(n, [&](std::size_t i) { return cx<double>(hf[i]); }), 0);
    check_close("zf * complex<double>", complex_double_scalar.to_host(),
                host_map<double>(n, [&](std::size_t i) { return cx<double>(hf[i]) * cx<double>(0.1, -0.3); }), 4, 1);
}

TEST_CASE_TEMPLATE("complex sums and products reduce like std::complex", T, float, double) {
    for (std::size_t n : {std::size_t(1), std::size_t(1001), std::size_t(100003)}) {
        CAPTURE(n);
        const auto hx = random_complex<T>(n, T(-1), T(1), 2070 + n), hy = random_complex<T>(n, T(-1), T(1), 2080 + n);
        const auto angle = random_values<T>(n, T(-0.01), T(0.01), 2090 + n);
        loom::vector<cx<T>> x(ctx(), hx), y(ctx(), hy);
        loom::vector<T> theta(ctx(), angle);
        cx<long double> want_dot = 0, want_sum = 0;
        long double angle_sum = 0;
        for (std::size_t i = 0; i < n; ++i) {
            want_dot += cx<long double>(hx[i]) * std::conj(cx<long double>(hy[i]));
            want_sum += cx<long double>(hx[i]);
            angle_sum += angle[i];
        }
        const cx<T> dot = loom::sum(x * loom::conj(y));
        static_assert(std::is_same_v<decltype(loom::sum(x * loom::conj(y))), cx<T>>);
        const double tolerance = double(std::numeric_limits<T>::epsilon()) * 4 * std::sqrt(double(n)) * 8;
        CHECK(std::abs(cx<double>(dot) - cx<double>(want_dot)) <= tolerance * (1 + std::sqrt(double(n))));
        loom::scalar<cx<T>> on_device = loom::sum(x, loom::on_device);
        CHECK(std::abs(cx<double>(on_device.value()) - cx<double>(want_sum)) <= tolerance * (1 + std::sqrt(double(n))));
        // A product of unit numbers: exp(i sum(theta)).
        const cx<T> turned = loom::product(loom::polar(T(1), theta));
        const std::complex<double> want_turn = std::polar(1.0, double(angle_sum));
        CHECK(std::abs(cx<double>(turned) - want_turn) <= double(std::numeric_limits<T>::epsilon()) * 8 * double(n));
    }
}

TEST_CASE_TEMPLATE("fused complex statements equal one statement per flush, bit for bit", T, float, double) {
    constexpr std::size_t n = 1001;
    const auto ha = random_complex<T>(n, T(-2), T(2), 2100), hb = random_complex<T>(n, T(-2), T(2), 2101);
    const auto hr = random_values<T>(n, T(-2), T(2), 2102);
    const cx<T> s(T(0.5), T(2));
    loom::vector<cx<T>> a(ctx(), ha), b(ctx(), hb), a1(ctx(), ha), b1(ctx(), hb);
    loom::vector<T> r(ctx(), hr), m(ctx(), n), r1(ctx(), hr), m1(ctx(), n);
    // Fused: one flush.
    a = a * b + s;
    b = loom::exp(a / (b + T(3))) - r;
    m = loom::abs(a) + loom::arg(b) * r;
    a = loom::sqrt(loom::conj(a)) * loom::log(b + s);
    const auto fa = a.to_host(), fb = b.to_host(), fm = m.to_host();
    // One flush per statement.
    a1 = a1 * b1 + s;
    a1.to_host();
    b1 = loom::exp(a1 / (b1 + T(3))) - r1;
    b1.to_host();
    m1 = loom::abs(a1) + loom::arg(b1) * r1;
    m1.to_host();
    a1 = loom::sqrt(loom::conj(a1)) * loom::log(b1 + s);
    check_identical("a fused vs unfused", fa, a1.to_host());
    check_identical("b fused vs unfused", fb, b1.to_host());
    check_identical("m fused vs unfused", fm, m1.to_host());
}

TEST_CASE("complex values that cannot become real, and complex on a device scalar") {
    constexpr std::size_t n = 17;
    const auto hz = random_complex<float>(n, -1.0f, 1.0f, 2110);
    loom::vector<cx<float>> z(ctx(), hz);
    loom::vector<float> f(ctx(), n, 5.0f);
    // A complex value has no conversion to a real type: a loom::error at the statement, which
    // leaves the target as it was.
    CHECK_THROWS_WITH_AS(f = z, doctest::Contains("complex<float> value cannot be converted to float"), loom::error);
    CHECK_THROWS_WITH_AS(f = z * 2.0f, doctest::Contains("loom::real(z)"), loom::error);
    check_elements("f after the failed statements", f.to_host(), std::vector<float>(n, 5.0f));
    // A loom::scalar<complex> broadcasts like any device scalar.
    loom::scalar<cx<float>> c(ctx(), cx<float>(1, -1));
    loom::vector<cx<float>> shifted(ctx(), n);
    shifted = z + c;
    check_close("z + device scalar", shifted.to_host(),
                host_map<float>(n, [&](std::size_t i) { return hz[i] + cx<float>(1, -1); }), 2);
}

TEST_CASE_TEMPLATE("complex values through views, gathers, stencil reads, matrices and axis sums", T, float, double) {
    const std::size_t n = 301, rows = 7, cols = 43;
    const std::vector<cx<T>> hz = random_complex<T>(n, T(-1), T(1), 3100);
    const std::vector<std::uint32_t> hidx = [&] {
        std::vector<std::uint32_t> v(n);
        for (std::size_t i = 0; i < n; ++i) v[i] = std::uint32_t((i * 37 + 11) % n);
        return v;
    }();
    loom::vector<cx<T>> z(ctx(), hz), y(ctx(), n);
    loom::vector<std::uint32_t> idx(ctx(), hidx);
    // A gather, a clamped shift and a reversed view, in one statement.
    y = loom::gather(z, idx) * cx<T>(T(2), T(-1)) + loom::shift(z, 1) - loom::reversed(z);
    check_close("gather, shift and reversed view", y.to_host(),
                host_map<T>(n,
                            [&](std::size_t i) {
                                return hz[hidx[i]] * cx<T>(T(2), T(-1)) + hz[std::min(i + 1, n - 1)] - hz[n - 1 - i];
                            }),
                8);
    // A strided view assigned, the others kept.
    y = z;
    y.slice(1, n / 2, 2) = z.slice(0, n / 2, 2) * cx<T>(T(0), T(1));
    check_close(
        "a strided view assigned", y.to_host(),
        host_map<T>(n,
                    [&](std::size_t i) { return i % 2 == 1 && i / 2 < n / 2 ? hz[i - 1] * cx<T>(T(0), T(1)) : hz[i]; }),
        4);
    // A matrix with a broadcast, summed along each axis.
    const std::vector<cx<T>> ha = random_complex<T>(rows * cols, T(-1), T(1), 3200),
                             hx = random_complex<T>(cols, T(-1), T(1), 3300);
    loom::matrix<cx<T>> A(ctx(), rows, cols, ha);
    loom::vector<cx<T>> x(ctx(), hx);
    const loom::vector<cx<T>> Ax = loom::sum(A * loom::as_row(x), loom::axis<1>);
    const loom::vector<cx<T>> col = loom::sum(A, loom::axis<0>);
    std::vector<cx<T>> want_ax(rows), want_col(cols);
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
            want_ax[i] += ha[i * cols + j] * hx[j];
            want_col[j] += ha[i * cols + j];
        }
    check_close("sum(A * as_row(x), axis<1>)", Ax.to_host(), want_ax, 4 * double(cols), 1);
    check_close("sum(A, axis<0>)", col.to_host(), want_col, 4 * double(rows), 1);
}

TEST_CASE_TEMPLATE("complex scans, inclusive and exclusive, with + and a traced product, match std::complex", T, float,
                   double) {
    for (std::size_t n : {std::size_t(1), std::size_t(1001), std::size_t(70001)}) {
        CAPTURE(n);
        const auto hx = random_complex<T>(n, T(-1), T(1), 2200 + n);
        const auto angle = random_values<T>(n, T(-0.01), T(0.01), 2210 + n);
        loom::vector<cx<T>> x(ctx(), hx), out(ctx(), n), turned(ctx(), n);
        loom::vector<T> theta(ctx(), angle);
        loom::inclusive_scan(x * T(2), out);
        std::vector<cx<T>> want(n);
        cx<long double> running = 0;
        double scale = 0;
        for (std::size_t i = 0; i < n; ++i) {
            running += cx<long double>(hx[i]) * 2.0L;
            want[i] = cx<T>(running);
            scale = std::max(scale, double(i + 1));
        }
        // Each prefix is a sum of up to n terms of magnitude below 2.9: a few epsilons of n.
        check_close("inclusive +", out.to_host(), want, 16, 3 * std::sqrt(double(n)) + 1);
        const cx<T> start(T(0.5), T(-0.25));
        loom::exclusive_scan(x, out, start);
        running = cx<long double>(start);
        for (std::size_t i = 0; i < n; ++i) {
            want[i] = cx<T>(running);
            running += cx<long double>(hx[i]);
        }
        check_close("exclusive +", out.to_host(), want, 16, 3 * std::sqrt(double(n)) + 1);
        // Running products of unit numbers: exp(i (theta_0 + ... + theta_k)).
        loom::inclusive_scan(loom::polar(T(1), theta), turned, cx<T>(1), [](auto a, auto b) { return a * b; });
        long double angle_sum = 0;
        for (std::size_t i = 0; i < n; ++i) {
            angle_sum += angle[i];
            want[i] = cx<T>(std::polar(1.0L, angle_sum));
        }
        check_close("inclusive product", turned.to_host(), want, 8 * std::sqrt(double(n)) + 8);
    }
}
