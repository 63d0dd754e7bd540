// A 2^26-element vector (256 MiB of floats): y = 2.0f * x + 1.0f checked element by
// element, so that nothing in the launch geometry or indexing stops short of the end.
#include "support.hpp"

using namespace loom_test;

TEST_CASE("y = 2.0f * x + 1.0f over 2^26 floats matches the host at every element") {
    const std::size_t n = std::size_t(1) << 26;
    std::vector<float> hx(n);
    std::uint64_t state = seed() * 6364136223846793005ULL + 1442695040888963407ULL;
    for (std::size_t i = 0; i < n; ++i) { // a fast generator: 2^26 draws from <random> take seconds
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        hx[i] = float(std::int32_t(state >> 33)) * (1.0f / 65536.0f);
    }
    loom::vector<float> x(ctx(), hx);
    loom::vector<float> y(ctx(), n);
    y = 2.0f * x + 1.0f;
    std::vector<float> out = y.to_host();
    std::size_t bad = 0, first_bad = n;
    for (std::size_t i = 0; i < n; ++i)
        if (out[i] != 2.0f * hx[i] + 1.0f && bad++ == 0) first_bad = i;
    INFO("first difference at element ", first_bad);
    CHECK(bad == 0);
    CHECK(out.size() == n);
    // The last element specifically (the end of the range is where geometry goes wrong).
    CHECK(float(y[n - 1]) == 2.0f * hx[n - 1] + 1.0f);
}
