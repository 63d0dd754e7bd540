// Randomised differential test: seeded programs of up to 12 statements over up to 6
// vectors, with aliasing, compound assignment, scalars that change between runs,
// temporaries that die, host reads and reductions in the middle, clamped stencil reads (of
// vectors the program writes too) and index(), run fused and unfused. Fused
// results must equal unfused results bit for bit, and both must equal a host model, by
// the rule docs/fusion.md states: every bit, except that a NaN equals any NaN (the sign and
// payload of a NaN are not specified by OpenCL or CUDA, and a fused kernel's vector code may
// give sin(inf) another sign than the unfused kernel's).
// LOOM_DIFF_PROGRAMS sets the count (default 150; the long mode runs thousands) and
// LOOM_DIFF_SEED the first seed.
#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <utility>

namespace {

// Every statement kind is a fixed C++ expression type (Loom lowers per type), so the
// generator picks kinds and operands; the values of the scalars vary per run.
enum class kind {
    add, scale_add, mul_sub, add_assign, mul_assign, select, temp_chain, host_read, min_max, copy,
    stencil,  // dst = shift(a, k) * 0.5 + b, clamped, k in -2..2: a neighbour read, maybe of a written vector
    indexed,  // dst = cast<float>(index()) * 0.25 + a
    reduction // a sum of a * b read by the host mid-stream (map-reduce fusion with pending statements)
};
constexpr int kinds = 13;

struct statement {
    kind k;
    int dst, a, b, c;
    int scalar; // index into the run's scalar table
};

struct program {
    int vectors;
    std::vector<statement> body;
};

program generate(std::mt19937& gen) {
    program p;
    p.vectors = std::uniform_int_distribution<int>(2, 6)(gen);
    const int length = std::uniform_int_distribution<int>(1, 12)(gen);
    std::uniform_int_distribution<int> any_vector(0, p.vectors - 1), any_kind(0, kinds - 1), any_scalar(0, 3);
    for (int s = 0; s < length; ++s)
        p.body.push_back({kind(any_kind(gen)), any_vector(gen), any_vector(gen), any_vector(gen), any_vector(gen),
                          any_scalar(gen)});
    return p;
}

using host_vectors = std::vector<std::vector<float>>;

// The host model: the same statements, element by element, in float.
// The host's sums are compared within a tolerance (their order differs from the device's);
// fused and unfused sums must be equal bit for bit.
void run_on_host(const program& p, host_vectors& v, const float* s, std::vector<float>& reads,
                 std::vector<std::pair<double, double>>& sums) {
    const std::size_t n = v[0].size();
    for (const statement& st : p.body) {
        std::vector<float> out(n);
        for (std::size_t i = 0; i < n; ++i) {
            const float a = v[st.a][i], b = v[st.b][i], c = v[st.c][i], d = v[st.dst][i], k = s[st.scalar];
            switch (st.k) {
            case kind::add: out[i] = a + b; break;
            case kind::scale_add: out[i] = k * a + b; break;
            case kind::mul_sub: out[i] = a * b - c; break;
            case kind::add_assign: out[i] = d + a; break;
            case kind::mul_assign: out[i] = d * k; break;
            case kind::select: out[i] = a < b ? a : c; break;
            case kind::temp_chain: {
                const float t = a * b;
                out[i] = t + c * t;
                break;
            }
            case kind::host_read: out[i] = d; break;
            case kind::min_max: out[i] = std::max(std::min(a, b), c * 0.5f); break;
            case kind::copy: out[i] = a; break;
            case kind::stencil: {
                const long at = std::clamp(long(i) + long(st.scalar) - 2, 0L, long(n) - 1);
                out[i] = v[st.a][std::size_t(at)] * 0.5f + b;
                break;
            }
            case kind::indexed: out[i] = float(i) * 0.25f + a; break;
            case kind::reduction: out[i] = d; break;
            }
        }
        if (st.k == kind::host_read) reads.push_back(v[st.a][std::size_t(st.b) * 7 % n]);
        if (st.k == kind::reduction) {
            double sum = 0, magnitude = 0; // the sum, and the sum of its terms' magnitudes
            for (std::size_t i = 0; i < n; ++i) {
                sum += double(v[st.a][i] * v[st.b][i]);
                magnitude += std::fabs(double(v[st.a][i] * v[st.b][i]));
            }
            sums.emplace_back(sum, magnitude);
        }
        v[st.dst] = std::move(out);
    }
}

void run_on_device(const program& p, loom::context& ctx, const host_vectors& init, const float* s,
                   host_vectors& result, std::vector<float>& reads, std::vector<float>& sums) {
    std::vector<loom::vector<float>> v;
    for (int i = 0; i < p.vectors; ++i) v.emplace_back(ctx, init[std::size_t(i)]);
    for (const statement& st : p.body) {
        loom::vector<float>&dst = v[std::size_t(st.dst)], &a = v[std::size_t(st.a)], &b = v[std::size_t(st.b)],
        &c = v[std::size_t(st.c)];
        const float k = s[st.scalar];
        switch (st.k) {
        case kind::add: dst = a + b; break;
        case kind::scale_add: dst = k * a + b; break;
        case kind::mul_sub: dst = a * b - c; break;
        case kind::add_assign: dst += a; break;
        case kind::mul_assign: dst *= k; break;
        case kind::select: dst = loom::where(a < b, a, c); break;
        case kind::temp_chain: {
            // A temporary that dies at the end of the block, before any flush.
            loom::vector<float> t(ctx, a.size());
            t = a * b;
            dst = t + c * t;
            break;
        }
        case kind::host_read: reads.push_back(a[std::size_t(st.b) * 7 % a.size()]); break;
        case kind::min_max: dst = loom::max(loom::min(a, b), c * 0.5f); break;
        case kind::copy: dst = a; break;
        case kind::stencil: dst = loom::shift(a, st.scalar - 2) * 0.5f + b; break;
        case kind::indexed: dst = loom::cast<float>(loom::index()) * 0.25f + a; break;
        case kind::reduction: sums.push_back(loom::sum(a * b)); break;
        }
    }
    result.clear();
    for (auto& vec : v) result.push_back(vec.to_host());
}

bool same_bits(const std::vector<float>& x, const std::vector<float>& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (std::memcmp(&x[i], &y[i], sizeof(float)) != 0 && !(std::isnan(x[i]) && std::isnan(y[i]))) return false;
    return true;
}

unsigned env_or(const char* name, unsigned fallback) {
    const char* v = std::getenv(name);
    return v ? unsigned(std::strtoul(v, nullptr, 10)) : fallback;
}

} // namespace

TEST_CASE("fused_results_equal_unfused_results_and_the_host_model_bit_for_bit") {
    const unsigned programs = env_or("LOOM_DIFF_PROGRAMS", 150);
    const unsigned first_seed = env_or("LOOM_DIFF_SEED", 20261122);
    std::printf("differential test: %u programs, seeds %u..%u (LOOM_DIFF_SEED=%u reproduces)\n", programs,
                first_seed, first_seed + programs - 1, first_seed);
    loom::context fused(loom::context_options{"opencl", "", 1});
    loom::context unfused(loom::context_options{"opencl", "", 0});
    std::uint64_t fused_kernels = 0, unfused_kernels = 0;
    for (unsigned seed = first_seed; seed < first_seed + programs; ++seed) {
        std::mt19937 gen(seed);
        const program p = generate(gen);
        const std::size_t n = std::uniform_int_distribution<std::size_t>(1, 300)(gen);
        host_vectors init(std::size_t(p.vectors), std::vector<float>(n));
        std::uniform_real_distribution<float> value(-2.0f, 2.0f);
        for (auto& vec : init)
            for (float& x : vec) x = value(gen);
        // Two runs with different scalar values: the second must reuse the first's kernels.
        for (int run = 0; run < 2; ++run) {
            const float scalars[4] = {value(gen), value(gen), 0.5f, -1.25f};
            host_vectors expect = init, got_fused, got_unfused;
            std::vector<float> reads_host, reads_fused, reads_unfused, sums_fused, sums_unfused;
            std::vector<std::pair<double, double>> sums_host;
            run_on_host(p, expect, scalars, reads_host, sums_host);
            const auto f0 = fused.statistics().kernels_launched, u0 = unfused.statistics().kernels_launched;
            run_on_device(p, fused, init, scalars, got_fused, reads_fused, sums_fused);
            run_on_device(p, unfused, init, scalars, got_unfused, reads_unfused, sums_unfused);
            fused_kernels += fused.statistics().kernels_launched - f0;
            unfused_kernels += unfused.statistics().kernels_launched - u0;
            INFO("seed " << seed << " run " << run << " n " << n << " statements " << p.body.size());
            for (std::size_t i = 0; i < got_fused.size(); ++i) {
                REQUIRE(same_bits(got_fused[i], got_unfused[i]));
                REQUIRE(same_bits(got_fused[i], expect[i]));
            }
            REQUIRE(reads_fused == reads_host);
            REQUIRE(reads_unfused == reads_host);
            REQUIRE(same_bits(sums_fused, sums_unfused)); // one reduction kernel, fused input or not
            REQUIRE(sums_fused.size() == sums_host.size());
            for (std::size_t r = 0; r < sums_host.size(); ++r) // the device sums floats in another order
                REQUIRE(std::fabs(double(sums_fused[r]) - sums_host[r].first) <=
                        double(n) * 1.2e-7 * sums_host[r].second + 1e-30);
        }
    }
    std::printf("differential test: %llu fused kernels vs %llu unfused kernels launched\n",
                static_cast<unsigned long long>(fused_kernels), static_cast<unsigned long long>(unfused_kernels));
    CHECK(fused_kernels < unfused_kernels);
}
