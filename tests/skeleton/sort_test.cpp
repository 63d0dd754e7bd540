// loom::sort and loom::sort_by_key (loom/sort.hpp) against std::stable_sort on the host: every
// key type, both directions, keys with many ties (stability), floating-point keys with NaN,
// infinities and signed zeros (IEEE 754 totalOrder), inputs that are expressions, several value
// vectors, and the sizes and edge cases of docs/sorting.md. The suite also runs in the GPU
// layout (LOOM_KERNEL_FORM=grid_stride: tiled passes, 4-bit digits).
#include "support.hpp"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <vector>

using namespace skeleton_test;

namespace {

// The permutation std::stable_sort gives the keys, ascending or descending.
template <class T> std::vector<std::size_t> stable_order(const std::vector<T>& keys, bool descending) {
    std::vector<std::size_t> p(keys.size());
    std::iota(p.begin(), p.end(), std::size_t(0));
    std::stable_sort(p.begin(), p.end(), [&](std::size_t a, std::size_t b) {
        return descending ? order_of(keys[a]) > order_of(keys[b]) : order_of(keys[a]) < order_of(keys[b]);
    });
    return p;
}

template <class T> bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

// Keys in [lo, hi] with every few a repeat of an earlier one, so that ties are common.
template <class T> std::vector<T> keys_with_ties(std::size_t n, T lo, T hi, std::uint64_t salt) {
    std::vector<T> k = random_values<T>(n, lo, hi, salt);
    for (std::size_t i = 3; i < n; i += 3) k[i] = k[i / 2];
    return k;
}

// sort and sort_by_key of keys of type T, both directions, against the stable host order.
template <class T> void check_key_type(T lo, T hi) {
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(255),
                          std::size_t(257), std::size_t(70001)}) {
        for (bool descending : {false, true}) {
            CAPTURE(n);
            CAPTURE(descending);
            const std::vector<T> h = keys_with_ties<T>(n, lo, hi, 11);
            const std::vector<std::size_t> order = stable_order(h, descending);
            std::vector<T> want_keys(n);
            std::vector<std::uint32_t> want_values(n);
            for (std::size_t i = 0; i < n; ++i) {
                want_keys[i] = h[order[i]];
                want_values[i] = std::uint32_t(order[i]);
            }
            loom::vector<T> keys(ctx(), h);
            if (descending)
                loom::sort(keys, loom::descending);
            else
                loom::sort(keys);
            CHECK(same_bits(keys.to_host(), want_keys));

            loom::vector<T> keys2(ctx(), h);
            std::vector<std::uint32_t> iota(n);
            std::iota(iota.begin(), iota.end(), 0u);
            loom::vector<std::uint32_t> values(ctx(), iota);
            if (descending)
                loom::sort_by_key(keys2, values, loom::descending);
            else
                loom::sort_by_key(keys2, values);
            CHECK(same_bits(keys2.to_host(), want_keys));
            CHECK(values.to_host() == want_values); // stable: equal keys keep their order
        }
    }
}

} // namespace

TEST_CASE("sort and sort_by_key of every integer key type match std::stable_sort, both directions") {
    check_key_type<std::int8_t>(-128, 127);
    check_key_type<std::uint8_t>(0, 255);
    check_key_type<std::int16_t>(-32768, 32767);
    check_key_type<std::uint16_t>(0, 65535);
    check_key_type<std::int32_t>(std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max());
    check_key_type<std::uint32_t>(0, std::numeric_limits<std::uint32_t>::max());
    check_key_type<std::int64_t>(std::numeric_limits<std::int64_t>::min() / 2,
                                 std::numeric_limits<std::int64_t>::max());
    check_key_type<std::uint64_t>(0, std::numeric_limits<std::uint64_t>::max() / 2);
}

TEST_CASE("sort and sort_by_key of float and double keys match std::stable_sort, both directions") {
    check_key_type<float>(-1e6f, 1e6f);
    check_key_type<double>(-1e12, 1e12);
}

TEST_CASE("floating-point keys sort in IEEE 754 totalOrder: NaNs at the ends, -0.0 before +0.0") {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    std::vector<float> h = random_values<float>(1000, -10.0f, 10.0f, 3);
    const float specials[] = {nan,
                              -nan,
                              inf,
                              -inf,
                              0.0f,
                              -0.0f,
                              std::numeric_limits<float>::denorm_min(),
                              -std::numeric_limits<float>::denorm_min(),
                              std::numeric_limits<float>::max(),
                              std::numeric_limits<float>::lowest()};
    for (std::size_t i = 0; i < h.size(); i += 7) h[i] = specials[(i / 7) % std::size(specials)];
    for (bool descending : {false, true}) {
        CAPTURE(descending);
        const std::vector<std::size_t> order = stable_order(h, descending);
        std::vector<float> want(h.size());
        for (std::size_t i = 0; i < h.size(); ++i) want[i] = h[order[i]];
        loom::vector<float> x(ctx(), h);
        if (descending)
            loom::sort(x, loom::descending);
        else
            loom::sort(x);
        const std::vector<float> got = x.to_host();
        CHECK(same_bits(got, want));
        // The order spelled out: ascending starts with -NaN and ends with +NaN.
        CHECK(std::isnan(got.front()));
        CHECK(std::signbit(got.front()) == !descending);
        CHECK(std::isnan(got.back()));
        CHECK(std::signbit(got.back()) == descending);
    }
    // -0.0 before +0.0, in double too.
    loom::vector<double> z(ctx(), std::vector<double>{0.0, -0.0, 0.0, -0.0});
    loom::sort(z);
    const std::vector<double> zh = z.to_host();
    CHECK(std::signbit(zh[0]));
    CHECK(std::signbit(zh[1]));
    CHECK(!std::signbit(zh[2]));
    CHECK(!std::signbit(zh[3]));
}

TEST_CASE("sort of an expression computes it in the first passes and sorts into the output") {
    const std::size_t n = 30001;
    const std::vector<float> h = random_values<float>(n, -100.0f, 100.0f, 5);
    loom::vector<float> x(ctx(), h), y(ctx(), n);
    loom::sort(x * x - 3.0f, y);
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = h[i] * h[i] - 3.0f;
    std::stable_sort(want.begin(), want.end());
    CHECK(y.to_host() == want);
    CHECK(x.to_host() == h); // the input is only read

    // Into its own input, converted to the output's type, descending.
    loom::vector<std::int32_t> k(ctx(), random_values<std::int32_t>(n, -1000, 1000, 6));
    const std::vector<std::int32_t> kh = k.to_host();
    loom::sort(k * 2 + 1, k, loom::descending);
    std::vector<std::int32_t> kw(n);
    for (std::size_t i = 0; i < n; ++i) kw[i] = kh[i] * 2 + 1;
    std::stable_sort(kw.begin(), kw.end(), [](std::int32_t a, std::int32_t b) { return a > b; });
    CHECK(k.to_host() == kw);

    // One key: the output still takes the expression's value.
    loom::vector<float> one(ctx(), std::vector<float>{3.0f}), one_out(ctx(), 1);
    loom::sort(one * 2.0f, one_out);
    CHECK(one_out.to_host() == std::vector<float>{6.0f});
    loom::sort(one - 1.0f, one_out, [](auto a, auto b) { return a < b; });
    CHECK(one_out.to_host() == std::vector<float>{2.0f});

    // A double expression sorted into float keys: converted first, then sorted as floats.
    loom::vector<double> d(ctx(), random_values<double>(n, -1.0, 1.0, 7));
    const std::vector<double> dh = d.to_host();
    loom::vector<float> f(ctx(), n);
    loom::sort(d * 3.0, f);
    std::vector<float> fw(n);
    for (std::size_t i = 0; i < n; ++i) fw[i] = float(dh[i] * 3.0);
    std::stable_sort(fw.begin(), fw.end());
    CHECK(f.to_host() == fw);
}

TEST_CASE("sort_by_key moves several value vectors of different types with the keys") {
    const std::size_t n = 4099;
    const std::vector<std::uint16_t> kh = keys_with_ties<std::uint16_t>(n, 0, 300, 9);
    const std::vector<double> ah = random_values<double>(n, -1.0, 1.0, 10);
    const std::vector<std::int8_t> bh = random_values<std::int8_t>(n, -100, 100, 11);
    std::vector<std::complex<float>> ch(n);
    for (std::size_t i = 0; i < n; ++i) ch[i] = {float(i), -float(i)};
    loom::vector<std::uint16_t> keys(ctx(), kh);
    loom::vector<double> a(ctx(), ah);
    loom::vector<std::int8_t> b(ctx(), bh);
    loom::vector<std::complex<float>> c(ctx(), ch);
    loom::sort_by_key(keys, loom::tie(a, b, c), loom::descending);
    const std::vector<std::size_t> order = stable_order(kh, true);
    std::vector<std::uint16_t> kw(n);
    std::vector<double> aw(n);
    std::vector<std::int8_t> bw(n);
    std::vector<std::complex<float>> cw(n);
    for (std::size_t i = 0; i < n; ++i) {
        kw[i] = kh[order[i]];
        aw[i] = ah[order[i]];
        bw[i] = bh[order[i]];
        cw[i] = ch[order[i]];
    }
    CHECK(keys.to_host() == kw);
    CHECK(a.to_host() == aw);
    CHECK(b.to_host() == bw);
    CHECK(c.to_host() == cw);
}

TEST_CASE("sort of sorted, reverse-sorted and all-equal keys, and at a million and one keys") {
    const std::size_t n = (1u << 20) + 1;
    std::vector<std::uint32_t> up(n), down(n), same(n, 7u);
    std::iota(up.begin(), up.end(), 0u);
    std::reverse_copy(up.begin(), up.end(), down.begin());
    for (const std::vector<std::uint32_t>* h : {&up, &down, &same}) {
        loom::vector<std::uint32_t> x(ctx(), *h);
        std::vector<std::uint32_t> iota(n);
        std::iota(iota.begin(), iota.end(), 0u);
        loom::vector<std::uint32_t> where(ctx(), iota);
        loom::sort_by_key(x, where);
        std::vector<std::uint32_t> want = *h;
        std::sort(want.begin(), want.end());
        CHECK(x.to_host() == want);
        const std::vector<std::size_t> order = stable_order(*h, false);
        const std::vector<std::uint32_t> got = where.to_host();
        bool stable = true;
        for (std::size_t i = 0; i < n; ++i) stable = stable && got[i] == order[i];
        CHECK(stable);
    }
    // Random floats at the same size.
    const std::vector<float> r = random_values<float>(n, -1e3f, 1e3f, 13);
    loom::vector<float> x(ctx(), r);
    loom::sort(x);
    std::vector<float> want = r;
    std::stable_sort(want.begin(), want.end());
    CHECK(x.to_host() == want);
}

TEST_CASE("sort refuses mismatched lengths, one vector as keys and values, and leaves them as they were") {
    const std::vector<float> kh = random_values<float>(100, -1.0f, 1.0f, 17);
    loom::vector<float> keys(ctx(), kh);
    loom::vector<std::int32_t> short_values(ctx(), std::vector<std::int32_t>(99, 4));
    CHECK_THROWS_AS(loom::sort_by_key(keys, short_values), loom::length_error);
    CHECK(keys.to_host() == kh);
    CHECK(short_values.to_host() == std::vector<std::int32_t>(99, 4));
    loom::vector<float> out(ctx(), 50);
    CHECK_THROWS_AS(loom::sort(keys, out), loom::length_error);
    CHECK(keys.to_host() == kh);
    CHECK_THROWS_AS(loom::sort_by_key(keys, keys), loom::error);
    CHECK(keys.to_host() == kh);
    loom::vector<float> other(ctx(), kh);
    CHECK_THROWS_AS(loom::sort_by_key(keys, loom::tie(other, other)), loom::error);
    CHECK(other.to_host() == kh);
    // Empty vectors sort to nothing; an empty output for keys that are not is refused.
    loom::vector<float> empty, empty2;
    loom::sort(empty);
    loom::sort_by_key(empty, empty2);
    CHECK_THROWS_AS(loom::sort(keys, empty), loom::length_error);
    CHECK(keys.to_host() == kh);
}

TEST_CASE("sort with a comparator (a merge sort) matches std::stable_sort with the same comparator") {
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(9), std::size_t(257),
                          std::size_t(4097), std::size_t(100003)}) {
        CAPTURE(n);
        // By absolute value: many ties (x and -x), so stability shows.
        const std::vector<std::int32_t> h = keys_with_ties<std::int32_t>(n, -500, 500, 21);
        loom::vector<std::int32_t> x(ctx(), h);
        std::vector<std::uint32_t> iota(n);
        std::iota(iota.begin(), iota.end(), 0u);
        loom::vector<std::uint32_t> where(ctx(), iota);
        loom::sort_by_key(x, where, [](auto a, auto b) { return loom::abs(a) < loom::abs(b); });
        std::vector<std::size_t> order(n);
        std::iota(order.begin(), order.end(), std::size_t(0));
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return std::abs(h[a]) < std::abs(h[b]); });
        std::vector<std::int32_t> want(n);
        std::vector<std::uint32_t> want_where(n);
        for (std::size_t i = 0; i < n; ++i) {
            want[i] = h[order[i]];
            want_where[i] = std::uint32_t(order[i]);
        }
        CHECK(x.to_host() == want);
        CHECK(where.to_host() == want_where);
    }
}

TEST_CASE("a comparator sort of an expression, with a captured scalar, equals the radix sort's order") {
    const std::size_t n = 50001;
    const std::vector<float> h = random_values<float>(n, -100.0f, 100.0f, 23);
    loom::vector<float> x(ctx(), h), by_merge(ctx(), n), by_radix(ctx(), n);
    const float pivot = 10.0f;
    // Descending distance from the pivot.
    loom::sort(x * 2.0f, by_merge, [pivot](auto a, auto b) { return loom::abs(a - pivot) > loom::abs(b - pivot); });
    std::vector<float> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = h[i] * 2.0f;
    std::stable_sort(want.begin(), want.end(),
                     [&](float a, float b) { return std::abs(a - pivot) > std::abs(b - pivot); });
    CHECK(by_merge.to_host() == want);
    // A plain less-than: the same order as the radix sort's.
    loom::sort(x, by_merge, [](auto a, auto b) { return a < b; });
    loom::sort(x, by_radix);
    CHECK(by_merge.to_host() == by_radix.to_host());
    // Several value vectors.
    loom::vector<float> keys(ctx(), h);
    loom::vector<double> a(ctx(), random_values<double>(n, 0.0, 1.0, 24));
    loom::vector<std::int16_t> b(ctx(), random_values<std::int16_t>(n, -9, 9, 25));
    const std::vector<double> ah = a.to_host();
    const std::vector<std::int16_t> bh = b.to_host();
    loom::sort_by_key(keys, loom::tie(a, b), [](auto p, auto q) { return p > q; });
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t p, std::size_t q) { return h[p] > h[q]; });
    std::vector<double> aw(n);
    std::vector<std::int16_t> bw(n);
    for (std::size_t i = 0; i < n; ++i) {
        aw[i] = ah[order[i]];
        bw[i] = bh[order[i]];
    }
    CHECK(a.to_host() == aw);
    CHECK(b.to_host() == bw);
}

TEST_CASE("a comparator that is no strict weak order ends, in bounds, with the keys' length unchanged") {
    const std::size_t n = 10007;
    loom::vector<std::int32_t> x(ctx(), random_values<std::int32_t>(n, -50, 50, 27));
    loom::sort(x, [](auto a, auto b) { return a <= b; });           // not irreflexive
    loom::sort(x, [](auto a, auto b) { return (a ^ b) % 3 == 1; }); // not transitive
    CHECK(x.size() == n);
    CHECK(loom::all_of(x >= -50 && x <= 50)); // every key is one of the input's
}
