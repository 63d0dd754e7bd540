// Reductions and scans over views and gathers: the input has the view's length (or the gather
// index's), reads only the elements the view names, and fuses like any input. Checked against
// host arithmetic; mismatched lengths are a loom::length_error.
#include <cstdint>
#include <numeric>
#include <vector>

#include "support.hpp"

using doctest::Contains;
using skeleton_test::ctx;

TEST_CASE("reductions and scans over views and gathers read exactly the named elements") {
    const std::size_t n = 1000;
    std::vector<float> host(n);
    std::iota(host.begin(), host.end(), 1.0f); // 1..n: a read outside the view would show
    loom::vector<float> x(ctx(), host);
    // A slice, a strided slice, a reversed view.
    double want = 0;
    for (std::size_t i = 100; i < 100 + 300; ++i) want += host[i];
    CHECK(loom::sum(x.slice(100, 300)) == doctest::Approx(want));
    want = 0;
    for (std::size_t i = 0; i < 250; ++i) want += 2.0 * host[3 + 4 * i];
    CHECK(loom::sum(x.slice(3, 250, 4) * 2.0f) == doctest::Approx(want));
    CHECK(loom::max(x.slice(0, 10)) == 10.0f);
    CHECK(loom::min(loom::reversed(x)) == 1.0f);
    // With a vector of the view's length in the same input, and pending statements fused in.
    loom::vector<float> w(ctx(), 300, 0.5f);
    w = w * 2.0f; // pending: runs in the reduction's first pass
    want = 0;
    for (std::size_t i = 0; i < 300; ++i) want += host[700 + i] * 1.0;
    CHECK(loom::sum(x.slice(700, 300) * w) == doctest::Approx(want));
    // A gather: the index vector gives the length.
    std::vector<std::int32_t> hidx(64);
    for (std::size_t i = 0; i < hidx.size(); ++i) hidx[i] = std::int32_t((i * 37) % n);
    loom::vector<std::int32_t> idx(ctx(), hidx);
    float gmax = 0;
    for (std::int32_t k : hidx) gmax = std::max(gmax, host[std::size_t(k)]);
    CHECK(loom::max(loom::gather(x, idx) * 1.0f) == gmax);
    // A scan of a view into a vector of its length.
    loom::vector<float> out(ctx(), 5);
    loom::inclusive_scan(x.slice(10, 5), out);
    CHECK(out.to_host() == std::vector<float>{11, 23, 36, 50, 65});
    // An empty view reduces to the identity.
    CHECK(loom::sum(x.slice(0, 0)) == 0.0f);
}

TEST_CASE("a view and a vector of other lengths in one reduction input are a length_error") {
    loom::vector<float> x(ctx(), 10, 1.0f), y(ctx(), 4, 1.0f);
    CHECK_THROWS_WITH_AS(loom::sum(x.slice(0, 5) + y), Contains("a view of 5 elements and vectors of 4"),
                         loom::length_error);
    CHECK_THROWS_WITH_AS(loom::sum(x.slice(0, 5) + x.slice(0, 3)), Contains("views of 3 and 5"), loom::length_error);
    loom::vector<float> out(ctx(), 4);
    CHECK_THROWS_AS(loom::inclusive_scan(x.slice(0, 5), out), loom::length_error);
}

TEST_CASE("a reduction over views of equal start and stride reads them once, and stays right as the starts change") {
    // Equal view starts (and strides) share an argument in a reduction's input too, so
    // x.slice(a, m, 2) * x.slice(b, m, 2) reads one slice when a == b; the rounds move a and b
    // to and from equal, and each is checked against the host.
    const std::size_t m = 333, n = 2 * m + 1;
    std::vector<float> host(n);
    for (std::size_t i = 0; i < n; ++i) host[i] = float(i % 17) - 8.0f;
    loom::vector<float> x(ctx(), host);
    for (auto [a, b] : {std::pair<std::size_t, std::size_t>{1, 1}, {0, 1}, {1, 0}, {0, 0}, {1, 1}}) {
        CAPTURE(a);
        CAPTURE(b);
        double want = 0;
        for (std::size_t i = 0; i < m; ++i) want += double(host[a + 2 * i]) * double(host[b + 2 * i]);
        CHECK(loom::sum(x.slice(a, m, 2) * x.slice(b, m, 2)) == doctest::Approx(want));
    }
}
