// loom::vector as the standard containers users know: member types, front/back, assign,
// push_back/pop_back, clear, reverse iterators, and resize from a size, a vector or host data.
#include "support.hpp"

#include <algorithm>
#include <iterator>
#include <numeric>

using namespace loom_test;

static_assert(std::is_same_v<loom::vector<float>::value_type, float>);
static_assert(std::is_same_v<loom::vector<float>::size_type, std::size_t>);
static_assert(std::is_same_v<loom::vector<float>::difference_type, std::ptrdiff_t>);
static_assert(std::is_same_v<loom::vector<float>::const_reference, float>);
static_assert(std::is_same_v<loom::vector<float>::reference, loom::vector<float>::element_proxy>);
static_assert(std::is_same_v<std::iterator_traits<loom::vector<float>::iterator>::iterator_category,
                             std::random_access_iterator_tag>);
static_assert(std::is_same_v<std::iterator_traits<loom::vector<float>::const_iterator>::value_type, float>);

TEST_CASE("front, back, assign, push_back, pop_back and clear behave as std::vector's") {
    loom::vector<std::int32_t> v(ctx(), std::vector<std::int32_t>{4, 5, 6});
    CHECK(v.front() == 4);
    CHECK(v.back() == 6);
    v.front() = 40;
    v.back() = 60;
    CHECK(v.to_host() == std::vector<std::int32_t>{40, 5, 60});

    v.push_back(7);
    v.push_back(8);
    CHECK(v.size() == 5);
    CHECK(v.to_host() == std::vector<std::int32_t>{40, 5, 60, 7, 8});
    v.pop_back();
    CHECK(v.to_host() == std::vector<std::int32_t>{40, 5, 60, 7});

    v.assign(3, 9);
    CHECK(v.to_host() == std::vector<std::int32_t>{9, 9, 9});
    v.assign(2, -1); // another length
    CHECK(v.to_host() == std::vector<std::int32_t>{-1, -1});
    const std::vector<std::int32_t> host = {1, 2, 3, 4, 5};
    v.assign(host.begin() + 1, host.end());
    CHECK(v.to_host() == std::vector<std::int32_t>{2, 3, 4, 5});

    std::vector<std::int32_t> backwards(v.rbegin(), v.rend());
    CHECK(backwards == std::vector<std::int32_t>{5, 4, 3, 2});
    const auto& cv = v;
    CHECK(std::vector<std::int32_t>(cv.rbegin(), cv.rend()) == backwards);

    v.clear();
    CHECK(v.empty());
    CHECK_THROWS_AS(v.front(), loom::error);
    CHECK_THROWS_AS(v.back(), loom::error);
    CHECK_THROWS_AS(v.pop_back(), loom::error);
    v.push_back(3); // a cleared vector keeps its context
    CHECK(v.to_host() == std::vector<std::int32_t>{3});

    loom::vector<std::int32_t> none;
    CHECK_THROWS_WITH_AS(none.assign(2, 1), doctest::Contains("construct it with a context"), loom::error);
    CHECK_THROWS_WITH_AS(none.push_back(1), doctest::Contains("resize(ctx, n)"), loom::error);
}

TEST_CASE("resize from a size, another vector, host data, and of empty vectors") {
    const std::vector<double> hx = {1.5, 2.5, 3.5};
    loom::vector<double> x(ctx(), hx);
    loom::vector<float> y(ctx(), 7, 9.0f);
    // resize(other): this vector becomes a copy of other (converted to its element type).
    y.resize(x);
    CHECK(y.to_host() == std::vector<float>{1.5f, 2.5f, 3.5f});
    x = x * 2.0; // still independent
    CHECK(y.to_host() == std::vector<float>{1.5f, 2.5f, 3.5f});
    // resize(host): the host vector's length and values.
    const std::vector<float> hz = {7, 8, 9, 10};
    y.resize(hz);
    CHECK(y.to_host() == hz);
    // A default-constructed vector takes everything from the vector it is resized to.
    loom::vector<double> fresh;
    fresh.resize(x);
    CHECK(fresh.to_host() == std::vector<double>{3, 5, 7});
    // resize(n) of a vector with no elements: built with size 0, or moved from.
    loom::vector<std::uint8_t> zero(ctx(), 0);
    zero.resize(3);
    CHECK(zero.to_host() == std::vector<std::uint8_t>(3, 0));
    loom::vector<std::uint8_t> taken(std::move(zero));
    zero.resize(2);
    CHECK(zero.to_host() == std::vector<std::uint8_t>(2, 0));
    CHECK(taken.to_host() == std::vector<std::uint8_t>(3, 0));
    // A default-constructed vector has no context: resize(ctx, n) gives it one.
    loom::vector<std::int16_t> none;
    CHECK_THROWS_WITH_AS(none.resize(4), doctest::Contains("resize(ctx, n)"), loom::error);
    CHECK_THROWS_AS(none.resize(std::vector<std::int16_t>{1, 2}), loom::error);
    none.resize(ctx(), 4);
    CHECK(none.to_host() == std::vector<std::int16_t>(4, 0));
    none[1] = 5;
    none.resize(ctx(), 2); // the same context: elements kept
    CHECK(none.to_host() == std::vector<std::int16_t>{0, 5});
    // resize to itself changes nothing.
    y.resize(y);
    CHECK(y.to_host() == hz);
}
