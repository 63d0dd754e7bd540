// Traced lambdas: loom::map and loom::function, checked element by element on the host.
#include "support.hpp"

#include <cmath>

using namespace skeleton_test;

namespace {

// Builds its expression from locals and temporaries that die when it returns: the traced
// tree must hold them by value.
auto polynomial = [](auto x) {
    auto x2 = x * x;
    auto x3 = x2 * x;
    return 3.0f * x3 - x2 + 0.5f;
};

} // namespace

TEST_CASE("map traces a lambda with locals, captured host scalars and Loom functions") {
    const std::size_t n = 257;
    const std::vector<float> ha = random_values<float>(n, -2.0f, 2.0f, 21),
                             hb = random_values<float>(n, 0.1f, 4.0f, 22);
    loom::vector<float> a(ctx(), ha), b(ctx(), hb), y(ctx(), n), z(ctx(), n);
    float k = 1.5f;
    auto f = [&k](auto x, auto w) {
        auto t = loom::sqrt(w) + k; // a local, and a captured scalar read by reference
        return loom::where(x > 0.0f, x * t, loom::fabs(x) - t);
    };
    y = loom::map(f, a, b);
    z = loom::map(polynomial, a);
    const std::vector<float> hy = y.to_host(), hz = z.to_host();
    for (std::size_t i = 0; i < n; ++i) {
        const float t = std::sqrt(hb[i]) + k;
        CHECK(hy[i] == (ha[i] > 0.0f ? ha[i] * t : std::fabs(ha[i]) - t));
        const float x = ha[i], x2 = x * x, x3 = x2 * x;
        CHECK(hz[i] == 3.0f * x3 - x2 + 0.5f);
    }
    // The captured value is read when the expression is recorded: a new value, the same kernel.
    k = -0.25f;
    y = loom::map(f, a, b);
    const std::vector<float> hy2 = y.to_host();
    for (std::size_t i = 0; i < n; ++i) {
        const float t = std::sqrt(hb[i]) + k;
        CHECK(hy2[i] == (ha[i] > 0.0f ? ha[i] * t : std::fabs(ha[i]) - t));
    }
}

TEST_CASE("map results take part in larger expressions, and map takes expressions and index()") {
    const std::size_t n = 1000;
    const std::vector<std::int32_t> h = random_values<std::int32_t>(n, -100, 100, 23);
    loom::vector<std::int32_t> x(ctx(), h), y(ctx(), n);
    y = 2 * loom::map([](auto v, auto i) { return v * v + loom::cast<std::int32_t>(i % 3u); }, x + 1, loom::index()) -
        x;
    const std::vector<std::int32_t> hy = y.to_host();
    for (std::size_t i = 0; i < n; ++i) CHECK(hy[i] == 2 * ((h[i] + 1) * (h[i] + 1) + std::int32_t(i % 3)) - h[i]);
    // Vectors and index() may also appear inside the body.
    y = loom::map([&x](auto v) { return v * x + loom::cast<std::int32_t>(loom::index()); }, x - 1);
    const std::vector<std::int32_t> hy2 = y.to_host();
    for (std::size_t i = 0; i < n; ++i) CHECK(hy2[i] == (h[i] - 1) * h[i] + std::int32_t(i));
    // A map result may be stored: it refers only to the vectors it reads.
    auto stored = loom::map([](auto v) { return v * 3 + 1; }, x);
    y = stored;
    CHECK(y[7] == h[7] * 3 + 1);
}

TEST_CASE("loom::function names a traced function reused across expressions and inside other lambdas") {
    loom::function square = [](auto x) { return x * x; };
    auto cube = loom::function([square](auto x) { return square(x) * x; });
    const std::size_t n = 255;
    const std::vector<double> h = random_values<double>(n, -3.0, 3.0, 24);
    loom::vector<double> x(ctx(), h), y(ctx(), n), z(ctx(), n);
    y = square(x) + 1.0;
    z = loom::map([&](auto v) { return cube(v) - square(v + 1.0); }, x);
    const std::vector<double> hy = y.to_host(), hz = z.to_host();
    for (std::size_t i = 0; i < n; ++i) {
        CHECK(hy[i] == h[i] * h[i] + 1.0);
        CHECK(hz[i] == h[i] * h[i] * h[i] - (h[i] + 1.0) * (h[i] + 1.0));
    }
    // In a reduction: one pass over x.
    double ref = 0;
    for (double v : h) ref += v * v;
    CHECK(loom::sum(square(x)) == doctest::Approx(ref).epsilon(1e-12));
}
