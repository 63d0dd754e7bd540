// loom::function<R(A...)> from source text: calls inside expressions, reductions, scans, axis
// reductions and gathers against host references; fused results equal unfused ones; one
// expression type with different functions; interning; and the errors a user can make.
#include "support.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace loom_test;

namespace {

// Functions whose results the host computes exactly (no library math): a branch, a loop, an
// early return and a local array, which a traced lambda cannot express.
const char* const distance_body = "if (a > b) return a - b;\nreturn b - a;";
const char* const power_body = "float r = 1.0f;\nfor (int j = 0; j < k; ++j) r *= x;\nreturn r;";
const char* const table_body = "const int t[4] = {3, 1, 4, 1};\nreturn t[i & 3] * s;";

float host_distance(float a, float b) { return a > b ? a - b : b - a; }
float host_power(float x, int k) {
    float r = 1.0f;
    for (int j = 0; j < k; ++j) r *= x;
    return r;
}

std::vector<float> small_values(std::size_t n, std::uint64_t stream) {
    std::vector<float> v = random_values<float>(n, -2.0f, 2.0f, stream);
    return v;
}

} // namespace

TEST_CASE("source functions compute what the host computes, fused and unfused") {
    const std::size_t n = 1001;
    const std::vector<float> hx = small_values(n, 71), hz = small_values(n, 72);
    const loom::function<float(float, float)> distance("distance", distance_body);
    const loom::function<float(float, int)> power("power", {"x", "k"}, power_body);
    const loom::function<int(int, int)> table("table", {"i", "s"}, table_body);

    std::vector<float> want_y(n), want_w(n);
    for (std::size_t i = 0; i < n; ++i) {
        const float t = host_distance(hx[i], hz[i]);
        want_y[i] = t * 2.0f + host_power(hx[i], 3);
        want_w[i] = want_y[i] - float(int(i % 4 == 0 ? 3 : i % 4 == 1 ? 1 : i % 4 == 2 ? 4 : 1) * 5);
    }
    std::vector<float> got[2][2];
    for (int fuse : {1, 0}) {
        loom::context c(loom::context_options{"opencl", "", fuse});
        INFO("fusion " << fuse);
        loom::vector<float> x(c, hx), z(c, hz), y(c, n), w(c, n);
        y = distance(x, z) * 2.0f + power(x, 3);            // a host int argument
        w = y - loom::cast<float>(table(loom::index(), 5)); // a u64 index converted to int
        got[fuse][0] = y.to_host();
        got[fuse][1] = w.to_host();
        check_elements("distance(x, z) * 2 + power(x, 3)", got[fuse][0], want_y, 0);
        check_elements("y - table(i, 5)", got[fuse][1], want_w, 0);
    }
    CHECK(got[0][0] == got[1][0]);
    CHECK(got[0][1] == got[1][1]);
}

TEST_CASE("source function arguments convert to the parameter types, as in a C++ call") {
    const std::size_t n = 257;
    const std::vector<std::int32_t> hi = random_values<std::int32_t>(n, -1000, 1000, 73);
    const std::vector<double> hd = random_values<double>(n, -1.0, 1.0, 74);
    const loom::function<double(double, float, bool)> pick("pick", "return c ? a : (double)b;");
    loom::vector<std::int32_t> i(ctx(), hi);
    loom::vector<double> d(ctx(), hd), y(ctx(), n);
    y = pick(i, d, i > 0); // int -> double, double -> float, bool stays
    std::vector<double> want(n);
    for (std::size_t k = 0; k < n; ++k) want[k] = hi[k] > 0 ? double(hi[k]) : double(float(hd[k]));
    check_elements("pick(i, d, i > 0)", y.to_host(), want, 0);
}

TEST_CASE("one expression type with different source functions runs each function") {
    // Same C++ type for both calls: the shape is cached per function, not only per type.
    const std::size_t n = 300;
    const std::vector<float> hx = small_values(n, 75);
    loom::vector<float> x(ctx(), hx), y(ctx(), n);
    auto apply = [&](const loom::function<float(float)>& f) {
        y = f(x) + 1.0f;
        return y.to_host();
    };
    const loom::function<float(float)> twice("twice", "return a * 2.0f;"), thrice("thrice", "return a * 3.0f;");
    const std::vector<float> by_two = apply(twice), by_three = apply(thrice), again = apply(twice);
    std::vector<float> want2(n), want3(n);
    for (std::size_t i = 0; i < n; ++i) {
        want2[i] = hx[i] * 2.0f + 1.0f;
        want3[i] = hx[i] * 3.0f + 1.0f;
    }
    check_elements("twice(x) + 1", by_two, want2, 0);
    check_elements("thrice(x) + 1", by_three, want3, 0);
    check_elements("twice(x) + 1 again", again, want2, 0);
}

TEST_CASE("equal definitions are one function: a second object compiles nothing") {
    const std::size_t n = 64;
    loom::context c(loom::context_options{"opencl", "", 1});
    loom::vector<float> x(c, small_values(n, 76)), y(c, n);
    y.to_host(); // runs y's fill, so that both flushes below hold one statement
    const loom::function<float(float)> f1("halve", "return a * 0.5f;");
    y = f1(x) - x;
    y.to_host();
    const loom::context_statistics before = c.statistics();
    const loom::function<float(float)> f2("halve", "return a * 0.5f;");
    y = f2(x) - x;
    const std::vector<float> got = y.to_host();
    CHECK(c.statistics().plan_hits == before.plan_hits + 1); // the same statement type and plan
    CHECK(c.statistics().kernels_compiled == before.kernels_compiled);
    const std::vector<float> hx = x.to_host();
    for (std::size_t i = 0; i < n; ++i) CHECK(got[i] == hx[i] * 0.5f - hx[i]);
}

TEST_CASE("source functions inside reductions, scans, reduction operations and gathers") {
    const std::size_t n = 1001;
    const std::vector<float> hx = small_values(n, 77), hz = small_values(n, 78);
    const loom::function<float(float, float)> distance("distance", distance_body);
    loom::vector<float> x(ctx(), hx), z(ctx(), hz), s(ctx(), n);

    SUBCASE("sum of a call") {
        double want = 0;
        for (std::size_t i = 0; i < n; ++i) want += host_distance(hx[i], hz[i]);
        CHECK(loom::sum(distance(x, z)) == doctest::Approx(want).epsilon(1e-5));
    }
    SUBCASE("a reduction operation that calls a function") {
        const loom::function<float(float, float)> larger("larger", "return a > b ? a : b;");
        const float got = loom::reduce(x, -1e30f, [&](auto a, auto b) { return larger(a, b); });
        CHECK(got == *std::max_element(hx.begin(), hx.end()));
    }
    SUBCASE("inclusive scan of a call") {
        const loom::function<float(float)> round_down("round_down", "return floor(a);");
        loom::inclusive_scan(round_down(x), s);
        std::vector<float> want(n);
        float run = 0;
        for (std::size_t i = 0; i < n; ++i) want[i] = run += std::floor(hx[i]);
        check_elements("inclusive_scan(round_down(x))", s.to_host(), want, 0);
    }
    SUBCASE("a gather at indices a function computes") {
        const loom::function<std::uint64_t(std::uint64_t, std::uint64_t)> mirror("mirror", {"i", "n"},
                                                                                 "return n - 1 - i;");
        s = loom::gather(x, mirror(loom::index(), std::uint64_t(n))) + z;
        std::vector<float> want(n);
        for (std::size_t i = 0; i < n; ++i) want[i] = hx[n - 1 - i] + hz[i];
        check_elements("gather(x, mirror(i, n)) + z", s.to_host(), want, 0);
    }
    SUBCASE("a row sum of a call over a matrix") {
        const std::size_t rows = 33, cols = 17;
        const std::vector<float> ha = small_values(rows * cols, 79), hv = small_values(cols, 80);
        loom::matrix<float> a(ctx(), rows, cols, ha);
        loom::vector<float> v(ctx(), hv);
        loom::vector<float> r = loom::sum(distance(a, loom::as_row(v)), loom::axis<1>);
        const std::vector<float> got = r.to_host();
        REQUIRE(got.size() == rows);
        for (std::size_t i = 0; i < rows; ++i) {
            float want = 0;
            for (std::size_t j = 0; j < cols; ++j) want += host_distance(ha[i * cols + j], hv[j]);
            CHECK(got[i] == doctest::Approx(want).epsilon(1e-5));
        }
    }
}

TEST_CASE("a bad source function is rejected when it is made, naming the mistake") {
    using f1 = loom::function<float(float)>;
    using f2 = loom::function<float(float, float)>;
    CHECK_THROWS_WITH_AS(f1("2fast", "return a;"), doctest::Contains("not an identifier"), loom::error);
    CHECK_THROWS_WITH_AS(f1("float", "return a;"), doctest::Contains("keyword"), loom::error);
    CHECK_THROWS_WITH_AS(f1("loom_mine", "return a;"), doctest::Contains("loom_"), loom::error);
    CHECK_THROWS_WITH_AS(f1("f", {"return"}, "return 1.0f;"), doctest::Contains("keyword"), loom::error);
    CHECK_THROWS_WITH_AS(f2("f", {"x", "x"}, "return x;"), doctest::Contains("two parameters"), loom::error);
    CHECK_THROWS_WITH_AS(f1("f", {"f"}, "return f;"), doctest::Contains("function's own name"), loom::error);
    CHECK_THROWS_WITH_AS(f1("f", " \n"), doctest::Contains("body is empty"), loom::error);
}

TEST_CASE("a source function that does not compile fails its statement and loses nothing") {
    const std::size_t n = 100;
    loom::context c(loom::context_options{"opencl", "", 1});
    const std::vector<float> hx = small_values(n, 81);
    loom::vector<float> x(c, hx), y(c, n, 7.0f);
    // The name keeps it out of the NVRTC pass over the suite's kernels (nvrtc_all_kernels.cpp).
    const loom::function<float(float)> broken("does_not_compile", "return a +* 2;");
    y = x * 2.0f;
    y = broken(y) + 1.0f;
    try {
        y.to_host();
        FAIL("a body that does not compile must throw");
    } catch (const loom::build_error& e) {
        INFO(std::string(e.what()));
        CHECK(std::string(e.what()).find("loom::function 'does_not_compile'") != std::string::npos);
    }
    CHECK(y.to_host() == std::vector<float>(n, 7.0f)); // neither statement ran
    CHECK(x.to_host() == hx);
    y = x + 1.0f; // the context still works
    const std::vector<float> after = y.to_host();
    for (std::size_t i = 0; i < n; ++i) CHECK(after[i] == hx[i] + 1.0f);
}
