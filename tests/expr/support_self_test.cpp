// The suite's own helpers: a ULP distance that is wrong would make every tolerance meaningless.
#include "support.hpp"

using namespace loom_test;

TEST_CASE("ulp_distance counts representable values between two floats, across zero and binades") {
    CHECK(ulp_distance(1.0f, 1.0f) == 0);
    CHECK(ulp_distance(1.0f, std::nextafter(1.0f, 2.0f)) == 1);
    CHECK(ulp_distance(1.0f, std::nextafter(1.0f, 0.0f)) == 1); // across the binade boundary
    CHECK(ulp_distance(0.0f, -0.0f) == 0);
    CHECK(ulp_distance(std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min()) == 2);
    CHECK(ulp_distance(1.0, std::nextafter(std::nextafter(1.0, 2.0), 2.0)) == 2);
    CHECK(ulp_distance(std::nan(""), std::nan("")) == 0);
    CHECK(ulp_distance(std::nanf(""), 1.0f) > 1000000);
    CHECK(ulp_distance(std::numeric_limits<double>::infinity(), std::numeric_limits<double>::max()) == 1);
}

TEST_CASE("random_values is reproducible for a stream and differs between streams") {
    CHECK(random_values<std::int8_t>(100, -128, 127, 1) == random_values<std::int8_t>(100, -128, 127, 1));
    CHECK(random_values<float>(100, 0.0f, 1.0f, 1) != random_values<float>(100, 0.0f, 1.0f, 2));
    const auto u = random_values<std::uint64_t>(1000, 0, highest<std::uint64_t>(), 3);
    CHECK(*std::max_element(u.begin(), u.end()) > (std::uint64_t(1) << 63)); // the full range is reached
}
