// The body of the unqualified-call tests: every Loom function spelled without `loom::`, as users
// and generic numeric code write it, on every kind of operand (a vector, an expression, a view, a
// matrix and its rows, a device scalar, loom::index(), a traced lambda's argument, host numbers),
// each checked against the host. Included by three files that differ only in what is in scope
// before it: nothing, `using namespace loom;`, or `using std::sin; ...` (argument-dependent
// lookup must find Loom's functions in all three). Types are named with loom:: only where a type
// is named; calls are never qualified.
#pragma once

#include "support.hpp"

namespace unqualified {

constexpr std::size_t n = 48; // a 6 x 8 matrix as well

// Relative agreement to a few units in the last place of a double (device math libraries
// differ from the host's by that much).
inline void check_close(const char* what, const std::vector<double>& got, const std::vector<double>& want,
                        double tolerance = 1e-13) {
    REQUIRE(got.size() == want.size());
    std::size_t bad = 0;
    std::string first;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double scale = std::max(1.0, std::fabs(want[i]));
        const bool ok = (std::isnan(got[i]) && std::isnan(want[i])) || std::fabs(got[i] - want[i]) <= tolerance * scale;
        if (!ok && bad++ < 3)
            first += " [" + std::to_string(i) + "] got " + std::to_string(got[i]) + " want " + std::to_string(want[i]);
    }
    INFO(what, ": ", bad, " of ", got.size(), " differ", first);
    CHECK(bad == 0);
}

template <class F> std::vector<double> host_map(const std::vector<double>& a, F f) {
    std::vector<double> r(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) r[i] = f(a[i], i);
    return r;
}

// Records every statement first, then reads back: one flush, one kernel compile for the lot.
inline void check_unqualified_calls() {
    using loom_test::ctx;
    const std::vector<double> hx = loom_test::random_values<double>(n, 0.1, 0.9, 3401);
    const std::vector<double> hy = loom_test::random_values<double>(n, 0.1, 0.9, 3402);
    loom::vector<double> x(ctx(), hx), y(ctx(), hy);

    struct output {
        const char* what;
        std::shared_ptr<loom::vector<double>> device;
        std::vector<double> want;
        double tolerance;
    };
    std::vector<output> outputs;
    const auto expect = [&](const char* what, std::vector<double> want, double tolerance = 1e-13) {
        outputs.push_back({what, std::make_shared<loom::vector<double>>(ctx(), n), std::move(want), tolerance});
        return outputs.back().device;
    };
    const auto h = [&](auto f) { return host_map(hx, [&](double a, std::size_t i) { return f(a, hy[i]); }); };

    // The regression: a function of an expression, not of a bare vector.
    *expect("sin(x + y)", h([](double a, double b) { return std::sin(a + b); })) = sin(x + y);
    *expect("sqrt(x * y)", h([](double a, double b) { return std::sqrt(a * b); })) = sqrt(x * y);
    *expect("where(x > 0.5, sin(x), cos(x))", h([](double a, double) { return a > 0.5 ? std::sin(a) : std::cos(a); })) =
        where(x > 0.5, sin(x), cos(x));
    // Every unary function, on an expression.
    *expect("cos", h([](double a, double b) { return std::cos(a - b); })) = cos(x - y);
    *expect("tan", h([](double a, double) { return std::tan(a * 0.5); })) = tan(x * 0.5);
    *expect("asin", h([](double a, double) { return std::asin(a * 0.5); })) = asin(x * 0.5);
    *expect("acos", h([](double a, double) { return std::acos(a * 0.5); })) = acos(x * 0.5);
    *expect("atan", h([](double a, double b) { return std::atan(a + b); })) = atan(x + y);
    *expect("sinh", h([](double a, double b) { return std::sinh(a + b); })) = sinh(x + y);
    *expect("cosh", h([](double a, double b) { return std::cosh(a + b); })) = cosh(x + y);
    *expect("tanh", h([](double a, double b) { return std::tanh(a + b); })) = tanh(x + y);
    *expect("exp", h([](double a, double b) { return std::exp(a + b); })) = exp(x + y);
    *expect("exp2", h([](double a, double b) { return std::exp2(a + b); })) = exp2(x + y);
    *expect("log", h([](double a, double b) { return std::log(a + b); })) = log(x + y);
    *expect("log2", h([](double a, double b) { return std::log2(a + b); })) = log2(x + y);
    *expect("log10", h([](double a, double b) { return std::log10(a + b); })) = log10(x + y);
    *expect("log1p", h([](double a, double b) { return std::log1p(a * b); })) = log1p(x * y);
    *expect("expm1", h([](double a, double b) { return std::expm1(a * b); })) = expm1(x * y);
    *expect("rsqrt", h([](double a, double b) { return 1.0 / std::sqrt(a + b); })) = rsqrt(x + y);
    *expect("cbrt", h([](double a, double b) { return std::cbrt(a - b); })) = cbrt(x - y);
    *expect("fabs", h([](double a, double b) { return std::fabs(a - b); })) = fabs(x - y);
    *expect("abs", h([](double a, double b) { return std::abs(a - b); })) = abs(x - y);
    *expect("floor", h([](double a, double b) { return std::floor(10 * (a - b)); })) = floor(10 * (x - y));
    *expect("ceil", h([](double a, double b) { return std::ceil(10 * (a - b)); })) = ceil(10 * (x - y));
    *expect("round", h([](double a, double b) { return std::round(10 * (a - b)); })) = round(10 * (x - y));
    *expect("trunc", h([](double a, double b) { return std::trunc(10 * (a - b)); })) = trunc(10 * (x - y));
    *expect("erf", h([](double a, double b) { return std::erf(a - b); }), 1e-12) = erf(x - y);
    *expect("erfc", h([](double a, double b) { return std::erfc(a - b); }), 1e-12) = erfc(x - y);
    *expect("tgamma", h([](double a, double b) { return std::tgamma(a + b); }), 1e-12) = tgamma(x + y);
    *expect("lgamma", h([](double a, double b) { return std::lgamma(a + b); }), 1e-12) = lgamma(x + y);
    // Every binary function, with an expression, a vector and a host number in each place.
    *expect("atan2", h([](double a, double b) { return std::atan2(a - 0.5, b); })) = atan2(x - 0.5, y);
    *expect("pow", h([](double a, double b) { return std::pow(a + b, 2.5); })) = pow(x + y, 2.5);
    *expect("pow(2, e)", h([](double a, double b) { return std::pow(2.0, a * b); })) = pow(2.0, x * y);
    *expect("hypot", h([](double a, double b) { return std::hypot(a, b + 1); })) = hypot(x, y + 1);
    *expect("fmod", h([](double a, double b) { return std::fmod(a * 10, b); })) = fmod(x * 10, y);
    *expect("fmin", h([](double a, double b) { return std::fmin(a * 2, b); })) = fmin(x * 2, y);
    *expect("fmax", h([](double a, double b) { return std::fmax(a * 2, b); })) = fmax(x * 2, y);
    *expect("min", h([](double a, double) { return std::min(a * 2, 1.0); })) = min(x * 2, 1.0);
    *expect("max", h([](double a, double b) { return std::max(a, b * 2); })) = max(x, y * 2);
    *expect("clamp", h([](double a, double b) { return std::clamp(a + b, 0.5, 1.5); })) = clamp(x + y, 0.5, 1.5);
    *expect("fma", h([](double a, double b) { return std::fma(a, b, 1.0); })) = fma(x, y, 1.0);
    *expect("real(polar(e, e))", h([](double a, double b) { return std::polar(a, b).real(); })) =
        real(polar(x + 0.0, y * 1.0));
    *expect("imag(polar(x, y))", h([](double a, double b) { return std::polar(a, b).imag(); })) = imag(polar(x, y));
    // The OpenCL/CUDA built-ins: classification, bit counts, and <cmath>'s exact functions.
    *expect("isnan + isinf + isfinite + isnormal + signbit", h([](double a, double b) {
                const double q = (a - 0.5) / (b - b); // +-inf, or NaN where a is 0.5
                return double(std::isnan(q)) + 2 * double(std::isinf(q)) + 4 * double(std::isfinite(a - b)) +
                       8 * double(std::isnormal(a - b)) + 16 * double(std::signbit(a - b));
            })) = isnan((x - 0.5) / (y - y)) + 2 * isinf((x - 0.5) / (y - y)) + 4 * isfinite(x - y) +
                  8 * isnormal(x - y) + 16 * signbit(x - y);
    *expect("copysign + fdim + rint + nextafter + ldexp", h([](double a, double b) {
                return std::copysign(a, b - 0.5) + std::fdim(a, b) + std::rint(10 * a) + std::nextafter(a, b) +
                       std::ldexp(b, 3);
            })) = copysign(x, y - 0.5) + fdim(x, y) + rint(10 * x) + nextafter(x, y) + ldexp(y, 3);
    {
        std::vector<std::int32_t> hk(n);
        for (std::size_t i = 0; i < n; ++i) hk[i] = std::int32_t(i * 37 + 5);
        loom::vector<std::int32_t> k(ctx(), hk);
        std::vector<double> want(n);
        for (std::size_t i = 0; i < n; ++i)
            want[i] = __builtin_popcount(unsigned(hk[i] * 3)) + 100 * __builtin_clz(unsigned(hk[i] + 1)) +
                      10000 * __builtin_ctz(unsigned(hk[i] | 256));
        *expect("popcount + clz + ctz", want) = popcount(k * 3) + 100 * clz(k + 1) + 10000 * ctz(k | 256);
    }
    // Views, matrices and their rows, device scalars, index(), traced lambdas.
    {
        std::vector<double> want(n);
        for (std::size_t i = 0; i < n; ++i) want[i] = std::exp(hx[n - 1 - i]) + std::sin(hy[i]);
        *expect("exp(reversed(x)) + sin(y)", want) = exp(reversed(x)) + sin(y);
    }
    {
        std::vector<double> want(n / 2);
        for (std::size_t i = 0; i < n / 2; ++i) want[i] = std::sqrt(hx[2 * i] + 1);
        outputs.push_back(
            {"sqrt(x.slice(0, n/2, 2) + 1)", std::make_shared<loom::vector<double>>(ctx(), n / 2), want, 1e-13});
        *outputs.back().device = sqrt(x.slice(0, n / 2, 2) + 1);
    }
    {
        const loom::scalar<double> s = sum(x * y, loom::on_device);
        double hs = 0;
        for (std::size_t i = 0; i < n; ++i) hs += hx[i] * hy[i];
        *expect("x * cos(s)", h([&](double a, double) { return a * std::cos(hs); }), 1e-12) = x * cos(s);
    }
    {
        std::vector<double> want(n);
        for (std::size_t i = 0; i < n; ++i) want[i] = std::sin(double(i) * 0.25) + std::exp(-double(i));
        *expect("sin(index() * 0.25) + exp(-1.0 * index())", want) =
            sin(loom::index() * 0.25) + exp(-1.0 * loom::index());
    }
    {
        loom::function f = [](auto v) { return pow(sin(v), 2.0); };
        *expect("traced pow(sin(v), 2.0)", h([](double a, double b) { return std::pow(std::sin(a + b), 2.0); })) =
            f(x + y);
        *expect("map(lambda of unqualified calls)",
                h([](double a, double b) { return std::fmax(std::exp(a), b) + std::hypot(a, b); })) =
            loom::map([](auto a, auto b) { return fmax(exp(a), b) + hypot(a, b); }, x, y);
    }
    {
        // shift and gather of expressions and vectors.
        std::vector<double> want(n);
        for (std::size_t i = 0; i < n; ++i) want[i] = std::sin(hx[std::min(i + 1, n - 1)] + hy[std::min(i + 1, n - 1)]);
        *expect("sin(shift(x + y, 1))", want) = sin(shift(x + y, 1));
        std::vector<std::int32_t> hidx(n);
        for (std::size_t i = 0; i < n; ++i) hidx[i] = std::int32_t((i * 7) % n);
        loom::vector<std::int32_t> idx(ctx(), hidx);
        std::vector<double> want_gather(n);
        for (std::size_t i = 0; i < n; ++i) want_gather[i] = std::sqrt(hx[hidx[i]]);
        *expect("sqrt(gather(x, idx))", want_gather) = sqrt(gather(x, idx));
    }

    // Matrices: math on a matrix, a transpose and a row, and reductions along an axis.
    constexpr std::size_t rows = 6, cols = 8;
    loom::matrix<double> m(ctx(), rows, cols, hx), t(ctx(), cols, rows), mm(ctx(), rows, cols);
    mm = exp(m) - 1.0;
    t = sqrt(transpose(m));
    loom::vector<double> row_sums = sum(m * m, loom::axis<1>);
    loom::vector<double> row_max = max(sin(m), loom::axis<1>);
    loom::vector<double> on_row(ctx(), cols);
    on_row = cos(m.row(2)) + 1.0;

    // Reductions of expressions, to the host.
    double want_sum = 0, want_max = -1, want_min = 2, want_product = 1;
    std::uint64_t want_count = 0;
    for (std::size_t i = 0; i < n; ++i) {
        want_sum += std::sin(hx[i]) * hy[i];
        want_max = std::max(want_max, hx[i] + hy[i]);
        want_min = std::min(want_min, hx[i] * hy[i]);
        want_product *= 1.0 + hx[i] * 0.01;
        want_count += hx[i] > hy[i];
    }
    CHECK(sum(sin(x) * y) == doctest::Approx(want_sum).epsilon(1e-12));
    CHECK(max(x + y) == want_max);
    CHECK(min(x * y) == want_min);
    CHECK(product(1.0 + x * 0.01) == doctest::Approx(want_product).epsilon(1e-12));
    CHECK(count(x > y) == want_count);
    CHECK(any(x > 0.85) == std::any_of(hx.begin(), hx.end(), [](double a) { return a > 0.85; }));
    CHECK(all(x + y > 0.1));
    const auto [lo, hi] = minmax(x - y);
    const auto hl = host_map(hx, [&](double a, std::size_t i) { return a - hy[i]; });
    CHECK(lo == *std::min_element(hl.begin(), hl.end()));
    CHECK(hi == *std::max_element(hl.begin(), hl.end()));
    CHECK(reduce(x * 2.0, 0.0, [](auto a, auto b) { return max(a, b); }) ==
          2.0 * *std::max_element(hx.begin(), hx.end()));

    for (const output& o : outputs) check_close(o.what, o.device->to_host(), o.want, o.tolerance);
    const std::vector<double> hmm = mm.elements().to_host(), ht = t.elements().to_host(),
                              hrow_sums = row_sums.to_host(), hrow_max = row_max.to_host(), hon_row = on_row.to_host();
    std::vector<double> want_mm(n), want_t(n), want_row_sums(rows, 0.0), want_row_max(rows, -2.0), want_on_row(cols);
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
            const double a = hx[i * cols + j];
            want_mm[i * cols + j] = std::exp(a) - 1.0;
            want_t[j * rows + i] = std::sqrt(a);
            want_row_sums[i] += a * a;
            want_row_max[i] = std::max(want_row_max[i], std::sin(a));
        }
    for (std::size_t j = 0; j < cols; ++j) want_on_row[j] = std::cos(hx[2 * cols + j]) + 1.0;
    check_close("exp(m) - 1", hmm, want_mm);
    check_close("sqrt(transpose(m))", ht, want_t);
    check_close("sum(m * m, axis<1>)", hrow_sums, want_row_sums, 1e-12);
    check_close("max(sin(m), axis<1>)", hrow_max, want_row_max);
    check_close("cos(m.row(2)) + 1", hon_row, want_on_row);
}

} // namespace unqualified
