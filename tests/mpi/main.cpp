// The loom::mpi suite's main: MPI around doctest. Every rank runs every case (the cases are
// collective); rank 0 reports in full, the others only their failures; the exit status is the
// worst of the ranks'.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <mpi.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    doctest::Context context(argc, argv);
    if (rank != 0) context.setOption("minimal", true);
    int status = context.run();
    int worst = 0;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
}
