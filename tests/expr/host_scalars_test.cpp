// Host scalars of every arithmetic type in expressions: they take part with their C++
// type, travel as kernel arguments, and a new value never compiles a new kernel.
#include "support.hpp"

#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wbool-operation"

using namespace loom_test;

namespace {
constexpr std::size_t n = 4096;
} // namespace

TEST_CASE("host scalars of every type combine with a vector as C++ converts them") {
    batch bt;
    const operands<std::int32_t> x(random_values<std::int32_t>(n, -1000, 1000, 1300));
    const operands<float> f(random_values<float>(n, -10.0f, 10.0f, 1301));
    const float sf = 1.5f;
    const double sd = 0.25;
    const int si = -7;
    const unsigned su = 3u;
    const std::int64_t s64 = 3000000000LL;
    const std::uint64_t su64 = 1;
    const bool sb = true;
    const char sc = 'A';
    const short ss = -3;
    const std::uint8_t su8 = 200;
    record(
        bt, "x + 1.5f", [=](const auto& a) { return a + sf; }, x);
    record(
        bt, "x * 0.25", [=](const auto& a) { return a * sd; }, x);
    record(
        bt, "x - (int)-7", [=](const auto& a) { return a - si; }, x);
    record(
        bt, "x + 3u (uint32, wraps)", [=](const auto& a) { return a + su; }, x);
    record(
        bt, "x * int64 3e9", [=](const auto& a) { return a * s64; }, x);
    record(
        bt, "x + uint64 1 (uint64, wraps)", [=](const auto& a) { return a + su64; }, x);
    record(
        bt, "x + true", [=](const auto& a) { return a + sb; }, x);
    record(
        bt, "x + 'A'", [=](const auto& a) { return a + sc; }, x);
    record(
        bt, "x * short -3", [=](const auto& a) { return a * ss; }, x);
    record(
        bt, "x + uint8 200", [=](const auto& a) { return a + su8; }, x);
    record(
        bt, "2.5f * f", [=](const auto& a) { return 2.5f * a; }, f);
    record(
        bt, "f / 3 (int)", [=](const auto& a) { return a / 3; }, f);
    record(
        bt, "f && false", [=](const auto& a) { return a && !sb; }, f);
    record(
        bt, "f < 0.5 (double)", [=](const auto& a) { return a < 0.5; }, f);
    record(
        bt, "uint8 200 - f", [=](const auto& a) { return su8 - a; }, f);
    bt.check_all();
}

TEST_CASE("a new scalar value reuses the compiled kernel and the cached plan") {
    const auto hx = random_values<float>(n, -10.0f, 10.0f, 1310);
    loom::vector<float> x(ctx(), hx), y(ctx(), n);
    y.to_host(); // the fill of y runs now, not in the statements counted below

    auto run = [&](float a, double b, int k, bool flag) {
        y = a * x + b * k + loom::where(x > 0.0f && flag, 1.0f, 0.0f);
        std::vector<float> want(n);
        for (std::size_t i = 0; i < n; ++i)
            want[i] = static_cast<float>(a * hx[i] + b * k + ((hx[i] > 0.0f && flag) ? 1.0f : 0.0f));
        check_elements("y = a * x + b * k + where(x > 0 && flag, 1, 0)", y.to_host(), want);
    };
    run(2.0f, 0.5, 3, true); // compiles
    const loom::context_statistics before = ctx().statistics();
    // New values, none equal to another scalar of the statement (the literals 1 and 0
    // included): equal scalars share a parameter, so equality is part of the plan.
    run(-1.5f, 1e-3, -8, false);
    run(0.5f, -2.25, 1000000, true);
    run(3.25f, 0.0, 7, false);
    const loom::context_statistics after = ctx().statistics();
    CHECK(after.kernels_compiled == before.kernels_compiled);
    CHECK(after.plans_made == before.plans_made);
    CHECK(after.plan_hits == before.plan_hits + 3);
    CHECK(after.kernels_launched == before.kernels_launched + 3);
}

TEST_CASE("equal scalars share one parameter; a value that makes two scalars equal plans once more") {
    const auto hx = random_values<float>(n, -10.0f, 10.0f, 1311);
    loom::vector<float> x(ctx(), hx), y(ctx(), n), z(ctx(), n);
    y.to_host();
    auto params = [&] { return loom::last_flush(ctx()).kernels.at(0).parameters; };
    auto run = [&](float a, float b) {
        // (a * x) * x twice when a == b: one parameter, one product (hash-consed), two stores.
        y = a * x * x + 1.0f;
        z = b * x * x * 2.0f;
        std::vector<float> wy(n), wz(n);
        for (std::size_t i = 0; i < n; ++i) {
            wy[i] = a * hx[i] * hx[i] + 1.0f;
            wz[i] = b * hx[i] * hx[i] * 2.0f;
        }
        check_elements("y = a * x * x + 1", y.to_host(), wy);
        check_elements("z = b * x * x * 2", z.to_host(), wz);
    };
    run(0.5f, 0.25f);
    const std::size_t distinct = params();
    run(0.75f, 0.75f); // a == b: a new plan with one parameter fewer
    CHECK(params() == distinct - 1);
    const loom::context_statistics before = ctx().statistics();
    run(1.5f, 1.5f);   // equal again: the same plan
    run(0.5f, 0.125f); // distinct again: the first plan
    CHECK(ctx().statistics().kernels_compiled == before.kernels_compiled);
    CHECK(ctx().statistics().plans_made == before.plans_made);
}

TEST_CASE("scalar values are bound per statement: two statements of one shape keep their own values") {
    const auto hx = random_values<std::int32_t>(n, -100, 100, 1320);
    loom::vector<std::int32_t> x(ctx(), hx), a(ctx(), n), b(ctx(), n), c(ctx(), n);
    for (int k = 1; k <= 3; ++k) {
        loom::vector<std::int32_t>& target = k == 1 ? a : k == 2 ? b : c;
        target = x * k + k; // one expression type, three values, one fused kernel
    }
    std::vector<std::int32_t> wa(n), wb(n), wc(n);
    for (std::size_t i = 0; i < n; ++i) {
        wa[i] = hx[i] * 1 + 1;
        wb[i] = hx[i] * 2 + 2;
        wc[i] = hx[i] * 3 + 3;
    }
    check_elements("x * 1 + 1", a.to_host(), wa);
    check_elements("x * 2 + 2", b.to_host(), wb);
    check_elements("x * 3 + 3", c.to_host(), wc);
}
