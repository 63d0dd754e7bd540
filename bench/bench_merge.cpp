// Merging (docs/sorting.md, "Merging"): loom::merge of two sorted float vectors of n / 2 keys each
// beside what a user would pick instead. Variants:
// - loom: loom::merge(a, b, out).
// - boost_compute: boost::compute::merge on the same OpenCL device and queue as the handwritten
//   baselines of the other programs.
// - std_merge: std::merge on the host, one thread.
// - std_merge_par: std::merge(std::execution::par, ...) on the host's cores (libstdc++ on TBB);
//   built only where CMake found TBB (bench/CMakeLists.txt).
// The inputs are the sorted halves of bench::random_floats (uniform in [-1, 1): no -0.0, no NaN,
// so operator< and loom::sort's totalOrder agree). Each run merges into the same output (no input
// is written: nothing to put back), ending with a finish. Before it is timed, every variant's
// result is checked equal, bit for bit, to std::merge's on the host.
#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/merge.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/container/vector.hpp>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>
#if LOOM_BENCH_HAVE_TBB
#include <execution>
#endif

#include "checked_variants.hpp"
#include "harness.hpp"
#include "opencl_baseline.hpp"

namespace {

namespace bc = boost::compute;

// The two sorted inputs of a merge of n keys: the first n / 2 and the next n - n / 2 of the pool.
struct inputs {
    std::vector<float> a, b, merged;
};

const inputs& inputs_of(std::size_t n) {
    static std::size_t made_for = 0;
    static inputs in;
    if (made_for != n) {
        const float* pool = bench::random_floats(43, -1.0f, 1.0f, n);
        in.a.assign(pool, pool + n / 2);
        in.b.assign(pool + n / 2, pool + n);
        std::sort(in.a.begin(), in.a.end());
        std::sort(in.b.begin(), in.b.end());
        in.merged.resize(n);
        std::merge(in.a.begin(), in.a.end(), in.b.begin(), in.b.end(), in.merged.begin());
        made_for = n;
    }
    return in;
}

struct instance : bench::checked_instance {  // once(): the merge, finished (timed)
    virtual std::vector<float> result() = 0; // the merged keys on the host
};

struct loom_merge : instance {
    loom::context& ctx = bench::loom_context(true);
    loom::vector<float> a, b, out;
    explicit loom_merge(const inputs& in) : a(ctx, in.a), b(ctx, in.b), out(ctx, in.a.size() + in.b.size()) {}
    void once() override {
        loom::merge(a, b, out);
        ctx.finish();
    }
    std::vector<float> result() override { return out.to_host(); }
};

struct boost_merge : instance {
    bc::command_queue queue{bench::ocl::env().queue()};
    bc::vector<float> a, b, out;
    explicit boost_merge(const inputs& in)
        : a(in.a.size(), queue.get_context()), b(in.b.size(), queue.get_context()),
          out(in.a.size() + in.b.size(), queue.get_context()) {
        bc::copy(in.a.begin(), in.a.end(), a.begin(), queue);
        bc::copy(in.b.begin(), in.b.end(), b.begin(), queue);
        queue.finish();
    }
    void once() override {
        bc::merge(a.begin(), a.end(), b.begin(), b.end(), out.begin(), queue);
        queue.finish();
    }
    std::vector<float> result() override {
        std::vector<float> h(out.size());
        bc::copy(out.begin(), out.end(), h.begin(), queue);
        return h;
    }
};

struct host_merge : instance {
    inputs in; // its own copy: the next size's inputs replace inputs_of's
    bool parallel;
    std::vector<float> out;
    host_merge(const inputs& i, bool par) : in(i), parallel(par), out(i.a.size() + i.b.size()) {}
    void once() override {
#if LOOM_BENCH_HAVE_TBB
        if (parallel) {
            std::merge(std::execution::par, in.a.begin(), in.a.end(), in.b.begin(), in.b.end(), out.begin());
            return;
        }
#endif
        std::merge(in.a.begin(), in.a.end(), in.b.begin(), in.b.end(), out.begin());
    }
    std::vector<float> result() override { return out; }
};

using make_instance = std::unique_ptr<instance> (*)(const inputs&);

// The variant at n, made and checked once, then timed.
void add_variant(const std::string& variant, make_instance make) {
    bench::add_variant(
        "merge/" + variant, inputs_of, make,
        [](instance& p, const inputs& in) -> std::string {
            const std::vector<float> got = p.result();
            if (got.size() != in.merged.size() ||
                (!got.empty() && std::memcmp(got.data(), in.merged.data(), got.size() * sizeof(float)) != 0))
                return "differs from std::merge's result";
            return "";
        },
        bench::sizes(14, 24, 2),
        [](benchmark::State& s) { bench::set_bytes(s, double(s.range(0)) * 2 * sizeof(float)); });
}

void register_all() {
    add_variant("loom", [](const inputs& in) -> std::unique_ptr<instance> { return std::make_unique<loom_merge>(in); });
    add_variant("boost_compute",
                [](const inputs& in) -> std::unique_ptr<instance> { return std::make_unique<boost_merge>(in); });
    add_variant("std_merge",
                [](const inputs& in) -> std::unique_ptr<instance> { return std::make_unique<host_merge>(in, false); });
#if LOOM_BENCH_HAVE_TBB
    add_variant("std_merge_par",
                [](const inputs& in) -> std::unique_ptr<instance> { return std::make_unique<host_merge>(in, true); });
#endif
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
