// context_options::fp_contract on a real device: a statement's multiply-add rounds once
// (bit for bit the host's std::fma), nothing is contracted across statements, so fused,
// unfused and one-expression forms agree; reductions and scans see the same rule; the
// default stays two roundings; a bad LOOM_FP_CONTRACT is refused.
#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace {

loom::context& contracting(bool fused) {
    static loom::context on_fused(loom::context_options{"opencl", "", 1, 1});
    static loom::context on_unfused(loom::context_options{"opencl", "", 0, 1});
    return fused ? on_fused : on_unfused;
}

std::vector<float> random_floats(std::mt19937& rng, std::size_t n) {
    std::uniform_real_distribution<float> d(-2.0f, 2.0f);
    std::vector<float> v(n);
    for (float& f : v) f = d(rng);
    return v;
}

// A random generator with a fresh seed, printed; LOOM_CONTRACTION_SEED replays one.
std::mt19937 seeded() {
    const char* given = std::getenv("LOOM_CONTRACTION_SEED");
    const unsigned seed = given ? unsigned(std::strtoul(given, nullptr, 10)) : std::random_device{}();
    std::printf("contraction seed %u\n", seed);
    return std::mt19937(seed);
}

// Two roundings, whatever the host compiler would contract on its own.
float rounded_product(float a, float b) {
    volatile float p = a * b;
    return p;
}

constexpr std::size_t n = 10000;

} // namespace

TEST_CASE("fp_contract rounds each statement's multiply-add once, as std::fma does") {
    std::mt19937 rng = seeded();
    const auto hx = random_floats(rng, n), hy = random_floats(rng, n);
    const float a = 1.37f;
    for (bool fused : {true, false}) {
        CAPTURE(fused);
        loom::context& ctx = contracting(fused);
        loom::vector<float> x(ctx, hx), y(ctx, hy), z1(ctx, n), z2(ctx, n), z3(ctx, n), z4(ctx, n);
        z1 = a * x + y;
        z2 = a * x - y;
        z3 = y - x * x;
        z4 = y + x * y;
        const auto r1 = z1.to_host(), r2 = z2.to_host(), r3 = z3.to_host(), r4 = z4.to_host();
        std::size_t single_rounding_differs = 0;
        for (std::size_t i = 0; i < n; ++i) {
            REQUIRE(r1[i] == std::fma(a, hx[i], hy[i]));
            REQUIRE(r2[i] == std::fma(a, hx[i], -hy[i]));
            REQUIRE(r3[i] == std::fma(-hx[i], hx[i], hy[i]));
            REQUIRE(r4[i] == std::fma(hx[i], hy[i], hy[i]));
            single_rounding_differs += r1[i] != rounded_product(a, hx[i]) + hy[i];
        }
        CHECK(single_rounding_differs > 0); // the inputs tell one rounding from two
    }
}

TEST_CASE("fp_contract never contracts across statements: fused equals unfused") {
    std::mt19937 rng = seeded();
    const auto hx = random_floats(rng, n), hy = random_floats(rng, n);
    const float a = 0.71f, c0 = 1.25f, c1 = -0.375f;
    std::vector<std::vector<float>> across, chain_statements, chain_expression;
    for (bool fused : {true, false}) {
        loom::context& ctx = contracting(fused);
        loom::vector<float> x(ctx, hx), y(ctx, hy), z(ctx, n), w(ctx, n), e(ctx, n);
        {
            loom::vector<float> t(ctx, n), u(ctx, n);
            t = a * x; // stored (or, fused, kept in a register) after its own rounding
            z = t + y;
            u = x * c0 + x;
            w = u * c1 + x;
        }
        e = (x * c0 + x) * c1 + x;
        across.push_back(z.to_host());
        chain_statements.push_back(w.to_host());
        chain_expression.push_back(e.to_host());
    }
    std::size_t contraction_would_differ = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const float product = rounded_product(a, hx[i]);
        REQUIRE(across[0][i] == product + hy[i]);
        REQUIRE(across[1][i] == across[0][i]);
        contraction_would_differ += across[0][i] != std::fma(a, hx[i], hy[i]);
        const float chain = std::fma(std::fma(hx[i], c0, hx[i]), c1, hx[i]);
        REQUIRE(chain_statements[0][i] == chain);
        REQUIRE(chain_statements[1][i] == chain);
        REQUIRE(chain_expression[0][i] == chain);
        REQUIRE(chain_expression[1][i] == chain);
    }
    CHECK(contraction_would_differ > 0);
}

TEST_CASE("fp_contract applies to the expressions reductions and scans read") {
    std::mt19937 rng = seeded();
    const auto hx = random_floats(rng, n), hy = random_floats(rng, n);
    const float a = 1.37f;
    loom::context& ctx = contracting(true);
    loom::vector<float> x(ctx, hx), y(ctx, hy), two_roundings(ctx, n), out(ctx, n);
    std::vector<float> host_two(n);
    for (std::size_t i = 0; i < n; ++i) host_two[i] = rounded_product(a, hx[i]) + hy[i];
    loom::copy(host_two, two_roundings);

    // Exact whatever the order of the fold: a count, a maximum, a running maximum.
    std::uint64_t differs = 0;
    float biggest = -INFINITY;
    std::vector<float> running(n);
    for (std::size_t i = 0; i < n; ++i) {
        const float f = std::fma(a, hx[i], hy[i]);
        differs += f != host_two[i];
        biggest = std::max(biggest, f);
        running[i] = biggest;
    }
    REQUIRE(differs > 0);
    CHECK(loom::count(a * x + y != two_roundings) == differs);
    CHECK(loom::max(a * x + y) == biggest);
    loom::inclusive_scan(a * x + y, out, -INFINITY, [](auto p, auto q) { return loom::max(p, q); });
    CHECK(out.to_host() == running);
}

TEST_CASE("without fp_contract a multiply-add rounds twice, and a bad LOOM_FP_CONTRACT is refused") {
    loom::context off(loom::context_options{"opencl", "", 1, 0});
    std::mt19937 rng(7);
    const auto hx = random_floats(rng, n), hy = random_floats(rng, n);
    const float a = 1.37f;
    loom::vector<float> x(off, hx), y(off, hy), z(off, n);
    z = a * x + y;
    const auto r = z.to_host();
    for (std::size_t i = 0; i < n; ++i) REQUIRE(r[i] == rounded_product(a, hx[i]) + hy[i]);

    setenv("LOOM_FP_CONTRACT", "fast", 1);
    try {
        loom::context bad(loom::context_options{"opencl", "", 1, -1});
        FAIL("a context was made with LOOM_FP_CONTRACT=fast");
    } catch (const loom::error& e) {
        CHECK(std::string(e.what()).find("LOOM_FP_CONTRACT='fast'") != std::string::npos);
    }
    setenv("LOOM_FP_CONTRACT", "on", 1);
    loom::context from_environment(loom::context_options{"opencl", "", 1, -1});
    unsetenv("LOOM_FP_CONTRACT");
    loom::vector<float> x2(from_environment, hx), y2(from_environment, hy), z2(from_environment, n);
    z2 = a * x2 + y2;
    const auto r2 = z2.to_host();
    for (std::size_t i = 0; i < n; ++i) REQUIRE(r2[i] == std::fma(a, hx[i], hy[i]));
}

TEST_CASE("fp_contract folds a sum along an axis of a product by fma: near the host, apart from two roundings") {
    std::mt19937 rng = seeded();
    const std::size_t rows = 64, cols = 1000;
    const auto ha = random_floats(rng, rows * cols), hx = random_floats(rng, cols);
    loom::context& on = contracting(true);
    loom::context off(loom::context_options{"opencl", "", 1, 0});
    std::vector<float> got[2];
    std::vector<float> tuple_first;
    for (int contract : {1, 0}) {
        loom::context& c = contract ? on : off;
        loom::matrix<float> A(c, rows, cols, ha);
        loom::vector<float> x(c, hx);
        got[contract] = loom::vector<float>(loom::sum(A * loom::as_row(x), loom::axis<1>)).to_host();
        if (contract) { // in a tuple beside another sum, the same fold bit for bit
            auto [s, m] = loom::sum(std::make_tuple(A * loom::as_row(x), A), loom::axis<1>);
            tuple_first = loom::vector<float>(s).to_host();
            (void)m;
        }
    }
    std::size_t apart = 0;
    for (std::size_t i = 0; i < rows; ++i) {
        double want = 0, scale = 0;
        for (std::size_t j = 0; j < cols; ++j) {
            want += double(ha[i * cols + j]) * hx[j];
            scale += std::fabs(double(ha[i * cols + j]) * hx[j]);
        }
        for (int contract : {1, 0}) CHECK(std::fabs(got[contract][i] - want) <= 1e-5 * scale);
        apart += got[1][i] != got[0][i];
    }
    CHECK(apart > 0); // one rounding fewer per element shows in some rows
    CHECK(tuple_first == got[1]);
}
