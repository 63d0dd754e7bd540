// A vector over the ranks of an MPI program, summed on every rank, through an installed Loom.
#include <loom/loom.hpp>
#include <loom/mpi.hpp>

#include <cstdio>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int status = 1;
    {
        loom::context ctx = loom::mpi::context(MPI_COMM_WORLD);
        loom::vector<float> x(ctx, 1000, 2.0f);
        const float total = loom::sum(x * x);
        std::printf("rank %d of %d: sum %g\n", loom::mpi::rank(ctx), loom::mpi::ranks(ctx), double(total));
        status = total == 4000.0f ? 0 : 1;
    }
    MPI_Finalize();
    return status;
}
