// Randomised differential test: the fuzzer's programs (tests/fuzz/differential_program.hpp:
// statement streams with aliasing, compound assignment, dying and shared temporaries, swaps,
// where/cast/index, clamped stencil reads of vectors the program also writes, host reads and
// reductions mid-stream, vectors of several lengths) run fused, unfused and on the host
// interpreter, by the rule docs/fusion.md states. CI also runs `loom_fuzz` over other seeds;
// LOOM_DIFF_PROGRAMS and LOOM_DIFF_SEED change this test's range.
#include <doctest/doctest.h>

#include "fuzz/differential_program.hpp"

#include <cstdio>
#include <cstdlib>

namespace {

unsigned env_or(const char* name, unsigned fallback) {
    const char* v = std::getenv(name);
    return v ? unsigned(std::strtoul(v, nullptr, 10)) : fallback;
}

bool has(const loom_fuzz::program& p, loom_fuzz::kind k) {
    for (const loom_fuzz::statement& s : p.body)
        if (s.k == k) return true;
    return false;
}

} // namespace

TEST_CASE("fused_results_equal_unfused_results_and_the_host_model_bit_for_bit") {
    const unsigned programs = env_or("LOOM_DIFF_PROGRAMS", 150);
    const unsigned first_seed = env_or("LOOM_DIFF_SEED", 20261122);
    std::printf("differential test: %u programs, seeds %u..%u (LOOM_DIFF_SEED=%u reproduces)\n", programs, first_seed,
                first_seed + programs - 1, first_seed);
    loom::context fused(loom::context_options{"opencl", "", 1});
    loom::context unfused(loom::context_options{"opencl", "", 0});
    const auto f0 = fused.statistics().kernels_launched, u0 = unfused.statistics().kernels_launched;
    for (unsigned seed = first_seed; seed < first_seed + programs; ++seed) {
        const loom_fuzz::program p = loom_fuzz::generate(seed);
        INFO("seed " << seed << ":\n" << loom_fuzz::to_cpp(p));
        REQUIRE(loom_fuzz::check(p, fused, unfused) == "");
    }
    const auto fused_kernels = fused.statistics().kernels_launched - f0,
               unfused_kernels = unfused.statistics().kernels_launched - u0;
    std::printf("differential test: %llu fused kernels vs %llu unfused kernels launched\n",
                static_cast<unsigned long long>(fused_kernels), static_cast<unsigned long long>(unfused_kernels));
    CHECK(fused_kernels < unfused_kernels);
}

TEST_CASE("generated programs cover every statement kind and vectors of two lengths") {
    bool seen[loom_fuzz::kinds] = {};
    bool two_lengths = false, long_vector = false;
    for (unsigned seed = 20261122; seed < 20261122 + 150; ++seed) {
        const loom_fuzz::program p = loom_fuzz::generate(seed);
        for (const loom_fuzz::statement& s : p.body) {
            seen[int(s.k)] = true;
            CHECK(p.lengths[std::size_t(s.a)] == p.lengths[std::size_t(s.dst)]);
            CHECK(p.lengths[std::size_t(s.b)] == p.lengths[std::size_t(s.dst)]);
            CHECK(p.lengths[std::size_t(s.c)] == p.lengths[std::size_t(s.dst)]);
        }
        for (std::size_t n : p.lengths) {
            two_lengths |= n != p.lengths[0];
            long_vector |= n > 5000;
        }
    }
    for (int k = 0; k < loom_fuzz::kinds; ++k) CHECK_MESSAGE(seen[k], "statement kind " << k << " never generated");
    CHECK(two_lengths);
    CHECK(long_vector);
}

TEST_CASE("the minimiser keeps exactly the statements a failure needs") {
    // A stand-in failure: a program fails while it holds a swap and a sum, and its first vector
    // is longer than 10 elements. The minimiser must cut the rest away and shorten the vectors.
    loom_fuzz::program p;
    for (unsigned seed = 1;; ++seed) {
        p = loom_fuzz::generate(seed);
        if (p.body.size() >= 6 && has(p, loom_fuzz::kind::swap) && has(p, loom_fuzz::kind::sum) && p.lengths[0] > 10)
            break;
    }
    auto fails = [](const loom_fuzz::program& q) {
        return has(q, loom_fuzz::kind::swap) && has(q, loom_fuzz::kind::sum) && q.lengths[0] > 10;
    };
    const loom_fuzz::program small = loom_fuzz::minimise(p, fails);
    INFO(loom_fuzz::to_cpp(small));
    CHECK(fails(small));
    CHECK(small.body.size() == 2);
    CHECK(small.lengths[0] > 10);
    CHECK(small.lengths[0] <= 21); // halving stops where the next half would pass
}
