// Statements whose target is also an operand (x = x + x; y = x * y; x = y - x; x += x),
// alone and fused with their neighbours, against the same statements run on the host.
#include "support.hpp"

using namespace loom_test;

namespace {
constexpr std::size_t n = 4096;
} // namespace

TEST_CASE("a target that is also an operand reads its old value: x = x + x; y = x * y; x = y - x; x += x") {
    const auto hx = random_values<float>(n, -100.0f, 100.0f, 1400), hy = random_values<float>(n, -100.0f, 100.0f, 1401);
    loom::vector<float> x(ctx(), hx), y(ctx(), hy);
    x = x + x;
    y = x * y;
    x = y - x;
    x += x;
    std::vector<float> wx(hx), wy(hy);
    for (std::size_t i = 0; i < n; ++i) {
        wx[i] = wx[i] + wx[i];
        wy[i] = wx[i] * wy[i];
        wx[i] = wy[i] - wx[i];
        wx[i] += wx[i];
    }
    check_elements("x", x.to_host(), wx);
    check_elements("y", y.to_host(), wy);
}

TEST_CASE("aliased statements give the same values one statement per flush as fused into one flush") {
    const auto hx = random_values<std::int32_t>(n, -1000, 1000, 1410),
               hy = random_values<std::int32_t>(n, -1000, 1000, 1411);
    loom::vector<std::int32_t> x(ctx(), hx), y(ctx(), hy), x1(ctx(), hx), y1(ctx(), hy);
    // Fused: four statements in one flush.
    y = x - y;
    x = x * 2 + y;
    y = y * x;
    x -= y;
    const auto fx = x.to_host(), fy = y.to_host();
    // One flush per statement.
    y1 = x1 - y1;
    y1.to_host();
    x1 = x1 * 2 + y1;
    x1.to_host();
    y1 = y1 * x1;
    y1.to_host();
    x1 -= y1;
    check_elements("x fused vs unfused", fx, x1.to_host());
    check_elements("y fused vs unfused", fy, y1.to_host());
    std::vector<std::int32_t> wx(hx), wy(hy);
    for (std::size_t i = 0; i < n; ++i) {
        wy[i] = wx[i] - wy[i];
        wx[i] = wx[i] * 2 + wy[i];
        wy[i] = wy[i] * wx[i];
        wx[i] -= wy[i];
    }
    check_elements("x vs host", fx, wx);
    check_elements("y vs host", fy, wy);
}

TEST_CASE("a vector used several times in one expression is read once per element, aliasing its target") {
    const auto hx = random_values<double>(n, -10.0, 10.0, 1420);
    loom::vector<double> x(ctx(), hx);
    x = x * x - x / (x * x + 1.0) + loom::sqrt(x * x + 2.0);
    std::vector<double> want(hx);
    for (double& v : want) v = v * v - v / (v * v + 1.0) + std::sqrt(v * v + 2.0);
    check_elements("x = x * x - x / (x * x + 1) + sqrt(x * x + 2)", x.to_host(), want);
}

TEST_CASE("swapping roles in a loop: a = a + b; b = a - b; a = a - b exchanges the vectors") {
    const auto ha = random_values<std::int64_t>(n, -1000000, 1000000, 1430),
               hb = random_values<std::int64_t>(n, -1000000, 1000000, 1431);
    loom::vector<std::int64_t> a(ctx(), ha), b(ctx(), hb);
    for (int round = 0; round < 3; ++round) {
        a = a + b;
        b = a - b;
        a = a - b;
    }
    check_elements("a after three exchanges", a.to_host(), hb);
    check_elements("b after three exchanges", b.to_host(), ha);
}
