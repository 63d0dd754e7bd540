// Keyed operations and compaction (docs/keyed-operations.md, docs/search-and-compaction.md) beside
// what a user would pick instead. Workloads, each over float values uniform in [-1, 1):
// - reduce_by_key: uint32 keys in sorted runs (run lengths uniform in 1-31, 16 on average; each
//   run's key 1-3 above the one before), the values summed per run into (key, sum) pairs.
// - inclusive_scan_by_key: the same keys and values; out[i] = the sum of the values from the start
//   of i's run to i.
// - copy_if: the values above 0 (about half), in order, and their count.
// - min_element: the smallest value and the index of its first occurrence.
// Variants:
// - loom: loom::reduce_by_key(keys, values, out_keys, out_values), loom::inclusive_scan_by_key(keys,
//   values, out), loom::copy_if(x, x > 0.0f, y), loom::min_element(x).
// - boost_compute: on the same OpenCL device and queue as the handwritten baselines of the other
//   programs: boost::compute::reduce_by_key (on a CPU device its serial kernel, one work-item: its
//   parallel form is for GPUs only, as it says), copy_if with the lambda `_1 > 0.0f`, and
//   min_element with its value read back (the iterator gives the index; Loom's answer is both).
//   Boost.Compute has no scan_by_key, so inclusive_scan_by_key is the segmented scan composed of its
//   front end: head flags by adjacent_difference(keys, not_equal_to), (flag, value) pairs by a
//   transform, inclusive_scan with the segmented sum of those pairs (segmented_plus), and a
//   transform to the values.
//   Its temporaries are made once, outside the timed span.
// - std_loop (the keyed workloads), std_copy_if, std_min_element: on the host, one thread, what a
//   CPU user writes: one loop over the keys and values, std::copy_if, std::min_element.
//
// Inputs are made once per size and put on the device outside the timed span; the time is the
// operation up to its finish (a reduction's and a compaction's include reading their count or
// answer, as their calls return it). Before it is timed, every variant runs once into outputs
// poisoned first (NaN values, all-ones keys) and its result is checked against a reference the
// check computes from the inputs alone: keys, counts and indices exactly, copied values bit for
// bit, and the sums within the bound any order of float additions keeps (check_sum).
#include <boost/compute/algorithm/adjacent_difference.hpp>
#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/copy_if.hpp>
#include <boost/compute/algorithm/copy_n.hpp>
#include <boost/compute/algorithm/inclusive_scan.hpp>
#include <boost/compute/algorithm/min_element.hpp>
#include <boost/compute/algorithm/reduce_by_key.hpp>
#include <boost/compute/algorithm/transform.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/container/vector.hpp>
#include <boost/compute/function.hpp>
#include <boost/compute/functional/operator.hpp>
#include <boost/compute/lambda.hpp>
#include <boost/compute/types/fundamental.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "harness.hpp"
#include "opencl_baseline.hpp"

namespace {

namespace bc = boost::compute;
using key_type = std::uint32_t;

// Boost.Compute's segmented scan works on float2 pairs (head, value): head is 1 where a run starts
// in the span the pair covers, value the sum of the span's values since the last start. Its scan
// takes an initial value as a kernel argument, which it sets for fundamental types only, so
// the pair is a float2 rather than a struct of its own. The segmented sum is associative: a span
// that starts a run drops what came before it.
BOOST_COMPUTE_FUNCTION(bc::float2_, segmented_plus, (bc::float2_ a, bc::float2_ b),
                       { return (float2)(max(a.x, b.x), b.x != 0.0f ? b.y : a.y + b.y); });
BOOST_COMPUTE_FUNCTION(bc::float2_, flag_value, (cl_uint head, float value),
                       { return (float2)(head ? 1.0f : 0.0f, value); });
BOOST_COMPUTE_FUNCTION(float, value_of, (bc::float2_ a), { return a.y; });

enum class workload { reduce_by_key, inclusive_scan_by_key, copy_if, min_element };

bool keyed(workload w) { return w == workload::reduce_by_key || w == workload::inclusive_scan_by_key; }

std::string key(const std::string& name, const std::string& variant, std::size_t n) {
    return name + "/" + variant + "/" + std::to_string(n);
}

// ---- inputs ----------------------------------------------------------------------------------

constexpr unsigned keys_seed = 20261205; // std::mt19937: the run lengths and the keys' steps
constexpr unsigned values_seed = 43;     // bench::random_floats, uniform in [-1, 1)
constexpr int longest_run = 31;          // run lengths uniform in 1 .. longest_run

// The first n of one pool of sorted keys, as bench::random_floats does for floats: every size
// works on a prefix of the same keys (its last run may be cut short).
const key_type* sorted_run_keys(std::size_t n) {
    static std::vector<key_type> pool;
    if (pool.size() < n) {
        pool.resize(std::max<std::size_t>(n, std::size_t(1) << bench::max_log2()));
        std::mt19937 engine(keys_seed);
        std::uniform_int_distribution<int> length(1, longest_run), step(1, 3);
        key_type k = 0;
        for (std::size_t i = 0; i < pool.size();) {
            for (int r = length(engine); r > 0 && i < pool.size(); --r) pool[i++] = k;
            k += key_type(step(engine));
        }
    }
    return pool.data();
}

struct input {
    std::vector<key_type> keys; // empty for copy_if and min_element
    std::vector<float> values;
};

input make_input(workload w, std::size_t n) {
    input in;
    if (keyed(w)) in.keys.assign(sorted_run_keys(n), sorted_run_keys(n) + n);
    const float* v = bench::random_floats(values_seed, -1.0f, 1.0f, n);
    in.values.assign(v, v + n);
    return in;
}

// What a variant computed, on the host. reduce_by_key: the runs' keys and sums, count = runs;
// inclusive_scan_by_key: every output; copy_if: the kept values, count = kept; min_element: the
// value in values[0], count = its index.
struct output {
    std::vector<key_type> keys;
    std::vector<float> values;
    std::uint64_t count = 0;
};

constexpr key_type key_poison = std::numeric_limits<key_type>::max();
const std::vector<key_type>& key_poisons(std::size_t n) {
    static std::vector<key_type> p;
    if (p.size() != n) p.assign(n, key_poison);
    return p;
}

// ---- the reference -----------------------------------------------------------------------------

// A float sum of m values, in any order of its additions, is within gamma_(m-1) * sum |v| of the
// exact sum (Higham, Accuracy and Stability of Numerical Algorithms, 4.2), gamma_k = k u / (1 - k u)
// and u = 2^-24. The device variants add in other orders than a serial loop (Loom's chunks,
// Boost.Compute's blocks), so they are not expected to match the loop bit for bit; each sum is
// compared with the exact one (in double, exact for these inputs to far below u) within twice
// m u sum |v|, above that bound for every m here.
bool within_sum_bound(float got, double exact, double abs_sum, std::size_t m) {
    return std::fabs(double(got) - exact) <= 2.0 * double(m) * 0x1.0p-24 * abs_sum;
}

// Whether two floats are the same bits (a copy must not change even a NaN's payload or a zero's sign).
bool same_bits(float a, float b) {
    std::uint32_t x, y;
    std::memcpy(&x, &a, sizeof x);
    std::memcpy(&y, &b, sizeof y);
    return x == y;
}

std::string at(const char* what, std::size_t i, double got, double want) {
    char text[160];
    std::snprintf(text, sizeof text, "%s differs at %zu: %.9g, the reference %.9g", what, i, got, want);
    return text;
}

// Empty when got is the result computed here from the inputs; otherwise the first difference.
std::string check(workload w, const input& in, const output& got) {
    const std::size_t n = in.values.size();
    const std::vector<float>& v = in.values;
    switch (w) {
    case workload::reduce_by_key: {
        std::size_t runs = 0;
        for (std::size_t i = 0; i < n; ++runs) {
            const std::size_t head = i;
            double sum = 0, abs_sum = 0;
            for (; i < n && in.keys[i] == in.keys[head]; ++i) {
                sum += v[i];
                abs_sum += std::fabs(double(v[i]));
            }
            if (runs >= got.count) break;
            if (got.keys[runs] != in.keys[head])
                return at("the key of a run", runs, double(got.keys[runs]), double(in.keys[head]));
            if (!within_sum_bound(got.values[runs], sum, abs_sum, i - head))
                return at("the sum of a run", runs, double(got.values[runs]), sum);
        }
        if (got.count != runs) {
            std::size_t all = 0;
            for (std::size_t i = 0; i < n; ++i) all += i == 0 || in.keys[i] != in.keys[i - 1];
            return std::to_string(got.count) + " runs, the reference " + std::to_string(all);
        }
        return {};
    }
    case workload::inclusive_scan_by_key: {
        if (got.values.size() != n) return std::to_string(got.values.size()) + " outputs for " + std::to_string(n);
        double sum = 0, abs_sum = 0;
        std::size_t m = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (i == 0 || in.keys[i] != in.keys[i - 1]) { // a run starts
                sum = abs_sum = 0;
                m = 0;
            }
            sum += v[i];
            abs_sum += std::fabs(double(v[i]));
            ++m;
            if (!within_sum_bound(got.values[i], sum, abs_sum, m)) return at("the output", i, got.values[i], sum);
        }
        return {};
    }
    case workload::copy_if: {
        std::size_t kept = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (!(v[i] > 0.0f)) continue;
            if (kept >= got.count) break;
            if (!same_bits(got.values[kept], v[i])) return at("the kept value", kept, got.values[kept], v[i]);
            ++kept;
        }
        const auto all = std::size_t(std::count_if(v.begin(), v.end(), [](float x) { return x > 0.0f; }));
        if (got.count != all) return std::to_string(got.count) + " kept, the reference " + std::to_string(all);
        return {};
    }
    case workload::min_element: {
        std::size_t best = 0;
        for (std::size_t i = 1; i < n; ++i)
            if (v[i] < v[best]) best = i;
        if (got.count != best)
            return "the index " + std::to_string(got.count) + ", the reference " + std::to_string(best);
        if (got.values.size() != 1 || !same_bits(got.values[0], v[best]))
            return at("the value of the element", best, got.values.empty() ? 0.0 : got.values[0], v[best]);
        return {};
    }
    }
    return "no such workload";
}

// ---- the variants: poison the outputs, run, read the result -------------------------------------

struct instance {
    virtual ~instance() = default;
    virtual void poison() = 0;   // the outputs NaN and all-ones, finished (untimed, before the check)
    virtual void run() = 0;      // the operation, finished (timed)
    virtual output result() = 0; // what the last run computed, on the host
};

struct loom_variant : instance {
    loom::context& ctx = bench::loom_context(true);
    workload w;
    loom::vector<key_type> keys, out_keys; // empty for copy_if and min_element
    loom::vector<float> values, out_values;
    std::uint64_t count = 0;
    float value = 0;
    loom_variant(workload wl, const input& in)
        : w(wl), keys(ctx, in.keys.size()), out_keys(ctx, in.keys.size()), values(ctx, in.values.size()),
          out_values(ctx, in.values.size()) {
        loom::copy(in.keys, keys);
        loom::copy(in.values, values);
        ctx.finish();
    }
    void poison() override {
        loom::copy(key_poisons(out_keys.size()), out_keys);
        loom::copy(bench::poison(out_values.size()), out_values);
        count = key_poison;
        value = std::numeric_limits<float>::quiet_NaN();
        ctx.finish();
    }
    void run() override {
        switch (w) {
        case workload::reduce_by_key: count = loom::reduce_by_key(keys, values, out_keys, out_values); break;
        case workload::inclusive_scan_by_key:
            loom::inclusive_scan_by_key(keys, values, out_values);
            count = values.size();
            break;
        case workload::copy_if: count = loom::copy_if(values, values > 0.0f, out_values); break;
        case workload::min_element: {
            const loom::element<float> e = loom::min_element(values);
            value = e.value;
            count = e.index;
            break;
        }
        }
        ctx.finish();
    }
    output result() override {
        output o{keys.size() ? out_keys.to_host() : std::vector<key_type>{}, out_values.to_host(), count};
        if (w == workload::min_element) o.values.assign(1, value);
        if (w != workload::inclusive_scan_by_key && w != workload::min_element) {
            o.keys.resize(std::min<std::size_t>(o.keys.size(), count));
            o.values.resize(std::min<std::size_t>(o.values.size(), count));
        }
        return o;
    }
};

struct boost_variant : instance {
    static std::size_t scan_length(workload w, const input& in) {
        return w == workload::inclusive_scan_by_key ? in.keys.size() : 0;
    }
    bc::command_queue queue{bench::ocl::env().queue()};
    workload w;
    bc::vector<key_type> keys, out_keys;
    bc::vector<float> values, out_values;
    // The segmented scan's temporaries (inclusive_scan_by_key only; empty otherwise).
    bc::vector<cl_uint> heads;
    bc::vector<bc::float2_> flagged, scanned;
    std::uint64_t count = 0;
    float value = 0;
    boost_variant(workload wl, const input& in)
        : w(wl), keys(in.keys.size(), queue.get_context()), out_keys(in.keys.size(), queue.get_context()),
          values(in.values.size(), queue.get_context()), out_values(in.values.size(), queue.get_context()),
          heads(scan_length(wl, in), queue.get_context()), flagged(scan_length(wl, in), queue.get_context()),
          scanned(scan_length(wl, in), queue.get_context()) {
        bc::copy(in.keys.begin(), in.keys.end(), keys.begin(), queue);
        bc::copy(in.values.begin(), in.values.end(), values.begin(), queue);
        queue.finish();
    }
    void poison() override {
        const std::vector<key_type>& k = key_poisons(out_keys.size());
        const std::vector<float>& v = bench::poison(out_values.size());
        bc::copy(k.begin(), k.end(), out_keys.begin(), queue);
        bc::copy(v.begin(), v.end(), out_values.begin(), queue);
        count = key_poison;
        value = std::numeric_limits<float>::quiet_NaN();
        queue.finish();
    }
    void run() override {
        switch (w) {
        case workload::reduce_by_key: {
            const auto ends = bc::reduce_by_key(keys.begin(), keys.end(), values.begin(), out_keys.begin(),
                                                out_values.begin(), queue);
            count = std::uint64_t(ends.first - out_keys.begin());
            break;
        }
        case workload::inclusive_scan_by_key:
            bc::adjacent_difference(keys.begin(), keys.end(), heads.begin(), bc::not_equal_to<key_type>(), queue);
            bc::transform(heads.begin(), heads.end(), values.begin(), flagged.begin(), flag_value, queue);
            bc::inclusive_scan(flagged.begin(), flagged.end(), scanned.begin(), segmented_plus, queue);
            bc::transform(scanned.begin(), scanned.end(), out_values.begin(), value_of, queue);
            count = values.size();
            break;
        case workload::copy_if: {
            using bc::lambda::_1;
            const auto end = bc::copy_if(values.begin(), values.end(), out_values.begin(), _1 > 0.0f, queue);
            count = std::uint64_t(end - out_values.begin());
            break;
        }
        case workload::min_element: {
            const auto it = bc::min_element(values.begin(), values.end(), queue);
            count = std::uint64_t(it - values.begin());
            bc::copy_n(it, 1, &value, queue);
            break;
        }
        }
        queue.finish();
    }
    output result() override {
        output o;
        o.count = count;
        if (w == workload::min_element) {
            o.values.assign(1, value);
            return o;
        }
        const std::size_t m = w == workload::inclusive_scan_by_key ? values.size() : std::size_t(count);
        o.values.resize(std::min(m, out_values.size()));
        bc::copy_n(out_values.begin(), o.values.size(), o.values.begin(), queue);
        if (w == workload::reduce_by_key) {
            o.keys.resize(std::min(m, out_keys.size()));
            bc::copy_n(out_keys.begin(), o.keys.size(), o.keys.begin(), queue);
        }
        return o;
    }
};

struct host_variant : instance {
    workload w;
    input in;
    std::vector<key_type> out_keys;
    std::vector<float> out_values;
    std::uint64_t count = 0;
    float value = 0;
    host_variant(workload wl, const input& i) : w(wl), in(i), out_keys(in.keys.size()), out_values(in.values.size()) {}
    void poison() override {
        std::fill(out_keys.begin(), out_keys.end(), key_poison);
        std::fill(out_values.begin(), out_values.end(), std::numeric_limits<float>::quiet_NaN());
        count = key_poison;
        value = std::numeric_limits<float>::quiet_NaN();
    }
    void run() override {
        const std::size_t n = in.values.size();
        const std::vector<key_type>& k = in.keys;
        const std::vector<float>& v = in.values;
        switch (w) {
        case workload::reduce_by_key: {
            std::size_t runs = 0;
            key_type current = k[0];
            float sum = v[0];
            for (std::size_t i = 1; i < n; ++i) {
                if (k[i] == current) {
                    sum += v[i];
                    continue;
                }
                out_keys[runs] = current;
                out_values[runs++] = sum;
                current = k[i];
                sum = v[i];
            }
            out_keys[runs] = current;
            out_values[runs++] = sum;
            count = runs;
            break;
        }
        case workload::inclusive_scan_by_key: {
            float sum = 0;
            for (std::size_t i = 0; i < n; ++i) {
                sum = i > 0 && k[i] == k[i - 1] ? sum + v[i] : v[i];
                out_values[i] = sum;
            }
            count = n;
            break;
        }
        case workload::copy_if:
            count =
                std::uint64_t(std::copy_if(v.begin(), v.end(), out_values.begin(), [](float x) { return x > 0.0f; }) -
                              out_values.begin());
            break;
        case workload::min_element: {
            const auto it = std::min_element(v.begin(), v.end());
            value = *it;
            count = std::uint64_t(it - v.begin());
            break;
        }
        }
    }
    output result() override {
        output o{out_keys, out_values, count};
        if (w == workload::min_element) o.values.assign(1, value);
        if (w == workload::reduce_by_key || w == workload::copy_if) {
            o.keys.resize(std::min<std::size_t>(o.keys.size(), count));
            o.values.resize(std::min<std::size_t>(o.values.size(), count));
        }
        return o;
    }
};

// A variant's instance at one size and the verdict of its check (empty: it passed).
struct checked {
    std::unique_ptr<instance> p;
    std::string error;
};

using make_fn = std::unique_ptr<instance> (*)(workload, const input&);

// The instance of `variant` at n, made and checked once: poisoned, run (which also builds its
// kernels, Loom's and Boost.Compute's), and compared with the reference.
checked& prepared(const std::string& name, workload w, const std::string& variant, std::size_t n, make_fn make) {
    return bench::prepared<checked>(key(name, variant, n), [&] {
        auto c = std::make_unique<checked>();
        try {
            const input in = make_input(w, n);
            c->p = make(w, in);
            c->p->poison();
            c->p->run();
            c->error = check(w, in, c->p->result());
        } catch (const std::exception& e) {
            c->error = e.what();
        }
        if (!c->error.empty()) c->error = key(name, variant, n) + ": " + c->error;
        return c;
    });
}

void time_runs(benchmark::State& state, checked& c) {
    if (!c.error.empty()) {
        state.SkipWithError(c.error.c_str());
        return;
    }
    bench::time_loop(state, [&] { c.p->run(); });
    state.counters["elements/s"] =
        benchmark::Counter(double(state.range(0)), benchmark::Counter::kIsIterationInvariantRate);
}

// ---- registration ----------------------------------------------------------------------------

// bench_sort's sizes: every fourth power of two from 2^10, 2^20, and the cap (--max-log2).
std::vector<std::int64_t> keyed_sizes() {
    std::vector<std::int64_t> n = bench::sizes(10, 24, 4);
    if (bench::max_log2() >= 20) n.push_back(std::int64_t(1) << 20);
    std::sort(n.begin(), n.end());
    n.erase(std::unique(n.begin(), n.end()), n.end());
    return n;
}

void add_variant(const std::string& name, workload w, const std::string& variant, make_fn make) {
    bench::add(
        name + "/" + variant,
        [=](benchmark::State& s) { time_runs(s, prepared(name, w, variant, std::size_t(s.range(0)), make)); },
        keyed_sizes());
}

void add_workload(const std::string& name, workload w, const std::string& host_name) {
    add_variant(name, w, "loom", [](workload wl, const input& in) -> std::unique_ptr<instance> {
        return std::make_unique<loom_variant>(wl, in);
    });
    add_variant(name, w, "boost_compute", [](workload wl, const input& in) -> std::unique_ptr<instance> {
        return std::make_unique<boost_variant>(wl, in);
    });
    add_variant(name, w, host_name, [](workload wl, const input& in) -> std::unique_ptr<instance> {
        return std::make_unique<host_variant>(wl, in);
    });
}

void register_all() {
    std::fprintf(stderr,
                 "bench_keyed: keys std::mt19937 seed %u (runs of 1-%d, keys rising by 1-3), values "
                 "bench::random_floats seed %u in [-1, 1)\n",
                 keys_seed, longest_run, values_seed);
    benchmark::AddCustomContext("keys_seed", std::to_string(keys_seed));
    benchmark::AddCustomContext("values_seed", std::to_string(values_seed));
    add_workload("reduce_by_key", workload::reduce_by_key, "std_loop");
    add_workload("inclusive_scan_by_key", workload::inclusive_scan_by_key, "std_loop");
    add_workload("copy_if", workload::copy_if, "std_copy_if");
    add_workload("min_element", workload::min_element, "std_min_element");
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
