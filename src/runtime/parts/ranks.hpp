// The processes a context's vectors are split over (loom::mpi, docs/multi-device.md "Several
// machines"): this process's rank among them and the collective moves the runtime needs. Every
// rank runs the same statements on its own part; what crosses ranks is a reduction's partial
// results, a scan's part totals, and data a host read or gather_to_root asks for. The runtime
// knows no MPI: src/mpi implements this over an MPI communicator.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "loom/context.hpp"

namespace loom::detail {

class rank_group {
public:
    virtual ~rank_group() = default;
    virtual std::size_t rank() const = 0;
    virtual std::size_t size() const = 0;

    // Each call is collective: every rank calls it with the same `counts` (elements of
    // `element_bytes` each, one count per rank, in rank order), and rank r's elements go to their
    // place in `all`, after the counts of the ranks before r.
    // Every rank's `mine` into every rank's `all`.
    virtual void allgather(const void* mine, void* all, std::size_t element_bytes,
                           const std::vector<std::uint64_t>& counts) const = 0;
    // Every rank's `mine` into `all` on rank `root` (elsewhere `all` is not touched).
    virtual void gather(const void* mine, void* all, std::size_t element_bytes,
                        const std::vector<std::uint64_t>& counts, std::size_t root) const = 0;
    // Rank r's place in `all` on rank `root` into rank r's `mine`.
    virtual void scatter(const void* all, void* mine, std::size_t element_bytes,
                         const std::vector<std::uint64_t>& counts, std::size_t root) const = 0;
};

// A context whose vectors are split over `ranks`, this rank's share over `local`'s device (or its
// parts, where it has several). Collective: every rank makes its own at once.
loom::context open_ranked_context(const loom::context& local, std::shared_ptr<const rank_group> ranks);

} // namespace loom::detail
