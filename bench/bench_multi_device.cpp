// A context over several devices (docs/multi-device.md) against its parts alone: the issue's
// efficiency, throughput on the k devices together / the sum of each device's throughput alone.
// The devices are LOOM_BENCH_DEVICES (default "0/2": this machine's OpenCL device split into two
// equal sub-devices). Workloads over n floats:
// - saxpy: y = 2.5f * x + y (two reads and a write per element);
// - dot: loom::sum(x * y), the result read on the host.
// - compute: y = sin(x) * cos(y) + exp(-x * x) * sqrt(y * y + 1) (four math calls an element:
//   bound by arithmetic, not memory, so the parts' throughputs add up).
// - stencil: 100 steps of the 2-D 5-point stencil (x as a square grid, clamped) into y, then
//   swapped: each step's halos cross the parts (docs/multi-device.md, "Stencils").
// - spmv: y = A * x, A the 5-point Laplacian of x as a square grid (CSR, 5 entries a row): each
//   part its rows, the rows of x beside its own in a halo (docs/multi-device.md, "Sparse matrices").
// - sort: loom::sort(x, y), a radix sort of the floats: each part sorts its own, then the runs
//   merge (docs/multi-device.md, "Sorting").
// - merge: loom::merge(a, b, y), a and b x's two halves, each sorted (made once, untimed): each
//   part of y merges its shares of a and b (docs/multi-device.md, "Sorting").
// - scan_by_key: loom::inclusive_scan_by_key(keys, x, y), keys i / 1000 (segments of 1000, one
//   split by each part's end): every part scans its own, then a split segment's elements in the
//   later part take the carry (docs/multi-device.md, "Keyed operations").
// - reduce_by_key: loom::reduce_by_key(keys, x, keys_out, y), the same keys: every part reduces
//   its own, a split segment's pieces are folded, the segments go to their places.
// Each benchmark times, run by run in turn, the workload on the context of all parts (the manual
// time) and on each part alone over the same n elements; counters: `efficiency` (the sums of the
// runs' times: n/T_all / sum_k n/T_k), `part<k>_us` (part k's mean run alone), and `whole_us`,
// the same work on a context of the whole device (LOOM_BENCH_WHOLE, default "0"): what the split
// costs or gains against not splitting. Every variant is checked against the host before it is
// timed.
// - rebalance: a context over the same devices with loom::balance::dynamic, set to shares 90/10,
//   then saxpy at 2^22 four times and a finish per iteration; counters `iterations` (until the
//   first part's share is within 5% of even, 50 at most) and `share0` where it ended. The manual
//   time is the whole sequence's.
// - rebalance/slowed_part: the same devices from an even split, the last part given extra work of
//   its own in proportion to its share every iteration (an injected slowdown to half speed);
//   where the split settles.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness.hpp"

namespace {

std::string devices() {
    const char* given = std::getenv("LOOM_BENCH_DEVICES");
    return given && *given ? given : "0/2";
}

loom::context& all_parts() {
    static loom::context c = [] {
        loom::context_options o;
        o.backend = "opencl";
        o.device = devices();
        return loom::context(o);
    }();
    return c;
}

loom::context& whole_device() {
    static loom::context c = [] {
        const char* given = std::getenv("LOOM_BENCH_WHOLE");
        loom::context_options o;
        o.backend = "opencl";
        o.device = given && *given ? given : "0";
        return loom::context(o);
    }();
    return c;
}

enum class workload { saxpy, dot, compute, stencil, sort, spmv, merge, scan_by_key, reduce_by_key };

constexpr std::uint32_t segment = 1000; // the keyed workloads' keys: i / segment

// The 5-point Laplacian of a square grid of n cells (clamped: a missing neighbour is left out), in
// CSR: 5 entries a row inside.
loom::sparse_matrix<float> five_point(const loom::context& ctx, std::size_t n) {
    const std::size_t side = std::size_t(std::lround(std::sqrt(double(n))));
    std::vector<std::uint32_t> row_ptr{0}, col;
    std::vector<float> val;
    for (std::size_t j = 0; j < side; ++j)
        for (std::size_t i = 0; i < side; ++i) {
            const std::size_t r = j * side + i;
            const auto entry = [&](std::size_t c, float v) {
                col.push_back(std::uint32_t(c));
                val.push_back(v);
            };
            if (j > 0) entry(r - side, 1.0f);
            if (i > 0) entry(r - 1, 1.0f);
            entry(r, -4.0f);
            if (i + 1 < side) entry(r + 1, 1.0f);
            if (j + 1 < side) entry(r + side, 1.0f);
            row_ptr.push_back(std::uint32_t(col.size()));
        }
    return loom::sparse_matrix<float>(ctx, n, n, row_ptr, col, val, loom::sparse_layout::csr());
}

// The merge workload's inputs: the first and second halves of x's values, each sorted.
std::pair<std::vector<float>, std::vector<float>> sorted_halves(const std::vector<float>& x) {
    const auto middle = x.begin() + std::ptrdiff_t(x.size() / 2);
    std::vector<float> first(x.begin(), middle), second(middle, x.end());
    std::sort(first.begin(), first.end());
    std::sort(second.begin(), second.end());
    return {first, second};
}

// One workload's vectors on one context, and a run of it up to its finish.
struct instance {
    loom::context ctx;
    loom::vector<float> x, y;
    float last = 0;

    std::optional<loom::sparse_matrix<float>> laplacian;       // the spmv workload's, made on its first run
    std::optional<loom::vector<float>> a, b;                   // the merge workload's, made on its first run
    std::optional<loom::vector<std::uint32_t>> keys, keys_out; // the keyed workloads', made on their first run

    instance(loom::context c, const std::vector<float>& hx, const std::vector<float>& hy)
        : ctx(std::move(c)), x(ctx, hx), y(ctx, hy) {}
    // One step of the stencil on x's square grid into y, then swapped.
    void step() {
        const std::size_t side = std::size_t(std::lround(std::sqrt(double(x.size()))));
        const auto g = loom::grid(x, side, side);
        y = x + 0.2f * (loom::at(g, -1, 0) + loom::at(g, 1, 0) + loom::at(g, 0, -1) + loom::at(g, 0, 1) - 4.0f * x);
        loom::swap(x, y);
    }
    void run(workload w) {
        if (w == workload::stencil) {
            for (int k = 0; k < 100; ++k) step();
            ctx.finish();
        } else if (w == workload::saxpy) {
            y = 2.5f * x + y;
            ctx.finish();
        } else if (w == workload::spmv) {
            if (!laplacian) laplacian.emplace(five_point(ctx, x.size()));
            y = *laplacian * x;
            ctx.finish();
        } else if (w == workload::sort) {
            loom::sort(x, y);
            ctx.finish();
        } else if (w == workload::merge) {
            if (!a) {
                const auto [first, second] = sorted_halves(x.to_host());
                a.emplace(ctx, first);
                b.emplace(ctx, second);
            }
            loom::merge(*a, *b, y);
            ctx.finish();
        } else if (w == workload::scan_by_key || w == workload::reduce_by_key) {
            if (!keys) {
                keys.emplace(ctx, x.size());
                *keys = loom::cast<std::uint32_t>(loom::index() / segment);
                keys_out.emplace(ctx, x.size());
            }
            if (w == workload::scan_by_key)
                loom::inclusive_scan_by_key(*keys, x, y);
            else
                loom::reduce_by_key(*keys, x, *keys_out, y);
            ctx.finish();
        } else if (w == workload::compute) {
            y = loom::sin(x) * loom::cos(y) + loom::exp(-x * x) * loom::sqrt(y * y + 1.0f);
            ctx.finish();
        } else {
            last = loom::sum(x * y);
        }
    }
};

// The workload's answer on every instance, checked against the host once (saxpy: one run from
// the inputs; dot: within the bound of any order of float additions).
std::string check(workload w, instance& in, const std::vector<float>& hx, const std::vector<float>& hy) {
    if (w == workload::stencil) { // one step against the host's, then the inputs again
        in.step();
        const std::vector<float> got = in.x.to_host();
        const std::size_t side = std::size_t(std::lround(std::sqrt(double(hx.size()))));
        const auto at = [&](std::size_t i, std::size_t j) {
            return hx[std::min(j, side - 1) * side + std::min(i, side - 1)];
        };
        for (std::size_t j = 0; j < side; ++j)
            for (std::size_t i = 0; i < side; ++i) {
                const float want =
                    hx[j * side + i] + 0.2f * (at(i == 0 ? 0 : i - 1, j) + at(i + 1, j) + at(i, j == 0 ? 0 : j - 1) +
                                               at(i, j + 1) - 4.0f * hx[j * side + i]);
                if (std::fabs(got[j * side + i] - want) > 1e-5f * (std::fabs(want) + 1.0f))
                    return "stencil differs from the host at element " + std::to_string(j * side + i);
            }
        in.x = loom::vector<float>(in.ctx, hx);
        in.ctx.finish();
        return "";
    }
    in.run(w);
    if (w == workload::saxpy) {
        const std::vector<float> got = in.y.to_host();
        for (std::size_t i = 0; i < hx.size(); ++i)
            if (got[i] != 2.5f * hx[i] + hy[i]) return "saxpy differs from the host at element " + std::to_string(i);
        in.y = loom::vector<float>(in.ctx, hy);
        in.ctx.finish();
        return "";
    }
    if (w == workload::spmv) { // the host's product, in the entries' order, in float
        const std::vector<float> got = in.y.to_host();
        const std::size_t side = std::size_t(std::lround(std::sqrt(double(hx.size()))));
        for (std::size_t j = 0; j < side; ++j)
            for (std::size_t i = 0; i < side; ++i) {
                const std::size_t r = j * side + i;
                float sum = 0.0f;
                if (j > 0) sum += 1.0f * hx[r - side];
                if (i > 0) sum += 1.0f * hx[r - 1];
                sum += -4.0f * hx[r];
                if (i + 1 < side) sum += 1.0f * hx[r + 1];
                if (j + 1 < side) sum += 1.0f * hx[r + side];
                if (got[r] != sum) return "spmv differs from the host at row " + std::to_string(r);
            }
        return "";
    }
    if (w == workload::merge) { // x's sorted halves merged: x's values in ascending order
        const auto [first, second] = sorted_halves(hx);
        std::vector<float> want(hx.size());
        std::merge(first.begin(), first.end(), second.begin(), second.end(), want.begin());
        if (in.y.to_host() != want) return "merge differs from the host's std::merge";
        return "";
    }
    if (w == workload::scan_by_key || w == workload::reduce_by_key) { // sums of floats: within rounding
        const std::vector<float> got = in.y.to_host();
        double run = 0, magnitude = 0;
        for (std::size_t i = 0; i < hx.size(); ++i) {
            if (i % segment == 0) run = magnitude = 0;
            run += hx[i];
            magnitude += std::fabs(hx[i]);
            const bool last = i + 1 == hx.size() || (i + 1) % segment == 0;
            const std::size_t at = w == workload::scan_by_key ? i : i / segment;
            if ((w == workload::scan_by_key || last) && std::fabs(got[at] - run) > magnitude * 1e-5)
                return "keyed sums differ from the host's at element " + std::to_string(i);
        }
        in.y = loom::vector<float>(in.ctx, hy);
        in.ctx.finish();
        return "";
    }
    if (w == workload::sort) { // x's values in ascending order
        std::vector<float> want = hx;
        std::stable_sort(want.begin(), want.end());
        if (in.y.to_host() != want) return "sort differs from the host's std::stable_sort";
        in.y = loom::vector<float>(in.ctx, hy);
        in.ctx.finish();
        return "";
    }
    if (w == workload::compute) { // the device's math functions within a few ulp of the host's
        const std::vector<float> got = in.y.to_host();
        for (std::size_t i = 0; i < hx.size(); ++i) {
            const double want = std::sin(double(hx[i])) * std::cos(double(hy[i])) +
                                std::exp(-double(hx[i]) * hx[i]) * std::sqrt(double(hy[i]) * hy[i] + 1.0);
            if (std::fabs(double(got[i]) - want) > 1e-5 * (std::fabs(want) + 1.0))
                return "compute differs from the host at element " + std::to_string(i);
        }
        in.y = loom::vector<float>(in.ctx, hy);
        in.ctx.finish();
        return "";
    }
    double want = 0, magnitude = 0;
    for (std::size_t i = 0; i < hx.size(); ++i) {
        want += double(hx[i]) * double(hy[i]);
        magnitude += std::fabs(double(hx[i]) * double(hy[i]));
    }
    if (std::fabs(double(in.last) - want) > magnitude * 1e-6 * std::log2(double(hx.size()) + 2))
        return "dot differs from the host's sum";
    return "";
}

void run(benchmark::State& state, workload w) {
    const std::size_t n = std::size_t(state.range(0));
    const float* px = bench::random_floats(1, -1.0f, 1.0f, n);
    const float* py = bench::random_floats(2, -1.0f, 1.0f, n);
    const std::vector<float> hx(px, px + n), hy(py, py + n);
    instance together(all_parts(), hx, hy), whole(whole_device(), hx, hy);
    std::vector<instance> alone;
    for (const loom::context& part : all_parts().parts()) alone.emplace_back(part, hx, hy);
    for (instance* in : {&together, &whole}) {
        const std::string error = check(w, *in, hx, hy);
        if (!error.empty()) return state.SkipWithError(error.c_str());
    }
    for (instance& in : alone) {
        const std::string error = check(w, in, hx, hy);
        if (!error.empty()) return state.SkipWithError(error.c_str());
    }
    bench::warm_up([&] {
        together.run(w);
        whole.run(w);
        for (instance& in : alone) in.run(w);
    });
    double total = 0, whole_total = 0;
    std::vector<double> part_total(alone.size(), 0.0);
    for (auto _ : state) {
        const double t = bench::seconds_of([&] { together.run(w); });
        whole_total += bench::seconds_of([&] { whole.run(w); });
        for (std::size_t k = 0; k < alone.size(); ++k) part_total[k] += bench::seconds_of([&] { alone[k].run(w); });
        total += t;
        state.SetIterationTime(t);
    }
    double alone_rate = 0;
    for (std::size_t k = 0; k < alone.size(); ++k) {
        alone_rate += 1.0 / part_total[k];
        state.counters["part" + std::to_string(k) + "_us"] =
            part_total[k] * 1e6 / double(std::max<std::int64_t>(1, state.iterations()));
    }
    state.counters["efficiency"] = (1.0 / total) / alone_rate;
    state.counters["whole_us"] = whole_total * 1e6 / double(std::max<std::int64_t>(1, state.iterations()));
}

// A context over the same devices as all_parts(), its split moved by measured times.
loom::context balanced_parts() {
    loom::context_options o;
    o.backend = "opencl";
    o.device = devices();
    o.balance = loom::balance::dynamic;
    return loom::context(o);
}

void rebalance(benchmark::State& state) {
    const std::size_t n = std::size_t(state.range(0));
    loom::context ctx = balanced_parts();
    const double even = 1.0 / double(ctx.device_count());
    std::vector<double> start(ctx.device_count(), 0.1 / double(ctx.device_count() - 1));
    start[0] = 0.9;
    double iterations = 0, share0 = 0;
    for (auto _ : state) {
        loom::vector<float> x(ctx, n, 1.0f), y(ctx, n, 2.0f);
        ctx.set_split(start);
        int done = 0;
        const double t = bench::seconds_of([&] {
            while (std::fabs(ctx.split()[0] - even) > 0.05 * even && done < 50) {
                for (int k = 0; k < 4; ++k) y = 2.5f * x + y;
                ctx.finish();
                ++done;
            }
        });
        state.SetIterationTime(t);
        iterations += done;
        share0 += ctx.split()[0];
    }
    state.counters["iterations"] = iterations / double(state.iterations());
    state.counters["share0"] = share0 / double(state.iterations());
}

// A slowed device: two equal parts, the last given extra work of its own every iteration, as much
// again as its share of the saxpy (statements on a vector of that part alone, as large as its
// share: kernel time the rebalancing sees, as a device half as fast would show it), from an even
// split; saxpy at 2^22 four times and a finish per iteration, 30 iterations; the split should
// settle near 2/3 on the first part. Counters: `share0` where the split settles (the last iteration's) and `moves`,
// the iterations whose judgement moved the split.
void rebalance_slowed(benchmark::State& state) {
    const std::size_t n = std::size_t(state.range(0));
    loom::context ctx = balanced_parts();
    loom::context slow = ctx.parts().back();
    double share0 = 0, moves = 0;
    for (auto _ : state) {
        loom::vector<float> x(ctx, n, 1.0f), y(ctx, n, 2.0f);
        ctx.set_split(std::vector<double>(ctx.device_count(), 1.0));
        int moved = 0;
        const double t = bench::seconds_of([&] {
            for (int i = 0; i < 30; ++i) {
                const double before = ctx.split()[0];
                for (int k = 0; k < 4; ++k) y = 2.5f * x + y;
                // The slowed part's extra work: the same statements again over as many elements
                // as it holds, so that it takes twice as long an element as the other part.
                loom::vector<float> burden(slow, std::max<std::size_t>(1, std::size_t(ctx.split().back() * double(n))),
                                           1.0f);
                for (int k = 0; k < 4; ++k) burden = 2.5f * burden + burden;
                ctx.finish();
                moved += ctx.split()[0] != before;
            }
        });
        state.SetIterationTime(t);
        share0 += ctx.split()[0];
        moves += moved;
    }
    state.counters["share0"] = share0 / double(state.iterations());
    state.counters["moves"] = moves / double(state.iterations());
}

void register_all() {
    bench::set_device_timing(false);
    std::fprintf(stderr, "bench_multi_device: LOOM_BENCH_DEVICES=%s, inputs bench::random_floats seeds 1 and 2\n",
                 devices().c_str());
    benchmark::AddCustomContext("devices", devices());
    bench::add(
        "multi_device/saxpy/together", [](benchmark::State& s) { run(s, workload::saxpy); }, bench::sizes(20, 24));
    bench::add(
        "multi_device/dot/together", [](benchmark::State& s) { run(s, workload::dot); }, bench::sizes(20, 24));
    bench::add(
        "multi_device/compute/together", [](benchmark::State& s) { run(s, workload::compute); }, bench::sizes(20, 24));
    bench::add(
        "multi_device/stencil/together", [](benchmark::State& s) { run(s, workload::stencil); }, bench::sizes(20, 24));
    bench::add(
        "multi_device/spmv/together", [](benchmark::State& s) { run(s, workload::spmv); }, bench::sizes(20, 24));
    bench::add(
        "multi_device/sort/together", [](benchmark::State& s) { run(s, workload::sort); }, bench::sizes(20, 24));
    bench::add(
        "multi_device/merge/together", [](benchmark::State& s) { run(s, workload::merge); }, bench::sizes(20, 24));
    bench::add(
        "multi_device/scan_by_key/together", [](benchmark::State& s) { run(s, workload::scan_by_key); },
        bench::sizes(20, 24));
    bench::add(
        "multi_device/reduce_by_key/together", [](benchmark::State& s) { run(s, workload::reduce_by_key); },
        bench::sizes(20, 24));
    bench::add("multi_device/rebalance/slowed_part", rebalance_slowed, bench::sizes(22, 22), 0)->Iterations(1);
    bench::add("multi_device/rebalance/from_90_10", rebalance, bench::sizes(22, 22), 0)->Iterations(1);
}

} // namespace

int main(int argc, char** argv) { return bench::run(argc, argv, register_all); }
