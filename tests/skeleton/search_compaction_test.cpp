// Searching and compaction (loom/search.hpp, loom/compaction.hpp) against the standard
// library's algorithms on the host: find_if, min/max_element, the *_of and count_if; copy_if,
// remove_if, partition, unique and reverse, with expression and traced predicates, at sizes
// that are not multiples of any group, empty and one-element inputs, and outputs too short.
#include "support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "launch/skeleton_geometry.hpp"
#include "runtime/context_impl.hpp"

using namespace skeleton_test;

TEST_CASE("find_if, find, count_if and the *_of match the standard library's, none found included") {
    for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(4099), std::size_t(100003)}) {
        CAPTURE(n);
        const std::vector<std::int32_t> h = random_values<std::int32_t>(n, -1000, 1000, n);
        loom::vector<std::int32_t> x(ctx(), h);
        const auto first_big = std::find_if(h.begin(), h.end(), [](std::int32_t v) { return v > 990; });
        CHECK(loom::find_if(x > 990) == std::uint64_t(first_big - h.begin()));
        CHECK(loom::find_if(x > 5000) == n); // none: the length
        CHECK(loom::find(x, h[n / 2]) == std::uint64_t(std::find(h.begin(), h.end(), h[n / 2]) - h.begin()));
        CHECK(loom::count_if(x % 3 == 0) ==
              std::uint64_t(std::count_if(h.begin(), h.end(), [](std::int32_t v) { return v % 3 == 0; })));
        CHECK(loom::all_of(x >= -1000) == true);
        CHECK(loom::any_of(x > 1000) == false);
        CHECK(loom::none_of(x > 1000) == true);
        CHECK(loom::none_of(x == h[0]) == false);
    }
}

TEST_CASE("min_element, max_element and minmax_element give the first extreme's index; NaN is skipped") {
    const std::size_t n = 30011;
    std::vector<float> h = random_values<float>(n, -100.0f, 100.0f, 1);
    h[17] = -500.0f;
    h[20000] = -500.0f; // a tie: the first counts
    h[9] = 600.0f;
    h[10] = std::numeric_limits<float>::quiet_NaN();
    loom::vector<float> x(ctx(), h);
    const loom::element<float> lo = loom::min_element(x);
    CHECK(lo.value == -500.0f);
    CHECK(lo.index == 17);
    const loom::element<float> hi = loom::max_element(x);
    CHECK(hi.value == 600.0f);
    CHECK(hi.index == 9);
    const auto [a, b] = loom::minmax_element(x * -1.0f); // fused: the extremes swap
    CHECK(a.value == -600.0f);
    CHECK(a.index == 9);
    CHECK(b.value == 500.0f);
    CHECK(b.index == 17);
    // Integers, against std::min_element.
    const std::vector<std::int64_t> hi64 = random_values<std::int64_t>(n, -50, 50, 2);
    loom::vector<std::int64_t> y(ctx(), hi64);
    const auto want = std::min_element(hi64.begin(), hi64.end());
    CHECK(loom::min_element(y).index == std::uint64_t(want - hi64.begin()));
    CHECK(loom::max_element(y).index ==
          std::uint64_t(std::max_element(hi64.begin(), hi64.end()) - hi64.begin()));
}

namespace {

// std::min_element's and std::max_element's answer with NaN skipped and the two zeros equal
// (what loom::min_element promises), as {value, index}; {identity, n} with no number at all.
template <bool Largest, class T> loom::element<T> host_extremum(const std::vector<T>& h) {
    std::uint64_t at = h.size();
    for (std::uint64_t i = 0; i < h.size(); ++i) {
        if (h[i] != h[i]) continue; // NaN
        if (at == h.size() || (Largest ? h[at] < h[i] : h[i] < h[at])) at = i;
    }
    if (at == h.size()) {
        using lim = std::numeric_limits<T>;
        const T none = lim::has_infinity ? (Largest ? -lim::infinity() : lim::infinity())
                                         : (Largest ? lim::lowest() : lim::max());
        return {none, h.size()};
    }
    return {h[at], at};
}

template <class T> void check_extrema(const std::vector<T>& h, const std::string& what) {
    CAPTURE(what);
    CAPTURE(h.size());
    loom::vector<T> x = h.empty() ? loom::vector<T>(ctx(), 0) : loom::vector<T>(ctx(), h);
    const std::uint64_t before = ctx().statistics().kernels_launched;
    const loom::element<T> lo = loom::min_element(x), hi = loom::max_element(x);
    const std::uint64_t launched = ctx().statistics().kernels_launched - before;
    const loom::element<T> want_lo = host_extremum<false>(h), want_hi = host_extremum<true>(h);
    CHECK(lo.index == want_lo.index);
    CHECK(hi.index == want_hi.index);
    CHECK(lo.value == want_lo.value);
    CHECK(hi.value == want_hi.value);
    // One reduction each (a first pass and, past one group's elements, a pass over the partials),
    // not a reduction and then a search.
    if (!h.empty()) CHECK(launched <= 4);
}

template <class T> std::vector<T> extreme_values(std::size_t n, std::uint64_t seed) {
    using lim = std::numeric_limits<T>;
    std::vector<T> h(n);
    // Few distinct values, so the extremes repeat and the first place counts.
    const std::vector<std::int32_t> r = random_values<std::int32_t>(n, -40, 40, seed);
    for (std::size_t i = 0; i < n; ++i) h[i] = T(std::is_signed_v<T> ? r[i] : r[i] + 40);
    if (n > 40) {
        h[n / 3] = lim::lowest();
        h[n / 2] = lim::max();
        h[n / 3 + 1] = lim::lowest(); // a second lowest: the first is found
        h[n - 1] = lim::max();
    }
    return h;
}

} // namespace

TEST_CASE_TEMPLATE("min_element and max_element of values of up to 32 bits are one reduction of (value, index) "
                   "keys, with the standard library's answers",
                   T, std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t, float) {
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(1000), std::size_t(70001)})
        check_extrema(extreme_values<T>(n, 40 + n), "random, extremes placed twice");
    check_extrema(std::vector<T>(5000, T(1)), "all equal");
}

TEST_CASE("min_element and max_element of floats: NaN of either sign skipped, zeros equal, infinities found") {
    using lim = std::numeric_limits<float>;
    const float nan = lim::quiet_NaN(), inf = lim::infinity();
    check_extrema(std::vector<float>{nan, -nan, 3.0f, -nan, 2.0f, nan}, "NaN of both signs around numbers");
    check_extrema(std::vector<float>{nan, -nan, nan}, "no number");
    check_extrema(std::vector<float>{0.0f, -0.0f, 1.0f, -0.0f}, "zeros: the first is the minimum");
    check_extrema(std::vector<float>{-0.0f, 0.0f, -1.0f, 0.0f, -1.0f}, "a negative minimum");
    check_extrema(std::vector<float>{inf, -inf, nan, inf, -inf}, "infinities");
    check_extrema(std::vector<float>{lim::denorm_min(), -lim::denorm_min(), lim::min(), -lim::max(), lim::max()},
                  "denormals and the extremes");
    std::vector<float> h = random_values<float>(100003, -1.0f, 1.0f, 41);
    for (std::size_t i = 0; i < h.size(); i += 7) h[i] = -nan;
    check_extrema(h, "every seventh a negative NaN");
    // A zero minimum comes back as +0.0 (docs/search-and-compaction.md).
    loom::vector<float> z(ctx(), std::vector<float>{1.0f, -0.0f, 2.0f});
    CHECK(!std::signbit(loom::min_element(z).value));
    // An expression's extremes, the key fused with it.
    loom::vector<float> x(ctx(), std::vector<float>{1.0f, -2.0f, 4.0f, -4.0f, 2.0f});
    const loom::element<float> m = loom::max_element(x * x);
    CHECK(m.value == 16.0f);
    CHECK(m.index == 2);
}

TEST_CASE("copy_if and remove_if are stable, with expression and traced predicates; the count is returned") {
    for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(65537)}) {
        CAPTURE(n);
        const std::vector<float> h = random_values<float>(n, -1.0f, 1.0f, 10 + n);
        loom::vector<float> x(ctx(), h), y(ctx(), n, -7.0f);
        std::vector<float> want;
        std::copy_if(h.begin(), h.end(), std::back_inserter(want), [](float v) { return v > 0.25f; });
        ctx().finish();
        const std::uint64_t launched = ctx().statistics().kernels_launched;
        const std::uint64_t kept = loom::copy_if(x, x > 0.25f, y);
        REQUIRE(kept == want.size());
        // One pass after the tiles' status is cleared (GPUs, the output with room for every
        // element), or three over chunks.
        const auto geo = loom::launch::compact_geometry_for(ctx().impl()->info(), ctx().impl()->settings().form, n, n);
        CHECK(ctx().statistics().kernels_launched - launched == (geo.single_pass ? 2u : 3u));
        std::vector<float> got = y.to_host();
        CHECK(std::vector<float>(got.begin(), got.begin() + kept) == want);
        CHECK(std::all_of(got.begin() + kept, got.end(), [](float v) { return v == -7.0f; })); // untouched
        // The values an expression, the predicate a traced function of them.
        want.clear();
        for (float v : h)
            if (!(2 * v > 0.5f)) want.push_back(2 * v);
        const std::uint64_t removed = loom::remove_if(x * 2.0f, [](auto v) { return v > 0.5f; }, y);
        REQUIRE(removed == want.size());
        got = y.to_host();
        CHECK(std::vector<float>(got.begin(), got.begin() + removed) == want);
    }
}

TEST_CASE("partition is stable and returns the split; unique keeps the first of each run; reverse") {
    const std::size_t n = 5003;
    std::vector<std::int32_t> h = random_values<std::int32_t>(n, 0, 9, 20);
    loom::vector<std::int32_t> x(ctx(), h), y(ctx(), n);
    std::vector<std::int32_t> want = h;
    const auto split = std::stable_partition(want.begin(), want.end(), [](std::int32_t v) { return v < 4; });
    CHECK(loom::partition(x, x < 4, y) == std::uint64_t(split - want.begin()));
    CHECK(y.to_host() == want);

    std::vector<std::int32_t> runs;
    for (std::size_t i = 0; i < n; ++i) runs.push_back(std::int32_t(i / 3 % 5)); // runs of 3, values cycling
    loom::vector<std::int32_t> r(ctx(), runs);
    std::vector<std::int32_t> want_unique;
    std::unique_copy(runs.begin(), runs.end(), std::back_inserter(want_unique));
    const std::uint64_t distinct = loom::unique(r, y);
    REQUIRE(distinct == want_unique.size());
    const std::vector<std::int32_t> got = y.to_host();
    CHECK(std::vector<std::int32_t>(got.begin(), got.begin() + distinct) == want_unique);

    loom::reverse(x);
    CHECK(x.to_host() == std::vector<std::int32_t>(h.rbegin(), h.rend()));
    loom::reverse_copy(x, y);
    CHECK(y.to_host() == h);
}

TEST_CASE("compaction errors: an output too short is a length_error that leaves it as it was; empty input") {
    const std::vector<float> h{1, 2, 3, 4, 5, 6};
    loom::vector<float> x(ctx(), h), small(ctx(), 2, 9.0f);
    CHECK_THROWS_AS(loom::copy_if(x, x > 1.0f, small), loom::length_error);
    CHECK(small.to_host() == std::vector<float>{9.0f, 9.0f});
    CHECK_THROWS_AS(loom::partition(x, x > 1.0f, small), loom::length_error);
    CHECK(loom::copy_if(x, x > 4.0f, small) == 2);
    CHECK(small.to_host() == std::vector<float>{5.0f, 6.0f});
    // The output one of the values' or the predicate's vectors: a loom::error, nothing written.
    CHECK_THROWS_AS(loom::copy_if(x, x > 4.0f, x), loom::error);
    CHECK_THROWS_AS(loom::copy_if(small, x > 4.0f, x), loom::error);
    CHECK(x.to_host() == h);
    loom::vector<float> empty(ctx(), 0);
    CHECK(loom::copy_if(empty, empty > 0.0f, small) == 0);
    CHECK(loom::find_if(empty > 0.0f) == 0);
    loom::vector<float> shorter(ctx(), 5);
    CHECK_THROWS_AS(loom::reverse_copy(x, shorter), loom::length_error);
}
