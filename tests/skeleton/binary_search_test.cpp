// loom::lower_bound, upper_bound and binary_search (loom/binary_search.hpp) against the standard
// library's on the host: integers with repeated keys, floats in the sort's order (IEEE totalOrder:
// -0 before +0, NaN last), descending, values from an expression, one host value, empty vectors;
// the mistakes refused with the output unchanged. The pass's CUDA text is compiled with NVRTC where
// it is built in.
#include "support.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <string>

#include "codegen/dialect.hpp"
#include "loom/detail/shape_builder.hpp"
#include "skeleton/plan_search.hpp"
#ifdef LOOM_HAVE_CUDA
#include "backend/cuda/nvrtc_compile.hpp"
#endif

using skeleton_test::ctx;
using skeleton_test::random_values;

TEST_CASE("lower_bound, upper_bound, equal_range and binary_search of integers with repeated keys, as std's") {
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(1000), std::size_t(65537)}) {
        CAPTURE(n);
        std::vector<std::int32_t> keys = random_values<std::int32_t>(n, -300, 300, 1);
        std::sort(keys.begin(), keys.end());
        const std::size_t m = 777;
        const std::vector<std::int32_t> probes = random_values<std::int32_t>(m, -320, 320, 2);
        loom::vector<std::int32_t> sorted(ctx(), n), values(ctx(), probes);
        if (n > 0) sorted = loom::vector<std::int32_t>(ctx(), keys);
        loom::vector<std::uint32_t> lower(ctx(), m), upper(ctx(), m);
        loom::vector<std::int64_t> found(ctx(), m, std::int64_t(-1));
        loom::lower_bound(sorted, values, lower);
        loom::upper_bound(sorted, values, upper);
        loom::binary_search(sorted, values, found);
        std::vector<std::uint32_t> want_lower(m), want_upper(m);
        std::vector<std::int64_t> want_found(m);
        for (std::size_t i = 0; i < m; ++i) {
            want_lower[i] = std::uint32_t(std::lower_bound(keys.begin(), keys.end(), probes[i]) - keys.begin());
            want_upper[i] = std::uint32_t(std::upper_bound(keys.begin(), keys.end(), probes[i]) - keys.begin());
            want_found[i] = std::binary_search(keys.begin(), keys.end(), probes[i]) ? 1 : 0;
        }
        CHECK(lower.to_host() == want_lower);
        CHECK(upper.to_host() == want_upper);
        CHECK(found.to_host() == want_found);
        loom::vector<std::uint32_t> first(ctx(), m), last(ctx(), m);
        loom::equal_range(sorted, values, first, last);
        CHECK(first.to_host() == want_lower);
        CHECK(last.to_host() == want_upper);
        // Values from an expression (converted to the keys' type), and one host value.
        loom::lower_bound(sorted, values * 2 + 1, lower);
        for (std::size_t i = 0; i < m; ++i)
            want_lower[i] = std::uint32_t(std::lower_bound(keys.begin(), keys.end(), probes[i] * 2 + 1) - keys.begin());
        CHECK(lower.to_host() == want_lower);
        if (n > 0) {
            CHECK(loom::lower_bound(sorted, 17) ==
                  std::uint64_t(std::lower_bound(keys.begin(), keys.end(), 17) - keys.begin()));
            CHECK(loom::upper_bound(sorted, 17.9) ==
                  std::uint64_t(std::upper_bound(keys.begin(), keys.end(), 17) - keys.begin()));
        }
        // Descending keys.
        std::vector<std::int32_t> down = keys;
        std::reverse(down.begin(), down.end());
        if (n > 0) {
            loom::vector<std::int32_t> sorted_down(ctx(), down);
            loom::lower_bound(sorted_down, values, lower, loom::descending);
            loom::upper_bound(sorted_down, values, upper, loom::descending);
            for (std::size_t i = 0; i < m; ++i) {
                want_lower[i] = std::uint32_t(
                    std::lower_bound(down.begin(), down.end(), probes[i], std::greater<std::int32_t>()) - down.begin());
                want_upper[i] = std::uint32_t(
                    std::upper_bound(down.begin(), down.end(), probes[i], std::greater<std::int32_t>()) - down.begin());
            }
            CHECK(lower.to_host() == want_lower);
            CHECK(upper.to_host() == want_upper);
        }
    }
}

TEST_CASE("binary searches of floats in the sort's order: -0 before +0, NaN last") {
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    std::vector<float> h = random_values<float>(5000, -100.0f, 100.0f, 3);
    for (float special : {nan, -0.0f, 0.0f, 0.0f, -inf, inf, nan, 1.5f, 1.5f}) h.push_back(special);
    loom::vector<float> x(ctx(), h), sorted(ctx(), h.size());
    loom::sort(x, sorted);
    const std::vector<float> keys = sorted.to_host();
    // totalOrder for the values here: -0 before +0, NaN (positive) after everything.
    const auto before = [](float a, float b) {
        if (std::isnan(b)) return !std::isnan(a);
        if (std::isnan(a)) return false;
        if (a == 0.0f && b == 0.0f) return std::signbit(a) && !std::signbit(b);
        return a < b;
    };
    std::vector<float> probes = {nan, -0.0f, 0.0f, -inf, inf, 1.5f, 2.0f, -100.5f, 100.5f};
    for (float v : random_values<float>(100, -110.0f, 110.0f, 4)) probes.push_back(v);
    loom::vector<float> values(ctx(), probes);
    loom::vector<std::uint64_t> lower(ctx(), probes.size()), upper(ctx(), probes.size());
    loom::vector<std::int32_t> found(ctx(), probes.size());
    loom::lower_bound(sorted, values, lower);
    loom::upper_bound(sorted, values, upper);
    loom::binary_search(sorted, values, found);
    std::vector<std::uint64_t> want_lower, want_upper;
    std::vector<std::int32_t> want_found;
    for (float v : probes) {
        want_lower.push_back(std::uint64_t(std::lower_bound(keys.begin(), keys.end(), v, before) - keys.begin()));
        want_upper.push_back(std::uint64_t(std::upper_bound(keys.begin(), keys.end(), v, before) - keys.begin()));
        want_found.push_back(std::binary_search(keys.begin(), keys.end(), v, before) ? 1 : 0);
    }
    CHECK(lower.to_host() == want_lower);
    CHECK(upper.to_host() == want_upper);
    CHECK(found.to_host() == want_found);
}

TEST_CASE("binary searches refuse outputs of another length, aliasing and other contexts, output unchanged") {
    loom::vector<float> sorted(ctx(), std::vector<float>{1, 2, 3, 4}), values(ctx(), std::vector<float>{2, 5});
    loom::vector<std::uint32_t> short_out(ctx(), 1, 9u), out(ctx(), 2, 9u);
    CHECK_THROWS_AS(loom::lower_bound(sorted, values, short_out), loom::length_error);
    CHECK(short_out.to_host() == std::vector<std::uint32_t>{9});
    loom::context elsewhere;
    loom::vector<float> foreign(elsewhere, std::vector<float>{1, 2});
    CHECK_THROWS_WITH_AS(loom::lower_bound(foreign, values, out), doctest::Contains("another context"), loom::error);
    CHECK(out.to_host() == std::vector<std::uint32_t>{9, 9});
    loom::vector<std::uint32_t> keys(ctx(), std::vector<std::uint32_t>{1, 2});
    CHECK_THROWS_WITH_AS(loom::lower_bound(keys, keys, keys), doctest::Contains("the output is also"), loom::error);
    CHECK(keys.to_host() == std::vector<std::uint32_t>{1, 2});
    // No values: nothing to do, even into an output without a context.
    loom::vector<float> none;
    loom::vector<std::uint32_t> nowhere;
    CHECK_NOTHROW(loom::lower_bound(sorted, none, nowhere));
}

TEST_CASE("the binary-search pass is valid CUDA C++ (NVRTC, sm_90, where built in)") {
    const loom::codegen::dialect& cuda = loom::codegen::cuda_dialect();
    std::set<std::string> sources;
    for (loom::dtype key : {loom::dtype::f32, loom::dtype::f64, loom::dtype::i8, loom::dtype::u64})
        for (auto bound : {loom::codegen::search_bound::lower, loom::codegen::search_bound::upper,
                           loom::codegen::search_bound::found}) {
            loom::detail::shape_builder b;
            const loom::detail::shape* values = b.finish_expression(b.vector_slot(key));
            loom::detail::shape s = *values; // the sorted vector as the last slot
            s.slots.push_back({loom::detail::slot_kind::vector, key, true, false, false, true});
            const loom::detail::shape* input = loom::detail::register_shape(std::move(s));
            const std::vector<std::uint32_t> classes = {0, 1};
            loom::skeleton::search_request r;
            r.input = input;
            r.slot_class = &classes;
            r.key = key;
            r.result = loom::dtype::u32;
            r.bound = bound;
            const loom::plan::plan p = loom::skeleton::plan_search(r, cuda);
            REQUIRE(p.passes.size() == 1);
            sources.insert(p.passes[0].kernel.body);
        }
#ifdef LOOM_HAVE_CUDA
    for (const std::string& s : sources) {
        CAPTURE(s);
        CHECK_NOTHROW(loom::backend::cuda::nvrtc_compile(s, 90, false));
    }
#endif
    CHECK(sources.size() == 12);
}
