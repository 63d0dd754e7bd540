// Statements whose value or index names no vector (loom::index(), host numbers) take their
// length from where it is: a scatter from its value or its target, a gather from its target, a
// scan from its output; traced lambdas that return a constant or take no operand.
#include "support.hpp"

using namespace loom_test;

TEST_CASE("scatter and gather through an index that names no vector reverse a vector") {
    constexpr std::size_t n = 37;
    std::vector<float> hx(n);
    for (std::size_t i = 0; i < n; ++i) hx[i] = float(i) * 1.5f;
    std::vector<float> reversed_x(hx.rbegin(), hx.rend());
    loom::vector<float> x(ctx(), hx), y(ctx(), n), z(ctx(), n), w(ctx(), n, 4.0f);
    // The scatter's length is its value's.
    loom::scatter(y, n - 1 - loom::index()) = x;
    // The gather's length is its target's.
    z = loom::gather(x, n - 1 - loom::index());
    CHECK(y.to_host() == reversed_x);
    CHECK(z.to_host() == reversed_x);
    // A host value and an index of no vector: the target's length (every element written once).
    loom::scatter(w, n - 1 - loom::index()) = 2.0f;
    CHECK(w.to_host() == std::vector<float>(n, 2.0f));
    // With the value from an expression of no vector, too.
    loom::scatter(w, loom::index()) = loom::cast<float>(loom::index()) * 0.5f;
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = float(i) * 0.5f;
    CHECK(w.to_host() == want);
}

TEST_CASE("a scan of an expression that names no vector runs over its output") {
    constexpr std::size_t n = 1000;
    loom::vector<std::int32_t> y(ctx(), n), e(ctx(), n);
    loom::inclusive_scan(loom::cast<std::int32_t>(loom::index()) + 1, y);
    loom::exclusive_scan(loom::cast<std::int32_t>(loom::index()) % 3, e, 5);
    std::vector<std::int32_t> want_y(n), want_e(n);
    std::int32_t run = 0;
    for (std::size_t i = 0; i < n; ++i) want_y[i] = run += std::int32_t(i) + 1;
    run = 5;
    for (std::size_t i = 0; i < n; ++i) {
        want_e[i] = run;
        run += std::int32_t(i) % 3;
    }
    CHECK(y.to_host() == want_y);
    CHECK(e.to_host() == want_e);
    // A vector in the input still sets the length: a mismatch is an error, not a silent fit.
    loom::vector<std::int32_t> shorter(ctx(), n - 1);
    CHECK_THROWS_AS(loom::inclusive_scan(shorter + loom::cast<std::int32_t>(loom::index()), y), loom::length_error);
}

TEST_CASE("traced lambdas may return a host constant, and a loom::function may take no operand") {
    const std::vector<double> hx = {1, 2, 3, 4};
    loom::vector<double> x(ctx(), hx), y(ctx(), 4), z(ctx(), 4);
    loom::vector<float> f(ctx(), 4);
    loom::function one = [](auto) { return 1.0; };
    y = one(x);
    // A constant from one arm of a compile-time branch, an expression from the other.
    const auto pick = [](auto v, auto which) {
        if constexpr (decltype(which)::value)
            return 2.5f;
        else
            return v * 2.0;
    };
    f = loom::map([&](auto v) { return pick(v, std::true_type{}); }, x);
    z = loom::map([&](auto v) { return pick(v, std::false_type{}); }, x) + one(x);
    CHECK(y.to_host() == std::vector<double>(4, 1.0));
    CHECK(f.to_host() == std::vector<float>(4, 2.5f));
    CHECK(z.to_host() == std::vector<double>{3, 5, 7, 9});

    // A generator: no operands, loom::index() inside, the target gives the length.
    loom::function ramp = [] { return loom::cast<double>(loom::index()) * 0.25; };
    loom::vector<double> r(ctx(), 5);
    r = ramp();
    CHECK(r.to_host() == std::vector<double>{0, 0.25, 0.5, 0.75, 1.0});
    // A lambda returning a vector it names.
    y = loom::map([&](auto) { return x; }, 0) * 3.0;
    CHECK(y.to_host() == std::vector<double>{3, 6, 9, 12});
}
