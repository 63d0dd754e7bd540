// Vectors built from expressions and host memory, at(), iterators and loom::copy over iterator
// ranges, a device scalar assigned to a vector, cast<T> of a host value, compile-time constants
// as scalars, expression types as regular types, and loom::tie.
#include "support.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <tuple>

using namespace loom_test;

TEST_CASE("a vector built from an expression takes its context and length from the expression") {
    const std::vector<float> hx = {1, 2, 3, 4, 5}, hz = {0.5f, -1, 2, 0, 3};
    loom::vector<float> x(ctx(), hx), z(ctx(), hz);
    loom::vector<float> y = 2 * x + loom::sin(z);
    loom::vector<double> w = x * 0.5;            // converted to the target's element type
    loom::vector<int> i = loom::shift(x, 1) > x; // a neighbour read gives the length too
    REQUIRE(y.size() == 5);
    REQUIRE(w.size() == 5);
    const std::vector<float> got = y.to_host();
    for (std::size_t k = 0; k < hx.size(); ++k) CHECK(got[k] == 2 * hx[k] + std::sin(hz[k]));
    CHECK(w.to_host() == std::vector<double>{0.5, 1.0, 1.5, 2.0, 2.5});
    CHECK(i.to_host() == std::vector<int>{1, 1, 1, 1, 0});
    // An expression that names no vector has no length to give.
    CHECK_THROWS_WITH_AS(loom::vector<float>(loom::cast<float>(loom::index()) * 2.0f), doctest::Contains("names none"),
                         loom::error);
}

TEST_CASE("a vector built from host memory, at(), and a device scalar assigned to every element") {
    const double host[] = {1.5, -2.5, 3.25};
    loom::vector<double> v(ctx(), 3, host);
    loom::vector<float> zero(ctx(), 4, 0); // a fill, not a null pointer
    CHECK(v.to_host() == std::vector<double>{1.5, -2.5, 3.25});
    CHECK(zero.to_host() == std::vector<float>(4, 0.0f));
    CHECK(v.at(2) == 3.25);
    v.at(1) = 8.0;
    CHECK(v.to_host() == std::vector<double>{1.5, 8.0, 3.25});
    CHECK_THROWS_AS(v.at(3), std::out_of_range);
    const loom::vector<double>& cv = v;
    CHECK_THROWS_AS(cv.at(99), std::out_of_range);
    const double* null = nullptr;
    CHECK_THROWS_AS(loom::vector<double>(ctx(), 2, null), loom::error);

    loom::scalar<float> s(ctx(), 2.5f);
    loom::vector<float> b(ctx(), 6);
    b = s;
    CHECK(b.to_host() == std::vector<float>(6, 2.5f));
    loom::vector<double> c(ctx(), 3);
    c = s; // converted
    CHECK(c.to_host() == std::vector<double>(3, 2.5));
}

TEST_CASE("iterators: loom::copy moves ranges in one transfer, host algorithms work through element proxies") {
    std::vector<int> host(10);
    std::iota(host.begin(), host.end(), 0);
    loom::vector<int> v(ctx(), 10);
    auto end = loom::copy(host.begin(), host.end(), v.begin());
    CHECK(end == v.end());
    CHECK(v.to_host() == host);

    std::vector<int> back(4, -1);
    loom::copy(v.begin() + 3, v.begin() + 7, back.begin());
    CHECK(back == std::vector<int>{3, 4, 5, 6});
    int raw[3] = {};
    CHECK(loom::copy(v.cbegin() + 7, v.cend(), raw) == raw + 3);
    CHECK((raw[0] == 7 && raw[1] == 8 && raw[2] == 9));
    CHECK_THROWS_AS(loom::copy(host.begin(), host.end(), v.begin() + 1), loom::error); // 10 values from position 1

    CHECK(v.end() - v.begin() == 10);
    CHECK(std::distance(v.cbegin(), v.cend()) == 10);
    CHECK(*std::max_element(v.cbegin(), v.cend()) == 9);
    CHECK(std::accumulate(v.cbegin(), v.cend(), 0) == 45);
    CHECK(std::find(v.cbegin(), v.cend(), 4) - v.cbegin() == 4);
    std::reverse(v.begin(), v.end()); // swaps through proxies
    CHECK(v.to_host() == std::vector<int>{9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
    std::fill(v.begin(), v.begin() + 2, 42);
    CHECK(v.to_host()[1] == 42);
    loom::vector<int>::const_iterator ci = v.begin(); // an iterator converts to a const one
    CHECK(*ci == 42);
}

TEST_CASE("cast<T> of a host value and compile-time constants where scalars go") {
    loom::vector<float> x(ctx(), std::vector<float>{1, 2, 3});
    loom::vector<float> y(ctx(), 3);
    y = x * loom::cast<float>(3) + std::integral_constant<int, 2>{};
    CHECK(y.to_host() == std::vector<float>{5, 8, 11});
    static_assert(std::is_same_v<decltype(loom::cast<float>(3)), float>);
    loom::vector<int> k(ctx(), 3);
    k = loom::where(x > 1.5f, std::true_type{}, std::false_type{});
    CHECK(k.to_host() == std::vector<int>{0, 1, 1});
}

TEST_CASE("expression types are regular: storable in tuples and optionals, default-constructible only when possible") {
    loom::vector<float> x(ctx(), std::vector<float>{1, 2}), y(ctx(), 2);
    auto e = x + 1.0f;
    static_assert(!std::is_default_constructible_v<decltype(e)>);
    static_assert(std::is_copy_constructible_v<decltype(e)>);
    std::optional<decltype(e)> o = e;
    std::tuple<decltype(e), int> t(e, 3);
    y = *o * float(std::get<1>(t));
    CHECK(y.to_host() == std::vector<float>{6, 9});
    y = std::get<0>(t);
    CHECK(y.to_host() == std::vector<float>{2, 3});
}

TEST_CASE("loom::tie assigns several vectors in one statement, every value read before any target is written") {
    const std::vector<float> hx = {1, 2, 3, 4}, hy = {10, 20, 30, 40};
    loom::vector<float> x(ctx(), hx), y(ctx(), hy), a(ctx(), 4), b(ctx(), 4);
    loom::tie(a, b) = std::make_tuple(x + y, x - y);
    CHECK(a.to_host() == std::vector<float>{11, 22, 33, 44});
    CHECK(b.to_host() == std::vector<float>{-9, -18, -27, -36});

    // Outputs that are inputs: a swap, and a rotation with a scalar.
    loom::tie(x, y) = std::make_tuple(y, x);
    CHECK(x.to_host() == hy);
    CHECK(y.to_host() == hx);
    loom::tie(x, y) = std::make_tuple(x + y, x * 2.0f);
    CHECK(x.to_host() == std::vector<float>{11, 22, 33, 44});
    CHECK(y.to_host() == std::vector<float>{20, 40, 60, 80});
    loom::vector<int> n(ctx(), 4);
    loom::tie(n, a) = std::make_tuple(7, a * 0.5f);
    CHECK(n.to_host() == std::vector<int>(4, 7));
    CHECK(a.to_host() == std::vector<float>{5.5f, 11, 16.5f, 22});

    // One kernel when fused: the statements sit together in the queue.
    loom::context fused;
    loom::vector<float> p(fused, 1000, 1.0f), q(fused, 1000, 2.0f), r(fused, 1000), s(fused, 1000);
    fused.finish();
    const auto before = fused.statistics().kernels_launched;
    loom::tie(r, s, p) = std::make_tuple(p + q, p - q, q * 3.0f);
    fused.finish();
    CHECK(fused.statistics().kernels_launched - before == 1);
    CHECK(r.to_host() == std::vector<float>(1000, 3.0f));
    CHECK(s.to_host() == std::vector<float>(1000, -1.0f));
    CHECK(p.to_host() == std::vector<float>(1000, 6.0f));

    loom::vector<float> empty;
    CHECK_THROWS_AS((loom::tie(empty, a) = std::make_tuple(x, x)), loom::error);
    CHECK_THROWS_AS((loom::tie(a, b) = std::make_tuple(x, loom::vector<float>(ctx(), 3) + 1.0f)), loom::error);
}
