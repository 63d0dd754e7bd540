// loom::merge and loom::merge_by_key (loom/merge.hpp) against std::merge on the host: every key
// kind, both directions, inputs of unequal lengths (one empty), many ties (a's keys first),
// floating-point keys with NaN, infinities and signed zeros (totalOrder), a comparator with a
// captured scalar, and the refusals. The suite also runs in the GPU layout (LOOM_KERNEL_FORM=
// grid_stride: 8 outputs a work-item).
#include "support.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

using namespace skeleton_test;

namespace {

// n keys in [lo, hi] in the merge's order, with ties.
template <class T> std::vector<T> sorted_keys(std::size_t n, T lo, T hi, bool descending, std::uint64_t salt) {
    std::vector<T> k = random_values<T>(n, lo, hi, salt);
    for (std::size_t i = 3; i < n; i += 3) k[i] = k[i / 2];
    std::stable_sort(k.begin(), k.end(),
                     [&](T x, T y) { return descending ? order_of(x) > order_of(y) : order_of(x) < order_of(y); });
    return k;
}

// The host's merge of (keys, values) pairs: std::merge is stable, a's first among equals.
template <class T>
std::vector<std::pair<T, std::uint32_t>> host_merge(const std::vector<T>& a, const std::vector<T>& b, bool descending) {
    std::vector<std::pair<T, std::uint32_t>> pa, pb, out(a.size() + b.size());
    for (std::size_t i = 0; i < a.size(); ++i) pa.emplace_back(a[i], std::uint32_t(i));
    for (std::size_t j = 0; j < b.size(); ++j) pb.emplace_back(b[j], std::uint32_t(a.size() + j));
    std::merge(pa.begin(), pa.end(), pb.begin(), pb.end(), out.begin(), [&](const auto& x, const auto& y) {
        return descending ? order_of(x.first) > order_of(y.first) : order_of(x.first) < order_of(y.first);
    });
    return out;
}

template <class T> std::vector<std::uint64_t> orders(const std::vector<T>& keys) {
    std::vector<std::uint64_t> o;
    for (T k : keys) o.push_back(order_of(k));
    return o;
}

// merge and merge_by_key of T keys, both directions, against the host (keys compared bit for bit,
// through their order).
template <class T> void check_key_type(T lo, T hi) {
    const std::pair<std::size_t, std::size_t> lengths[] = {{0, 0},   {0, 5},   {7, 0},     {1, 1},
                                                           {3, 250}, {257, 2}, {255, 257}, {40000, 30001}};
    for (const auto& [na, nb] : lengths)
        for (bool descending : {false, true}) {
            CAPTURE(na);
            CAPTURE(nb);
            CAPTURE(descending);
            const std::vector<T> ha = sorted_keys<T>(na, lo, hi, descending, 1),
                                 hb = sorted_keys<T>(nb, lo, hi, descending, 2);
            const auto want = host_merge(ha, hb, descending);
            std::vector<T> want_keys;
            std::vector<std::uint32_t> want_values;
            for (const auto& [k, v] : want) {
                want_keys.push_back(k);
                want_values.push_back(v);
            }
            loom::vector<T> a(ctx(), ha), b(ctx(), hb), out(ctx(), na + nb);
            if (descending)
                loom::merge(a, b, out, loom::descending);
            else
                loom::merge(a, b, out);
            CHECK(orders(out.to_host()) == orders(want_keys));

            std::vector<std::uint32_t> ia(na), ib(nb);
            std::iota(ia.begin(), ia.end(), 0u);
            std::iota(ib.begin(), ib.end(), std::uint32_t(na));
            loom::vector<std::uint32_t> va(ctx(), ia), vb(ctx(), ib), values(ctx(), na + nb);
            loom::vector<T> keys(ctx(), na + nb);
            if (descending)
                loom::merge_by_key(a, b, va, vb, keys, values, loom::descending);
            else
                loom::merge_by_key(a, b, va, vb, keys, values);
            CHECK(orders(keys.to_host()) == orders(want_keys));
            CHECK(values.to_host() == want_values);
        }
}

} // namespace

TEST_CASE("merge and merge_by_key of integer keys match std::merge, both directions, a's ties first") {
    check_key_type<std::int8_t>(-100, 100);
    check_key_type<std::uint16_t>(0, 60000);
    check_key_type<std::int32_t>(-1000, 1000);
    check_key_type<std::uint64_t>(0, std::numeric_limits<std::uint64_t>::max() / 3);
}

TEST_CASE("merge and merge_by_key of float and double keys match std::merge, both directions") {
    check_key_type<float>(-1e3f, 1e3f);
    check_key_type<double>(-1e6, 1e6);
}

TEST_CASE("floating-point keys merge in IEEE 754 totalOrder: -0.0 before +0.0, NaNs at the ends") {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> ha = {-nan, -inf, -1.0f, -0.0f, 0.0f, 2.0f, nan};
    const std::vector<float> hb = {-inf, -0.0f, -0.0f, 0.0f, 1.0f, inf, inf, nan};
    loom::vector<float> a(ctx(), ha), b(ctx(), hb), out(ctx(), ha.size() + hb.size());
    loom::merge(a, b, out);
    std::vector<float> want;
    for (const auto& [k, v] : host_merge(ha, hb, false)) want.push_back(k);
    CHECK(orders(out.to_host()) == orders(want));
}

TEST_CASE("merge with a comparator (a captured scalar) matches std::merge with the same comparator") {
    const std::int32_t pivot = 7;
    const auto by_distance = [&](std::int32_t x, std::int32_t y) { return std::abs(x - pivot) < std::abs(y - pivot); };
    for (const auto& [na, nb] : {std::pair<std::size_t, std::size_t>{0, 9}, {1, 1}, {300, 4001}, {50001, 20000}}) {
        CAPTURE(na);
        CAPTURE(nb);
        std::vector<std::int32_t> ha = random_values<std::int32_t>(na, -200, 200, 3);
        std::vector<std::int32_t> hb = random_values<std::int32_t>(nb, -200, 200, 4);
        std::stable_sort(ha.begin(), ha.end(), by_distance);
        std::stable_sort(hb.begin(), hb.end(), by_distance);
        std::vector<std::int32_t> want(na + nb);
        std::merge(ha.begin(), ha.end(), hb.begin(), hb.end(), want.begin(), by_distance);
        std::vector<double> da(ha.begin(), ha.end()), db(hb.begin(), hb.end()), dwant(want.begin(), want.end());
        loom::vector<std::int32_t> a(ctx(), ha), b(ctx(), hb), out(ctx(), na + nb);
        loom::merge(a, b, out, [pivot](auto x, auto y) { return loom::abs(x - pivot) < loom::abs(y - pivot); });
        CHECK(out.to_host() == want); // (equal keys are equal values: a's first shows in the values below)
        loom::vector<double> va(ctx(), da), vb(ctx(), db), values(ctx(), na + nb);
        loom::vector<std::int32_t> keys(ctx(), na + nb);
        loom::merge_by_key(a, b, va, vb, keys, values,
                           [pivot](auto x, auto y) { return loom::abs(x - pivot) < loom::abs(y - pivot); });
        CHECK(keys.to_host() == want);
        CHECK(values.to_host() == dwant);
    }
}

TEST_CASE("merge_by_key moves several value vectors (loom::tie) of different types with the keys") {
    const std::size_t na = 3001, nb = 1999;
    const std::vector<std::int32_t> ha = sorted_keys<std::int32_t>(na, -300, 300, false, 5);
    const std::vector<std::int32_t> hb = sorted_keys<std::int32_t>(nb, -300, 300, false, 6);
    const auto want = host_merge(ha, hb, false); // (key, place in a ++ b)
    std::vector<double> pa(na), pb(nb);
    std::vector<std::int64_t> qa(na), qb(nb);
    for (std::size_t i = 0; i < na; ++i) {
        pa[i] = 0.5 * double(i);
        qa[i] = -std::int64_t(i);
    }
    for (std::size_t j = 0; j < nb; ++j) {
        pb[j] = 0.5 * double(na + j);
        qb[j] = -std::int64_t(na + j);
    }
    loom::vector<std::int32_t> a(ctx(), ha), b(ctx(), hb), keys(ctx(), na + nb);
    loom::vector<double> dpa(ctx(), pa), dpb(ctx(), pb), p(ctx(), na + nb);
    loom::vector<std::int64_t> dqa(ctx(), qa), dqb(ctx(), qb), q(ctx(), na + nb);
    loom::merge_by_key(a, b, loom::tie(dpa, dqa), loom::tie(dpb, dqb), keys, loom::tie(p, q));
    std::vector<std::int32_t> want_keys;
    std::vector<double> want_p;
    std::vector<std::int64_t> want_q;
    for (const auto& [k, place] : want) {
        want_keys.push_back(k);
        want_p.push_back(0.5 * double(place));
        want_q.push_back(-std::int64_t(place));
    }
    CHECK(keys.to_host() == want_keys);
    CHECK(p.to_host() == want_p);
    CHECK(q.to_host() == want_q);
    // A value vector of the wrong length is named in the error.
    loom::vector<double> short_p(ctx(), nb - 1);
    CHECK_THROWS_WITH_AS(loom::merge_by_key(a, b, loom::tie(dpa, dqa), loom::tie(short_p, dqb), keys, loom::tie(p, q)),
                         doctest::Contains("second input's values 1"), loom::length_error);
}

TEST_CASE("merge of statements' results: pending statements run first, and a merge feeds later ones") {
    const std::size_t n = 1000;
    std::vector<float> h(n);
    std::iota(h.begin(), h.end(), 0.0f);
    loom::vector<float> x(ctx(), h), a(ctx(), n), b(ctx(), n), out(ctx(), 2 * n), y(ctx(), 2 * n);
    a = 2.0f * x;        // even numbers
    b = 2.0f * x + 1.0f; // odd numbers
    loom::merge(a, b, out);
    y = out + 1.0f;
    std::vector<float> want(2 * n);
    for (std::size_t i = 0; i < 2 * n; ++i) want[i] = float(i) + 1.0f;
    CHECK(y.to_host() == want);
}

TEST_CASE("merge refuses outputs of the wrong length, an output that is an input, and another context") {
    const std::vector<std::int32_t> ha = {1, 3, 5}, hb = {2, 4};
    loom::vector<std::int32_t> a(ctx(), ha), b(ctx(), hb), out(ctx(), std::vector<std::int32_t>(4, -1));
    CHECK_THROWS_AS(loom::merge(a, b, out), loom::length_error);
    CHECK(out.to_host() == std::vector<std::int32_t>(4, -1));
    loom::vector<std::int32_t> five(ctx(), std::vector<std::int32_t>(5, 0)),
        self(ctx(), std::vector<std::int32_t>{1, 2});
    loom::vector<std::int32_t> empty(ctx(), 0);
    CHECK_THROWS_WITH_AS(loom::merge(self, empty, self), doctest::Contains("merge into a vector of its own"),
                         loom::error);
    CHECK(self.to_host() == std::vector<std::int32_t>{1, 2});
    loom::vector<std::int32_t> none; // no context, no elements
    CHECK_THROWS_AS(loom::merge(a, b, none), loom::length_error);
    loom::context other;
    loom::vector<std::int32_t> elsewhere(other, 5);
    CHECK_THROWS_AS(loom::merge(a, b, elsewhere), loom::error);
    loom::vector<float> va(ctx(), 2), vb(ctx(), 2), values(ctx(), 5); // a's values one short
    CHECK_THROWS_AS(loom::merge_by_key(a, b, va, vb, five, values), loom::length_error);
    // An empty input (even one without a context) merges as nothing.
    loom::vector<std::int32_t> two(ctx(), 2);
    CHECK_THROWS_AS(loom::merge(none, b, out), loom::length_error);
    loom::merge(none, b, two);
    CHECK(two.to_host() == hb);
}
