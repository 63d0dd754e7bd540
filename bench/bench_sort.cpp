// Sorting (docs/sorting.md): loom::sort and loom::sort_by_key beside what a user would pick
// instead. Workloads: float keys (uniform in [-1, 1)), uint32 keys (uniform over every value),
// and float keys carrying uint32 values (sort_by_key; the values are the keys' positions, an
// argsort). Variants:
// - loom: loom::sort(keys) or loom::sort_by_key(keys, values), in place.
// - boost_compute: boost::compute::sort / sort_by_key on the same OpenCL device and queue as the
//   handwritten baselines of the other programs. On a CPU device Boost.Compute runs its stable
//   merge sort (its radix sort is for GPUs only): that is what its users get there.
// - std_sort: std::sort on the host, one thread: what a CPU user writes.
// - std_sort_par: std::sort(std::execution::par, ...) on the host's cores (libstdc++ on TBB);
//   built only where CMake found TBB (bench/CMakeLists.txt).
// The host variants sort_by_key as one array of (key, value) pairs with std::pair's own order;
// as the values are the positions, ties go by position, which is the stable order the device
// variants must give.
//
// Every sort works in place, so each timed run starts from the same unsorted input, put back
// outside the timed span (a host-to-device write and a finish for the device variants, a copy
// for the host ones): the time is the sort alone, ending with a finish. Before it is timed,
// every variant's result is checked equal, bit for bit, to std::stable_sort's on the host.
#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/algorithm/sort_by_key.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/container/vector.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>
#if LOOM_BENCH_HAVE_TBB
#include <execution>
#endif

#include "harness.hpp"
#include "opencl_baseline.hpp"

namespace {

namespace bc = boost::compute;
using value_t = std::uint32_t;

// Keys, and for sort_by_key the values that move with them (empty for a sort of keys alone).
template <class K> struct data {
    std::vector<K> keys;
    std::vector<value_t> values;
};

std::string key(const std::string& workload, const std::string& variant, std::size_t n) {
    return workload + "/" + variant + "/" + std::to_string(n);
}

// ---- inputs and the reference ----------------------------------------------------------------

// The first n of one pool of uniform 32-bit values, as bench::random_floats does for floats:
// every size sorts a prefix of the same numbers.
const value_t* random_uints(std::size_t n) {
    static std::vector<value_t> pool;
    if (pool.size() < n) {
        pool.resize(std::max<std::size_t>(n, std::size_t(1) << bench::max_log2()));
        std::mt19937 engine(20261201);
        for (value_t& v : pool) v = value_t(engine());
    }
    return pool.data();
}

// lo + (hi - lo) u never rounds to -0.0 and is never NaN, so operator< (std::sort's and the
// reference's order) and the IEEE 754 totalOrder loom::sort keeps are the same order here.
template <class K> const K* random_keys(std::size_t n) {
    if constexpr (std::is_same_v<K, float>)
        return bench::random_floats(41, -1.0f, 1.0f, n);
    else
        return random_uints(n);
}

template <class K> data<K> unsorted(std::size_t n, bool by_key) {
    data<K> d;
    d.keys.assign(random_keys<K>(n), random_keys<K>(n) + n);
    if (by_key) {
        d.values.resize(n);
        std::iota(d.values.begin(), d.values.end(), value_t(0));
    }
    return d;
}

// std::stable_sort's result, once per workload and size (every variant of a size compares with it).
template <class K> const data<K>& reference(const std::string& workload, std::size_t n, bool by_key) {
    static std::map<std::pair<std::string, std::size_t>, data<K>> made;
    auto it = made.find({workload, n});
    if (it != made.end()) return it->second;
    data<K> d = unsorted<K>(n, by_key);
    if (!by_key) {
        std::stable_sort(d.keys.begin(), d.keys.end());
    } else {
        std::vector<std::pair<K, value_t>> pairs(n);
        for (std::size_t i = 0; i < n; ++i) pairs[i] = {d.keys[i], d.values[i]};
        std::stable_sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (std::size_t i = 0; i < n; ++i) std::tie(d.keys[i], d.values[i]) = pairs[i];
    }
    return made[{workload, n}] = std::move(d);
}

// Empty when got is want bit for bit; otherwise where they first differ (`whose`: want's name).
template <class T>
std::string differ(const char* what, const std::vector<T>& got, const std::vector<T>& want, const char* whose) {
    if (got.size() != want.size())
        return std::string(what) + ": " + std::to_string(got.size()) + " elements, " + whose + " " +
               std::to_string(want.size());
    std::size_t i = 0;
    while (i < got.size() && std::memcmp(&got[i], &want[i], sizeof(T)) == 0) ++i;
    if (i == got.size()) return {};
    return std::string(what) + " differ from " + whose + ", first at element " + std::to_string(i);
}

template <class K> std::string check(const data<K>& got, const data<K>& want, const char* whose) {
    const std::string keys = differ("keys", got.keys, want.keys, whose);
    return keys.empty() ? differ("values", got.values, want.values, whose) : keys;
}

// ---- the variants: put the input back, sort, read the result ---------------------------------

template <class K> struct instance {
    virtual ~instance() = default;
    virtual void restore() = 0;   // the unsorted input back in place, finished (untimed)
    virtual void sort() = 0;      // the sort, finished (timed)
    virtual data<K> result() = 0; // the sorted keys and values on the host
};

template <class K> struct loom_sort : instance<K> {
    loom::context& ctx = bench::loom_context(true);
    data<K> input;
    loom::vector<K> keys;
    loom::vector<value_t> values; // empty for a sort of keys alone
    explicit loom_sort(data<K> in)
        : input(std::move(in)), keys(ctx, input.keys.size()), values(ctx, input.values.size()) {}
    void restore() override {
        loom::copy(input.keys, keys);
        if (!input.values.empty()) loom::copy(input.values, values);
        ctx.finish();
    }
    void sort() override {
        if (input.values.empty())
            loom::sort(keys);
        else
            loom::sort_by_key(keys, values);
        ctx.finish();
    }
    data<K> result() override { return {keys.to_host(), values.to_host()}; }
};

template <class K> struct boost_sort : instance<K> {
    bc::command_queue queue{bench::ocl::env().queue()};
    data<K> input;
    bc::vector<K> keys;
    bc::vector<value_t> values;
    explicit boost_sort(data<K> in)
        : input(std::move(in)), keys(input.keys.size(), queue.get_context()),
          values(input.values.size(), queue.get_context()) {}
    void restore() override {
        bc::copy(input.keys.begin(), input.keys.end(), keys.begin(), queue);
        if (!input.values.empty()) bc::copy(input.values.begin(), input.values.end(), values.begin(), queue);
        queue.finish();
    }
    void sort() override {
        if (input.values.empty())
            bc::sort(keys.begin(), keys.end(), queue);
        else
            bc::sort_by_key(keys.begin(), keys.end(), values.begin(), queue);
        queue.finish();
    }
    data<K> result() override {
        data<K> d;
        d.keys.resize(keys.size());
        d.values.resize(values.size());
        bc::copy(keys.begin(), keys.end(), d.keys.begin(), queue);
        bc::copy(values.begin(), values.end(), d.values.begin(), queue);
        return d;
    }
};

enum class host_policy { serial, parallel };

// std::sort of a copy of the keys, or of (key, value) pairs packed once before timing.
template <class K> struct host_sort : instance<K> {
    host_policy policy;
    bool by_key;
    std::vector<K> input_keys, keys;
    std::vector<std::pair<K, value_t>> input_pairs, pairs;
    host_sort(const data<K>& in, host_policy p) : policy(p), by_key(!in.values.empty()) {
        if (!by_key) {
            input_keys = in.keys;
            keys.resize(in.keys.size());
        } else {
            for (std::size_t i = 0; i < in.keys.size(); ++i) input_pairs.emplace_back(in.keys[i], in.values[i]);
            pairs.resize(input_pairs.size());
        }
    }
    void restore() override {
        std::copy(input_keys.begin(), input_keys.end(), keys.begin());
        std::copy(input_pairs.begin(), input_pairs.end(), pairs.begin());
    }
    template <class It> void sort_range(It first, It last) {
#if LOOM_BENCH_HAVE_TBB
        if (policy == host_policy::parallel) {
            std::sort(std::execution::par, first, last);
            return;
        }
#endif
        std::sort(first, last);
    }
    void sort() override {
        if (by_key)
            sort_range(pairs.begin(), pairs.end());
        else
            sort_range(keys.begin(), keys.end());
    }
    data<K> result() override {
        data<K> d{keys, {}};
        for (const auto& [k, v] : pairs) {
            d.keys.push_back(k);
            d.values.push_back(v);
        }
        return d;
    }
};

// A variant's instance at one size and the verdict of its check (empty: it passed).
template <class K> struct checked {
    std::unique_ptr<instance<K>> p;
    std::string error;
};

// The instance of `variant` at n, made and checked once: restored and compared with the unsorted
// input (so every timed run sorts the same numbers), then sorted and compared with
// std::stable_sort's result. That first sort also builds its kernels (Loom's, Boost.Compute's).
template <class K, class Make>
checked<K>& prepared(const std::string& workload, const std::string& variant, std::size_t n, bool by_key, Make make) {
    return bench::prepared<checked<K>>(key(workload, variant, n), [&] {
        auto c = std::make_unique<checked<K>>();
        try {
            const data<K> input = unsorted<K>(n, by_key);
            c->p = make(input);
            c->p->restore();
            c->error = check(c->p->result(), input, "the unsorted input after restore()");
            if (c->error.empty()) {
                c->p->sort();
                c->error = check(c->p->result(), reference<K>(workload, n, by_key), "std::stable_sort's");
            }
        } catch (const std::exception& e) {
            c->error = e.what();
        }
        if (!c->error.empty()) c->error = key(workload, variant, n) + ": " + c->error;
        return c;
    });
}

// Times the sort once per iteration, host clock after its finish, each run on the unsorted input
// that restore() puts back outside the timed span; warmed up (restore and sort) when the
// instance is new, as bench::time_loop does. `device_us`: the kernels of the sort alone.
template <class K> void time_sorts(benchmark::State& state, checked<K>& c) {
    if (!c.error.empty()) {
        state.SkipWithError(c.error.c_str());
        return;
    }
    instance<K>& p = *c.p;
    if (bench::take_warm_up())
        bench::warm_up([&] {
            p.restore();
            p.sort();
        });
    std::uint64_t device = 0;
    for (auto _ : state) {
        p.restore();
        const std::uint64_t before = bench::device_timing() ? bench::device_ns() : 0;
        state.SetIterationTime(bench::seconds_of([&] { p.sort(); }));
        if (bench::device_timing()) device += bench::device_ns() - before;
    }
    bench::set_device_us(state, "device_us", device);
    state.counters["keys/s"] =
        benchmark::Counter(double(state.range(0)), benchmark::Counter::kIsIterationInvariantRate);
}

// ---- registration ----------------------------------------------------------------------------

// Every fourth power of two from 2^10, as bench_random steps, and 2^20, a size the summary
// shows; the cap (--max-log2) is measured too, as bench::sizes does.
std::vector<std::int64_t> sort_sizes() {
    std::vector<std::int64_t> n = bench::sizes(10, 24, 4);
    if (bench::max_log2() >= 20) n.push_back(std::int64_t(1) << 20);
    std::sort(n.begin(), n.end());
    n.erase(std::unique(n.begin(), n.end()), n.end());
    return n;
}

template <class K> void add_variant(const std::string& workload, const std::string& variant, bool by_key,
                                    std::unique_ptr<instance<K>> (*make)(data<K>)) {
    bench::add(
        workload + "/" + variant,
        [=](benchmark::State& s) {
            time_sorts(s, prepared<K>(workload, variant, std::size_t(s.range(0)), by_key, make));
        },
        sort_sizes());
}

template <class K> void add_workload(const std::string& workload, bool by_key) {
    add_variant<K>(workload, "loom", by_key, [](data<K> d) -> std::unique_ptr<instance<K>> {
        return std::make_unique<loom_sort<K>>(std::move(d));
    });
    add_variant<K>(workload, "boost_compute", by_key, [](data<K> d) -> std::unique_ptr<instance<K>> {
        return std::make_unique<boost_sort<K>>(std::move(d));
    });
    add_variant<K>(workload, "std_sort", by_key, [](data<K> d) -> std::unique_ptr<instance<K>> {
        return std::make_unique<host_sort<K>>(d, host_policy::serial);
    });
#if LOOM_BENCH_HAVE_TBB
    add_variant<K>(workload, "std_sort_par", by_key, [](data<K> d) -> std::unique_ptr<instance<K>> {
        return std::make_unique<host_sort<K>>(d, host_policy::parallel);
    });
#endif
}

void register_all() {
    add_workload<float>("sort_float", false);
    add_workload<value_t>("sort_uint32", false);
    add_workload<float>("sort_by_key", true);
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
