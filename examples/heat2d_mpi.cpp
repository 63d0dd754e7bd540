// The 2-D heat equation of heat2d_multi.cpp over the ranks of an MPI program: run it as
// `mpirun -np 1|2|4 heat2d_mpi`. The plate's rows are split over the ranks (each on its own
// device, LOOM_DEVICE per rank); each step's stencil reads its neighbours across ranks from halos
// (docs/multi-device.md, "Several machines"). Rank 0 gathers the plate and checks it against the
// same steps on its own device alone: equal bit for bit.
#include <loom/loom.hpp>
#include <loom/mpi.hpp>

#include <cstdio>
#include <vector>

namespace {

const std::size_t nx = 96, ny = 96, n = nx * ny, steps = 400;
const float alpha = 0.24f;

// The plate after `steps` steps (the left edge held at 100, the other edges at 0), gathered to
// rank 0 where ctx is over ranks.
std::vector<float> heat(loom::context& ctx) {
    std::vector<float> h0(n, 0.0f), hmask(n, 1.0f);
    for (std::size_t j = 0; j < ny; ++j)
        for (std::size_t i = 0; i < nx; ++i)
            if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) {
                hmask[j * nx + i] = 0.0f;
                if (i == 0) h0[j * nx + i] = 100.0f;
            }
    loom::vector<float> u(ctx, h0), next(ctx, n), mask(ctx, hmask);
    for (std::size_t step = 0; step < steps; ++step) {
        const auto g = loom::grid(u, nx, ny);
        next = u + alpha * mask *
                       (loom::at(g, -1, 0) + loom::at(g, 1, 0) + loom::at(g, 0, -1) + loom::at(g, 0, 1) - 4.0f * u);
        loom::swap(u, next);
    }
    return loom::mpi::ranks(ctx) > 1 || ctx.device_count() > 1 ? loom::mpi::gather_to_root(u) : u.to_host();
}

} // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int status = 0;
    {
        loom::context local;
        loom::context ranked = loom::mpi::context(MPI_COMM_WORLD, local);
        const std::vector<float> field = heat(ranked);
        if (loom::mpi::rank(ranked) == 0) {
            const std::vector<float> reference = heat(local);
            std::size_t differ = 0;
            for (std::size_t k = 0; k < n; ++k) differ += field[k] != reference[k];
            std::printf("heat2d_mpi %zux%zu, %zu steps over %d ranks: centre %.4f; %zu of %zu cells differ from one "
                        "device\n",
                        nx, ny, steps, loom::mpi::ranks(ranked), double(field[(ny / 2) * nx + nx / 2]), differ, n);
            status = differ == 0 ? 0 : 1;
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
