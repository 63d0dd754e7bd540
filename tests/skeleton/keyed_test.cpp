// Keyed operations (loom/keyed.hpp) against host loops over the segments of equal consecutive
// keys: inclusive and exclusive scans by key with + and a traced operation, reduce_by_key with
// sum, max and a captured scalar, expression keys and values, one long segment, every element
// its own segment, NaN keys, the sizes of the scan suite, and outputs too short.
#include "support.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace skeleton_test;

namespace {

// Keys in runs of random lengths (1 to max_run) of random values in [0, 5]: neighbouring runs may
// share a value, and then are one segment.
std::vector<std::int32_t> run_keys(std::size_t n, std::size_t max_run, std::uint64_t salt) {
    const std::vector<std::int32_t> lengths = random_values<std::int32_t>(n + 1, 1, std::int32_t(max_run), salt);
    const std::vector<std::int32_t> values = random_values<std::int32_t>(n + 1, 0, 5, salt + 1);
    std::vector<std::int32_t> k;
    for (std::size_t r = 0; k.size() < n; ++r) k.insert(k.end(), std::size_t(lengths[r]), values[r]);
    k.resize(n);
    return k;
}

template <class K> bool head(const std::vector<K>& k, std::size_t i) { return i == 0 || !(k[i] == k[i - 1]); }

template <class K, class T, class Op> std::vector<T> host_scan_by_key(const std::vector<K>& k, const std::vector<T>& v,
                                                                      bool exclusive, T init, T identity, Op op) {
    std::vector<T> out(v.size());
    T carry = identity;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (head(k, i)) carry = exclusive ? init : identity;
        if (exclusive) {
            out[i] = carry;
            carry = op(carry, v[i]);
        } else {
            carry = op(carry, v[i]);
            out[i] = carry;
        }
    }
    return out;
}

} // namespace

TEST_CASE("inclusive and exclusive scans by key match a host loop, at every size of the scan suite") {
    for (std::size_t n : sizes()) {
        for (std::size_t max_run : {std::size_t(1), std::size_t(7), std::size_t(5000)}) {
            CAPTURE(n);
            CAPTURE(max_run);
            const std::vector<std::int32_t> kh = run_keys(n, max_run, n + max_run);
            const std::vector<std::int64_t> vh = random_values<std::int64_t>(n, -1000, 1000, 3);
            loom::vector<std::int32_t> k(ctx(), kh);
            loom::vector<std::int64_t> v(ctx(), vh), out(ctx(), n);
            const auto plus = [](std::int64_t a, std::int64_t b) { return a + b; };
            loom::inclusive_scan_by_key(k, v, out);
            CHECK(out.to_host() == host_scan_by_key(kh, vh, false, std::int64_t(0), std::int64_t(0), plus));
            loom::exclusive_scan_by_key(k, v, out, std::int64_t(5));
            CHECK(out.to_host() == host_scan_by_key(kh, vh, true, std::int64_t(5), std::int64_t(0), plus));
            // max, as a traced operation with its identity.
            const std::int64_t lowest = std::numeric_limits<std::int64_t>::lowest();
            loom::inclusive_scan_by_key(k, v, out, lowest, [](auto a, auto b) { return loom::max(a, b); });
            CHECK(out.to_host() == host_scan_by_key(kh, vh, false, lowest, lowest,
                                                    [](std::int64_t a, std::int64_t b) { return std::max(a, b); }));
        }
    }
}

TEST_CASE("keyed scans take expressions as keys and values, fused into their passes") {
    const std::size_t n = 100003;
    const std::vector<std::int32_t> raw = random_values<std::int32_t>(n, 0, 99999, 5);
    std::vector<std::int32_t> sorted = raw;
    std::sort(sorted.begin(), sorted.end());
    // Small integers: every partial sum is exact in float, whatever the order the passes add in.
    std::vector<float> vh(n);
    const std::vector<std::int32_t> small = random_values<std::int32_t>(n, 0, 9, 6);
    for (std::size_t i = 0; i < n; ++i) vh[i] = float(small[i]);
    loom::vector<std::int32_t> k(ctx(), sorted);
    loom::vector<float> v(ctx(), vh), out(ctx(), n);
    // Keys k / 1000 (segments of about 1000), values 2v + 1, an exclusive scan from 0.5.
    loom::exclusive_scan_by_key(k / 1000, v * 2.0f + 1.0f, out, 0.5f);
    std::vector<std::int32_t> kk(n);
    std::vector<float> vv(n);
    for (std::size_t i = 0; i < n; ++i) {
        kk[i] = sorted[i] / 1000;
        vv[i] = vh[i] * 2.0f + 1.0f;
    }
    CHECK(out.to_host() == host_scan_by_key(kk, vv, true, 0.5f, 0.0f, [](float a, float b) { return a + b; }));
}

TEST_CASE("NaN keys are each a segment of their own; the output may not be a keys' or values' vector") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> kh = {1.0f, 1.0f, nan, nan, 2.0f, 2.0f, 2.0f};
    loom::vector<float> k(ctx(), kh), v(ctx(), std::vector<float>(7, 1.0f)), out(ctx(), 7);
    loom::inclusive_scan_by_key(k, v, out);
    CHECK(out.to_host() == std::vector<float>{1, 2, 1, 1, 1, 2, 3});
    CHECK_THROWS_AS(loom::inclusive_scan_by_key(k, v, v), loom::error);
    loom::vector<float> shorter(ctx(), 6);
    CHECK_THROWS_AS(loom::inclusive_scan_by_key(k, v, shorter), loom::length_error);
}

TEST_CASE("reduce_by_key gives each segment's key and sum, max or user operation, and the count") {
    for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(1000), std::size_t(65537)}) {
        for (std::size_t max_run : {std::size_t(1), std::size_t(40), std::size_t(100000)}) {
            CAPTURE(n);
            CAPTURE(max_run);
            const std::vector<std::int32_t> kh = run_keys(n, max_run, 9 + n);
            const std::vector<double> vh = random_values<double>(n, -1.0, 1.0, 10);
            std::vector<std::int32_t> want_keys;
            std::vector<double> want_sum, want_max;
            for (std::size_t i = 0; i < n; ++i) {
                if (head(kh, i)) {
                    want_keys.push_back(kh[i]);
                    want_sum.push_back(0.0);
                    want_max.push_back(-INFINITY);
                }
                want_sum.back() += vh[i];
                want_max.back() = std::max(want_max.back(), vh[i]);
            }
            const std::size_t m = want_keys.size();
            loom::vector<std::int32_t> k(ctx(), kh), keys_out(ctx(), n);
            loom::vector<double> v(ctx(), vh), values_out(ctx(), n);
            CHECK(loom::reduce_by_key(k, v, keys_out, values_out) == m);
            std::vector<std::int32_t> got_keys = keys_out.to_host();
            std::vector<double> got = values_out.to_host();
            got_keys.resize(m);
            got.resize(m);
            CHECK(got_keys == want_keys);
            // A segment across chunks is added in another order than the host's loop: within the
            // bound gamma_k * sum |v| (k: the segment's length, the longest chain of additions).
            bool close = true;
            for (std::size_t s = 0; s < m; ++s)
                close = close && std::abs(got[s] - want_sum[s]) <= gamma<double>(n) * double(n);
            CHECK(close);
            CHECK(loom::reduce_by_key(k, v, keys_out, values_out, -INFINITY,
                                      [](auto a, auto b) { return loom::max(a, b); }) == m);
            got = values_out.to_host();
            got.resize(m);
            CHECK(got == want_max);
        }
    }
}

TEST_CASE("reduce_by_key of an expression with a captured scalar, and outputs too short left unwritten") {
    const std::vector<std::uint8_t> kh = {3, 3, 3, 9, 9, 3, 0};
    const std::vector<float> vh = {1, 2, 3, 4, 5, 6, 7};
    loom::vector<std::uint8_t> k(ctx(), kh), keys_out(ctx(), 4);
    loom::vector<float> v(ctx(), vh), values_out(ctx(), 4);
    const float scale = 10.0f;
    // The sum of scaled values, as a user operation capturing `scale`: op(a, b) = a + scale * b.
    CHECK(loom::reduce_by_key(k, v + 1.0f, keys_out, values_out, 0.0f,
                              [scale](auto a, auto b) { return a + scale * b; }) == 4);
    CHECK(keys_out.to_host() == std::vector<std::uint8_t>{3, 9, 3, 0});
    CHECK(values_out.to_host() == std::vector<float>{90, 110, 70, 80});
    // Keys written in a wider type, into outputs of exactly the segments' count.
    loom::vector<std::int64_t> wide_keys(ctx(), 4);
    CHECK(loom::reduce_by_key(k, v, wide_keys, values_out) == 4);
    CHECK(wide_keys.to_host() == std::vector<std::int64_t>{3, 9, 3, 0});
    CHECK(values_out.to_host() == std::vector<float>{6, 9, 6, 7});
    // One vector for both outputs, or an input as an output: a loom::error.
    loom::vector<float> both(ctx(), 7);
    CHECK_THROWS_AS(loom::reduce_by_key(k, v, both, both), loom::error);
    CHECK_THROWS_AS(loom::reduce_by_key(k, v, k, values_out), loom::error);
    // Three segments' room for four: both outputs unchanged.
    loom::vector<std::uint8_t> small_keys(ctx(), std::vector<std::uint8_t>(3, 77));
    loom::vector<float> big_values(ctx(), std::vector<float>(7, -1.0f));
    CHECK_THROWS_AS(loom::reduce_by_key(k, v, small_keys, big_values), loom::length_error);
    CHECK(small_keys.to_host() == std::vector<std::uint8_t>(3, 77));
    CHECK(big_values.to_host() == std::vector<float>(7, -1.0f));
    // Empty keys: no segments.
    loom::vector<std::uint8_t> none;
    loom::vector<float> none_values;
    CHECK(loom::reduce_by_key(none, none_values, keys_out, values_out) == 0);
}
