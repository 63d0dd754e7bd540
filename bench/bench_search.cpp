// Vectorized binary searches (docs/search-and-compaction.md): loom::lower_bound of n random floats
// in n sorted ones, beside what a user would write on the host. Variants:
// - loom: loom::lower_bound(sorted, values, places) into a vector of uint32.
// - std_lower_bound: a host loop of std::lower_bound, one thread.
// - std_lower_bound_par: std::transform(std::execution::par, ...) of std::lower_bound on the
//   host's cores (libstdc++ on TBB); built only where CMake found TBB (bench/CMakeLists.txt).
// The keys are bench::random_floats sorted, the values the next n of the pool (uniform in
// [-1, 1): no -0.0, no NaN, so operator< and loom::sort's order agree). Every variant's places are
// checked equal to the host loop's before it is timed. The searches are bound by the latency of
// reads scattered over the sorted vector: the figure is searches per second.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>
#if LOOM_BENCH_HAVE_TBB
#include <execution>
#endif

#include "checked_variants.hpp"
#include "harness.hpp"

namespace {

struct inputs {
    std::vector<float> keys, values;
    std::vector<std::uint32_t> places; // std::lower_bound's
};

const inputs& inputs_of(std::size_t n) {
    static std::size_t made_for = 0;
    static inputs in;
    if (made_for != n) {
        const float* pool = bench::random_floats(47, -1.0f, 1.0f, 2 * n);
        in.keys.assign(pool, pool + n);
        std::sort(in.keys.begin(), in.keys.end());
        in.values.assign(pool + n, pool + 2 * n);
        in.places.resize(n);
        for (std::size_t i = 0; i < n; ++i)
            in.places[i] =
                std::uint32_t(std::lower_bound(in.keys.begin(), in.keys.end(), in.values[i]) - in.keys.begin());
        made_for = n;
    }
    return in;
}

struct instance : bench::checked_instance { // once(): the searches, finished (timed)
    virtual std::vector<std::uint32_t> result() = 0;
};

struct loom_search : instance {
    loom::context& ctx = bench::loom_context(true);
    loom::vector<float> keys, values;
    loom::vector<std::uint32_t> places;
    explicit loom_search(const inputs& in)
        : keys(ctx, in.keys), values(ctx, in.values), places(ctx, in.values.size()) {}
    void once() override {
        loom::lower_bound(keys, values, places);
        ctx.finish();
    }
    std::vector<std::uint32_t> result() override { return places.to_host(); }
};

struct host_search : instance {
    inputs in; // its own copy: the next size's inputs replace inputs_of's
    bool parallel;
    std::vector<std::uint32_t> places;
    host_search(const inputs& i, bool par) : in(i), parallel(par), places(i.values.size()) {}
    void once() override {
        const auto place = [this](float v) {
            return std::uint32_t(std::lower_bound(in.keys.begin(), in.keys.end(), v) - in.keys.begin());
        };
#if LOOM_BENCH_HAVE_TBB
        if (parallel) {
            std::transform(std::execution::par, in.values.begin(), in.values.end(), places.begin(), place);
            return;
        }
#endif
        std::transform(in.values.begin(), in.values.end(), places.begin(), place);
    }
    std::vector<std::uint32_t> result() override { return places; }
};

using make_instance = std::unique_ptr<instance> (*)(const inputs&);

// The variant at n, made and checked once, then timed.
void add_variant(const std::string& variant, make_instance make) {
    bench::add_variant(
        "search/" + variant, inputs_of, make,
        [](instance& p, const inputs& in) -> std::string {
            return p.result() == in.places ? "" : "differs from std::lower_bound's places";
        },
        bench::sizes(14, 22, 2),
        [](benchmark::State& s) {
            s.counters["searches/s"] =
                benchmark::Counter(double(s.range(0)), benchmark::Counter::kIsIterationInvariantRate);
        });
}

void register_all() {
    add_variant("loom",
                [](const inputs& in) -> std::unique_ptr<instance> { return std::make_unique<loom_search>(in); });
    add_variant("std_lower_bound",
                [](const inputs& in) -> std::unique_ptr<instance> { return std::make_unique<host_search>(in, false); });
#if LOOM_BENCH_HAVE_TBB
    add_variant("std_lower_bound_par",
                [](const inputs& in) -> std::unique_ptr<instance> { return std::make_unique<host_search>(in, true); });
#endif
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
