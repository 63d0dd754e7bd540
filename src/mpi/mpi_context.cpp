// loom::mpi over an MPI communicator; see loom/mpi.hpp. The runtime's rank_group
// (runtime/parts/ranks.hpp) is implemented here with MPI's collectives, on a duplicate of the
// program's communicator whose errors return (MPI_ERRORS_RETURN) and become loom::error.
#include "loom/mpi.hpp"

#include <climits>
#include <memory>
#include <string>

#include "loom/error.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/parted_buffer.hpp"
#include "runtime/parts/ranks.hpp"

namespace loom::mpi {
namespace {

void check(int code, const char* what) {
    if (code == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    throw error(std::string("loom::mpi: ") + what + " failed: " + std::string(text, std::size_t(length)));
}

// MPI's int counts and displacements, in elements of one contiguous type of `bytes` bytes.
class element_layout {
public:
    element_layout(std::size_t bytes, const std::vector<std::uint64_t>& counts) {
        std::uint64_t at = 0;
        for (std::uint64_t c : counts) {
            if (c > INT_MAX || at > INT_MAX)
                throw error("loom::mpi: a transfer of " + std::to_string(at + c) +
                            " elements is more than MPI's int counts reach (2^31 - 1 elements); gather or "
                            "scatter a vector of fewer elements");
            counts_.push_back(int(c));
            displacements_.push_back(int(at));
            at += c;
        }
        check(MPI_Type_contiguous(int(bytes), MPI_BYTE, &type_), "MPI_Type_contiguous");
        check(MPI_Type_commit(&type_), "MPI_Type_commit");
    }
    ~element_layout() { MPI_Type_free(&type_); }
    element_layout(const element_layout&) = delete;
    element_layout& operator=(const element_layout&) = delete;

    MPI_Datatype type() const { return type_; }
    const int* counts() const { return counts_.data(); }
    const int* displacements() const { return displacements_.data(); }
    int count(std::size_t rank) const { return counts_[rank]; }

private:
    std::vector<int> counts_, displacements_;
    MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

class communicator_ranks final : public loom::detail::rank_group {
public:
    explicit communicator_ranks(MPI_Comm comm) {
        int initialised = 0, finalised = 0;
        MPI_Initialized(&initialised);
        MPI_Finalized(&finalised);
        if (!initialised || finalised)
            throw error("loom::mpi::context: MPI is not running; call MPI_Init (or MPI_Init_thread) first, and "
                        "MPI_Finalize only after the last Loom context of the program is gone");
        check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
        MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
        int r = 0, n = 0;
        MPI_Comm_rank(comm_, &r);
        MPI_Comm_size(comm_, &n);
        rank_ = std::size_t(r);
        size_ = std::size_t(n);
    }
    ~communicator_ranks() override {
        int finalised = 0;
        MPI_Finalized(&finalised);
        if (!finalised) MPI_Comm_free(&comm_);
    }
    communicator_ranks(const communicator_ranks&) = delete;
    communicator_ranks& operator=(const communicator_ranks&) = delete;

    std::size_t rank() const override { return rank_; }
    std::size_t size() const override { return size_; }

    void allgather(const void* mine, void* all, std::size_t bytes,
                   const std::vector<std::uint64_t>& counts) const override {
        const element_layout l(bytes, counts);
        check(MPI_Allgatherv(mine, l.count(rank_), l.type(), all, l.counts(), l.displacements(), l.type(), comm_),
              "MPI_Allgatherv");
    }
    void gather(const void* mine, void* all, std::size_t bytes, const std::vector<std::uint64_t>& counts,
                std::size_t root) const override {
        const element_layout l(bytes, counts);
        check(
            MPI_Gatherv(mine, l.count(rank_), l.type(), all, l.counts(), l.displacements(), l.type(), int(root), comm_),
            "MPI_Gatherv");
    }
    void scatter(const void* all, void* mine, std::size_t bytes, const std::vector<std::uint64_t>& counts,
                 std::size_t root) const override {
        const element_layout l(bytes, counts);
        check(MPI_Scatterv(all, l.counts(), l.displacements(), l.type(), mine, l.count(rank_), l.type(), int(root),
                           comm_),
              "MPI_Scatterv");
    }

private:
    MPI_Comm comm_ = MPI_COMM_NULL;
    std::size_t rank_ = 0, size_ = 1;
};

const loom::detail::rank_group& ranks_of(const loom::detail::buffer_ptr& b, const char* what) {
    if (!b)
        throw error(std::string("loom::mpi::") + what + ": the vector is empty (default-constructed or moved from)");
    if (!b->ctx->ranks())
        throw error(std::string("loom::mpi::") + what +
                    ": the vector's context is not over MPI ranks; make it with loom::mpi::context");
    return *b->ctx->ranks();
}

void check_root(const loom::detail::rank_group& ranks, int root, const char* what) {
    if (root < 0 || std::size_t(root) >= ranks.size())
        throw error(std::string("loom::mpi::") + what + ": root " + std::to_string(root) + " is not a rank of the " +
                    std::to_string(ranks.size()) + " of the context's communicator");
}

} // namespace

loom::context context(MPI_Comm comm, const loom::context& local) {
    return loom::detail::open_ranked_context(local, std::make_shared<communicator_ranks>(comm));
}

int rank(const loom::context& ctx) {
    const loom::detail::rank_group* ranks = ctx.impl()->ranks();
    return ranks ? int(ranks->rank()) : 0;
}

int ranks(const loom::context& ctx) {
    const loom::detail::rank_group* ranks = ctx.impl()->ranks();
    return ranks ? int(ranks->size()) : 1;
}

int detail::rank_of(const loom::detail::buffer_ptr& b) { return int(ranks_of(b, "gather_to_root").rank()); }

void detail::gather_to_root(const loom::detail::buffer_ptr& b, void* host, int root) {
    check_root(ranks_of(b, "gather_to_root"), root, "gather_to_root");
    std::lock_guard<std::recursive_mutex> guard(b->ctx->mutex());
    loom::detail::gather_parts_to_root(*b, host, std::size_t(root));
}

void detail::scatter_from_root(const loom::detail::buffer_ptr& b, const void* host, std::size_t host_size, int root) {
    const loom::detail::rank_group& ranks = ranks_of(b, "scatter_from_root");
    check_root(ranks, root, "scatter_from_root");
    // Every rank learns whether the root's data fits before any moves it.
    std::uint64_t size = host_size;
    std::vector<std::uint64_t> sizes(ranks.size());
    ranks.allgather(&size, sizes.data(), sizeof size, std::vector<std::uint64_t>(ranks.size(), 1));
    if (sizes[std::size_t(root)] != b->length)
        throw length_error("loom::mpi::scatter_from_root: the root's host data has " +
                           std::to_string(sizes[std::size_t(root)]) + " elements and the vector " +
                           std::to_string(b->length));
    std::lock_guard<std::recursive_mutex> guard(b->ctx->mutex());
    loom::detail::scatter_parts_from_root(*b, host, std::size_t(root));
}

} // namespace loom::mpi
