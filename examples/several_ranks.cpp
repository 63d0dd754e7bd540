// One program over the ranks of an MPI program (docs/multi-device.md, "Several machines"): run it
// as `mpirun -np 2 several_ranks` (or -np 1, 4, ...). Every rank runs the same statements on its
// part of each vector, on its own device (LOOM_DEVICE picks it, per rank); the sum and the scan
// combine every rank's part; rank 0 gathers the result and checks it against the host.
#include <loom/loom.hpp>
#include <loom/mpi.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int status = 0;
    {
        loom::context ctx = loom::mpi::context(MPI_COMM_WORLD);
        const int rank = loom::mpi::rank(ctx);
        std::printf("rank %d of %d: %s\n", rank, loom::mpi::ranks(ctx), ctx.device_name().c_str());

        const std::size_t n = std::size_t(1) << 22;
        loom::vector<float> x(ctx, n), y(ctx, n);
        x = loom::random_uniform<float>(2024);                 // the same numbers as on one device
        y = 2.0f * x + loom::sin(x);                           // each rank computes its part
        const double total = loom::sum(loom::cast<double>(y)); // every rank's partials, on every rank
        loom::vector<float> running(ctx, n);
        loom::inclusive_scan(y, running); // each rank's parts carry the ranks' before them

        const std::vector<float> hx = loom::mpi::gather_to_root(x), hy = loom::mpi::gather_to_root(y);
        const std::vector<float> last = loom::mpi::gather_to_root(running);
        if (rank == 0) {
            double want = 0;
            for (std::size_t i = 0; i < n; ++i) want += double(2.0f * hx[i] + std::sin(hx[i]));
            std::printf("sum %.6f (host %.6f); last running sum %.1f\n", total, want, double(last[n - 1]));
            status = std::fabs(total - want) <= 1e-6 * std::fabs(want) ? 0 : 1;
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
