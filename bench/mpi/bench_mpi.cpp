// bench_mpi: loom::mpi's efficiency (docs/multi-device.md, "Several machines"). Run under mpirun
// with each rank on its own cores, for example on a 2-core machine
//   POCL_MAX_PTHREAD_COUNT=1 mpirun --oversubscribe --bind-to none -x POCL_MAX_PTHREAD_COUNT
//       -np 2 build-test/bench/bench_mpi [workload]
// (workloads: saxpy, dot, compute, stencil: 100 steps of the 2-D 5-point stencil; all by default).
// For each workload and size: the time of the work on every rank at once (a vector over the
// ranks), then each rank's time for the whole of it alone (a context of its own device, the other
// ranks idle), and the efficiency: throughput over the ranks / the sum of each rank's throughput
// alone. Medians of 11 timed runs after 3 warm-ups; every run starts and ends at a barrier, so a
// time is the slowest rank's. Printed by rank 0 as a table, one row per workload and size.
#include <loom/loom.hpp>
#include <loom/mpi.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace {

constexpr int warm_ups = 3, runs = 11;

// One run of `work` (nothing where empty) from a barrier to a barrier, in ms: the slowest rank's.
double timed(const std::function<void()>& work) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    if (work) work();
    MPI_Barrier(MPI_COMM_WORLD);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The workload on context c over n elements, as work to time (each run ends when its result is
// on the host or the device has finished).
std::function<void()> workload(const std::string& name, loom::context& c, std::size_t n) {
    auto x = std::make_shared<loom::vector<float>>(c, n), y = std::make_shared<loom::vector<float>>(c, n);
    *x = loom::random_uniform<float>(1);
    *y = loom::random_uniform<float>(2);
    if (name == "saxpy")
        return [x, y, &c] {
            *y = 2.0f * *x + *y;
            c.finish();
        };
    if (name == "dot") return [x, y] { (void)loom::sum(*x * *y); };
    if (name == "stencil") // 100 steps of the 2-D 5-point stencil on a square grid: halos cross the ranks
        return [x, y, &c, n] {
            const std::size_t side = std::size_t(std::lround(std::sqrt(double(n))));
            for (int step = 0; step < 100; ++step) {
                const auto g = loom::grid(*x, side, side);
                *y = *x + 0.2f * (loom::at(g, -1, 0) + loom::at(g, 1, 0) + loom::at(g, 0, -1) + loom::at(g, 0, 1) -
                                  4.0f * *x);
                loom::swap(*x, *y);
            }
            c.finish();
        };
    return [x, y, &c] { // four math calls an element: bound by arithmetic
        *y = loom::sin(*x) * loom::cos(*y) + loom::exp(*x * 0.5f) - loom::sqrt(*y + 1.0f);
        c.finish();
    };
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    {
        loom::context local;
        loom::context ranked = loom::mpi::context(MPI_COMM_WORLD, local);
        const int rank = loom::mpi::rank(ranked), ranks = loom::mpi::ranks(ranked);
        if (rank == 0)
            std::printf("bench_mpi: %d ranks, rank 0 on %s\n%-8s %-5s %12s %s %12s\n", ranks,
                        local.device_name().c_str(), "workload", "size", "ranks (ms)", "each rank alone (ms)",
                        "efficiency (range)");
        const std::string only = argc > 1 ? argv[1] : "";
        for (const std::string name : {"saxpy", "dot", "compute", "stencil"})
            for (int log2 : {20, 22, 24}) {
                if (!only.empty() && name != only) continue;
                const std::size_t n = std::size_t(1) << log2;
                const std::function<void()> together = workload(name, ranked, n), mine = workload(name, local, n);
                // Run by run in turn: the work over the ranks, then each rank alone while the
                // others wait at the barriers; the efficiency of each run, then their median.
                std::vector<double> over_ranks, efficiency;
                std::vector<std::vector<double>> alone(static_cast<std::size_t>(ranks));
                for (int run = 0; run < warm_ups + runs; ++run) {
                    const double t = timed(together);
                    double summed = 0; // the ranks' throughputs alone, elements per ms
                    std::vector<double> each;
                    for (int r = 0; r < ranks; ++r) {
                        each.push_back(timed(r == rank ? mine : std::function<void()>()));
                        summed += double(n) / each.back();
                    }
                    if (run < warm_ups) continue;
                    over_ranks.push_back(t);
                    for (int r = 0; r < ranks; ++r) alone[std::size_t(r)].push_back(each[std::size_t(r)]);
                    efficiency.push_back(double(n) / t / summed);
                }
                if (rank == 0) {
                    std::string each;
                    for (const std::vector<double>& a : alone) {
                        char cell[32];
                        std::snprintf(cell, sizeof cell, "%s%.3f", each.empty() ? "" : " ", median(a));
                        each += cell;
                    }
                    const auto [lo, hi] = std::minmax_element(efficiency.begin(), efficiency.end());
                    std::printf("%-8s 2^%-3d %12.3f %20s %8.2f (%.2f-%.2f)\n", name.c_str(), log2, median(over_ranks),
                                each.c_str(), median(efficiency), *lo, *hi);
                }
            }
    }
    MPI_Finalize();
    return 0;
}
