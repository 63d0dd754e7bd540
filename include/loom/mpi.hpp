// loom::mpi: one vector over the processes of an MPI program, each process (rank) holding a
// contiguous part on its own device or devices (docs/multi-device.md, "Several machines").
// Every rank runs the same program: element-wise statements run on each rank's part with no
// message; reductions and scans exchange one partial result per part; host reads are collective
// (every rank receives the data); gather_to_root and scatter_from_root move a whole vector to or
// from one rank. Built with -DLOOM_WITH_MPI=ON; link loom::mpi.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "loom/context.hpp"
#include "loom/vector.hpp"

namespace loom::mpi {

// A context whose vectors are split over the ranks of `comm`, in proportion to each rank's devices
// (their compute units, a GPU's counted 16 times), and each rank's share over `local`'s device or
// devices (a context of several: LOOM_DEVICE=0/2 on each rank). Collective over `comm`, which Loom
// duplicates, so its messages never meet the program's own. MPI must be initialised (MPI_Init) and
// stay so while the context lives.
loom::context context(MPI_Comm comm = MPI_COMM_WORLD, const loom::context& local = loom::context());

// This process's rank in the context's communicator, and their number (0 and 1 for a context that
// is not over ranks).
int rank(const loom::context& ctx);
int ranks(const loom::context& ctx);

namespace detail {
int rank_of(const loom::detail::buffer_ptr& b); // this process's rank in the communicator of b's context
void gather_to_root(const loom::detail::buffer_ptr& b, void* host, int root);
void scatter_from_root(const loom::detail::buffer_ptr& b, const void* host, std::size_t host_size, int root);
} // namespace detail

// The whole of x on rank `root`, in order; an empty vector on every other rank. Collective.
template <class T> std::vector<T> gather_to_root(const loom::vector<T>& x, int root = 0) {
    std::vector<T> host(detail::rank_of(x.buffer()) == root ? x.size() : 0);
    detail::gather_to_root(x.buffer(), host.data(), root);
    return host;
}

// x's elements from `host` on rank `root` (x.size() of them); `host` is not read on the other
// ranks. Collective.
template <class T> void scatter_from_root(loom::vector<T>& x, const std::vector<T>& host, int root = 0) {
    detail::scatter_from_root(x.buffer(), host.data(), host.size(), root);
}

} // namespace loom::mpi
