// loom::random_uniform, random_normal and random_bits (loom/random.hpp) against Random123's own
// Philox4x32-10 (Debian's librandom123-dev, the authors' implementation) on the host: the
// paper's known answers, then every element of device draws for several seeds and streams,
// fused with arithmetic and not, in vector, matrix and reduction statements. NVRTC compiles
// every kernel the suite makes (nvrtc_all_kernels.cpp), so the CUDA text is checked too.
#include <Random123/philox.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "support.hpp"

using namespace loom_test;

namespace {

// Element i's four words for (seed, stream), as loom/random.hpp lays the counter and key out.
r123::Philox4x32_R<10>::ctr_type words(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
    const r123::Philox4x32_R<10>::ctr_type ctr = {
        {std::uint32_t(i), std::uint32_t(i >> 32), std::uint32_t(stream), std::uint32_t(stream >> 32)}};
    const r123::Philox4x32_R<10>::key_type key = {{std::uint32_t(seed), std::uint32_t(seed >> 32)}};
    return r123::Philox4x32_R<10>()(ctr, key);
}

constexpr double two_to_53 = 9007199254740992.0;

float host_uniform_f32(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
    return float(words(seed, stream, i)[0] >> 8) * 0x1p-24f;
}
double host_uniform_f64(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
    const auto w = words(seed, stream, i);
    return double((std::uint64_t(w[0] >> 11) << 32) | w[1]) / two_to_53;
}
float host_normal_f32(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
    const auto w = words(seed, stream, i);
    const float u1 = float((w[0] >> 8) + 1u) * 0x1p-24f, u2 = float(w[1] >> 8) * 0x1p-24f;
    return std::sqrt(-2.0f * std::log(u1)) * std::cos(6.28318548f * u2);
}
double host_normal_f64(std::uint64_t seed, std::uint64_t stream, std::uint64_t i) {
    const auto w = words(seed, stream, i);
    const double u1 = double(((std::uint64_t(w[0] >> 11) << 32) | w[1]) + 1) / two_to_53;
    const double u2 = double((std::uint64_t(w[2] >> 11) << 32) | w[3]) / two_to_53;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// The seeds and streams every test draws with: zero, small, and high words set.
const std::uint64_t seeds[] = {0, 1, 0x9E3779B97F4A7C15ull, ~std::uint64_t(0)};
const std::uint64_t streams[] = {0, 3, std::uint64_t(1) << 40};

// |got - want| within `ulps` units in the last place of want, or within `floor` of zero.
template <class T> void check_close(const char* what, const std::vector<T>& got, const std::vector<T>& want, T ulps) {
    std::size_t bad = 0, first = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
        const T tolerance = ulps * std::numeric_limits<T>::epsilon() * std::max(T(1), std::abs(want[i]));
        if (!(std::abs(got[i] - want[i]) <= tolerance) && bad++ == 0) first = i;
    }
    INFO(what, ": ", bad, " of ", want.size(), " differ; first at ", first, ": got ", got[first], ", want ",
         want[first]);
    CHECK(bad == 0);
}

} // namespace

TEST_CASE("Random123's Philox4x32-10 gives the paper's known answers (the host reference is the generator)") {
    using philox = r123::Philox4x32_R<10>;
    const philox::ctr_type zero = {{0, 0, 0, 0}}, ones = {{~0u, ~0u, ~0u, ~0u}};
    const philox::key_type zero_key = {{0, 0}}, ones_key = {{~0u, ~0u}};
    const philox::ctr_type pi = {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}};
    const philox::key_type pi_key = {{0xa4093822, 0x299f31d0}};
    const philox::ctr_type a = philox()(zero, zero_key), b = philox()(ones, ones_key), c = philox()(pi, pi_key);
    CHECK(std::vector<std::uint32_t>(a.begin(), a.end()) ==
          std::vector<std::uint32_t>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8});
    CHECK(std::vector<std::uint32_t>(b.begin(), b.end()) ==
          std::vector<std::uint32_t>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd});
    CHECK(std::vector<std::uint32_t>(c.begin(), c.end()) ==
          std::vector<std::uint32_t>{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1});
}

TEST_CASE("random_bits are Philox4x32-10's words: the known answer at element 0 of seed 0, Random123's elsewhere, "
          "fused and unfused") {
    constexpr std::size_t n = 3001; // not a multiple of any group size
    for (loom::context* c : {&ctx(), &unfused_ctx()}) {
        CAPTURE(c == &ctx());
        loom::vector<std::uint64_t> first(*c, 1);
        first = loom::random_bits<std::uint64_t>(0);
        CHECK(first.to_host()[0] == 0xe169c58d6627e8d5ull);
        for (std::uint64_t s : seeds)
            for (std::uint64_t k : streams) {
                CAPTURE(s);
                CAPTURE(k);
                loom::vector<std::uint32_t> lo(*c, n);
                loom::vector<std::uint64_t> both(*c, n);
                lo = loom::random_bits<std::uint32_t>(s, k);
                both = loom::random_bits<std::uint64_t>(s, k);
                std::vector<std::uint32_t> want_lo(n);
                std::vector<std::uint64_t> want_both(n);
                for (std::size_t i = 0; i < n; ++i) {
                    const auto w = words(s, k, i);
                    want_lo[i] = w[0];
                    want_both[i] = std::uint64_t(w[1]) << 32 | w[0];
                }
                CHECK(lo.to_host() == want_lo);
                CHECK(both.to_host() == want_both);
            }
    }
}

TEST_CASE_TEMPLATE("random_uniform is exact and random_normal within a few ulps of the host's, fused into arithmetic "
                   "and not; equal fused and unfused",
                   T, float, double) {
    constexpr std::size_t n = 4099;
    const T ulps = T(8); // the device's log and cos against the host's
    for (std::uint64_t s : seeds)
        for (std::uint64_t k : streams) {
            CAPTURE(s);
            CAPTURE(k);
            std::vector<T> want_u(n), want_z(n), want_mix(n);
            for (std::size_t i = 0; i < n; ++i) {
                if constexpr (std::is_same_v<T, float>) {
                    want_u[i] = host_uniform_f32(s, k, i);
                    want_z[i] = host_normal_f32(s, k, i);
                } else {
                    want_u[i] = host_uniform_f64(s, k, i);
                    want_z[i] = host_normal_f64(s, k, i);
                }
                want_mix[i] = T(2) + T(3) * want_z[i];
            }
            std::vector<T> fused_mix;
            for (loom::context* c : {&ctx(), &unfused_ctx()}) {
                CAPTURE(c == &ctx());
                loom::vector<T> u(*c, n), z(*c, n), mix(*c, n), x(*c, n, T(1));
                u = loom::random_uniform<T>(s, k);
                z = loom::random_normal<T>(s, k);
                mix = T(2) + T(3) * loom::random_normal<T>(s, k) * x; // one kernel with the draws
                CHECK(u.to_host() == want_u);
                CHECK(std::count_if(want_u.begin(), want_u.end(), [](T v) { return v < T(0) || v >= T(1); }) == 0);
                check_close("normal", z.to_host(), want_z, ulps);
                check_close("2 + 3 * normal", mix.to_host(), want_mix, T(4) * ulps);
                if (c == &ctx())
                    fused_mix = mix.to_host();
                else
                    CHECK(mix.to_host() == fused_mix);
            }
        }
}

TEST_CASE("draws depend on the seed, the stream and the element only: a longer vector, a matrix and a reduction see "
          "the same numbers; seeds and streams are arguments, not compiled in") {
    constexpr std::size_t n = 1000;
    loom::vector<float> a(ctx(), n), b(ctx(), 3 * n);
    a = loom::random_uniform<float>(42, 7);
    b = loom::random_uniform<float>(42, 7);
    const std::vector<float> ha = a.to_host(), hb = b.to_host();
    CHECK(std::vector<float>(hb.begin(), hb.begin() + n) == ha);
    // A matrix statement draws by its elements' flat index.
    loom::matrix<float> m(ctx(), 20, 50);
    m = loom::random_uniform<float>(42, 7);
    CHECK(m.to_host() == ha);
    // A reduction over a vector's elements, with a draw each: the host's sum of the same draws.
    loom::vector<float> ones(ctx(), n, 1.0f);
    const std::uint64_t below_half = loom::count(ones * loom::random_uniform<float>(42, 7) < 0.5f);
    std::uint64_t want = 0;
    for (float v : ha) want += v < 0.5f;
    CHECK(below_half == want);
    // Another seed and stream: the same kernel, other numbers.
    const auto compiled = ctx().statistics().kernels_compiled;
    a = loom::random_uniform<float>(43, 7);
    const std::vector<float> other_seed = a.to_host();
    a = loom::random_uniform<float>(42, 8);
    const std::vector<float> other_stream = a.to_host();
    CHECK(ctx().statistics().kernels_compiled == compiled);
    CHECK(other_seed != ha);
    CHECK(other_stream != ha);
    CHECK(other_seed[5] == host_uniform_f32(43, 7, 5));
    CHECK(other_stream[5] == host_uniform_f32(42, 8, 5));
}

TEST_CASE("random_normal has mean 0 and variance 1, and random_uniform mean 1/2, over 2^20 draws") {
    constexpr std::size_t n = std::size_t(1) << 20;
    loom::vector<double> ones(ctx(), n, 1.0);
    const double mean = loom::sum(ones * loom::random_normal<double>(11)) / double(n);
    const double square = loom::sum(loom::pow(ones * loom::random_normal<double>(11), 2)) / double(n);
    const double uniform = loom::sum(ones * loom::random_uniform<double>(12)) / double(n);
    // Five standard errors: 1/sqrt(n) ~ 0.001 for the mean, sqrt(2/n) for the second moment.
    CHECK(std::abs(mean) < 0.005);
    CHECK(std::abs(square - 1.0) < 0.007);
    CHECK(std::abs(uniform - 0.5) < 0.0015);
}

TEST_CASE("loom::index(ctx, n) gives an expression of draws alone its context and length: a reduction over n "
          "elements, the host's count of the same draws; draws at a computed counter") {
    constexpr std::uint64_t n = 5003;
    const auto i = loom::index(ctx(), n);
    const auto x = loom::random_uniform<float>(i, 9, 0);
    const auto y = loom::random_uniform<float>(i, 9, 1);
    const std::uint64_t inside = loom::count(x * x + y * y <= 1.0f);
    std::uint64_t want = 0;
    for (std::uint64_t k = 0; k < n; ++k) {
        const float a = host_uniform_f32(9, 0, k), b = host_uniform_f32(9, 1, k);
        want += a * a + b * b <= 1.0f;
    }
    CHECK(inside == want);
    // The index alone: the sum 0 + 1 + ... + n-1.
    CHECK(loom::sum(loom::index(ctx(), n)) == n * (n - 1) / 2);
    // A draw at the counter n - 1 - i reverses the statement's draws; in an assignment the
    // counted index checks the target's length.
    loom::vector<double> forward(ctx(), n), backward(ctx(), n);
    forward = loom::random_normal<double>(3, 4);
    backward = loom::random_normal<double>(n - 1 - loom::index(), 3, 4);
    const std::vector<double> f = forward.to_host(), b = backward.to_host();
    CHECK(std::vector<double>(f.rbegin(), f.rend()) == b);
    loom::vector<std::uint32_t> bits(ctx(), n);
    bits = loom::random_bits<std::uint32_t>(loom::index(ctx(), n), 5);
    CHECK(bits.to_host()[17] == words(5, 0, 17)[0]);
    loom::vector<float> short_target(ctx(), n - 1);
    CHECK_THROWS_AS(short_target = loom::random_uniform<float>(loom::index(ctx(), n), 1), loom::length_error);
    CHECK_THROWS_WITH_AS(forward = loom::cast<double>(loom::index(unfused_ctx(), n)),
                         doctest::Contains("another context"), loom::error);
}
