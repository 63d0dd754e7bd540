// Iterations of a loom::loop_while body gathered into one launch. When every iteration of
// the body is one launch of the same single-group kernel (the held reduction pass with the
// loop's bookkeeping at its end), with the same by-value arguments and its buffers moved
// from one iteration to the next by the same loom::swap pattern, the batch collects them and
// the held pass's skeleton builds a looped variant that runs them all, with a barrier between
// iterations and its pointers rotated as the swaps did (docs/skeleton-loop.md). On PoCL a
// launch costs about as much as an iteration's work at n = 4096; this saves all but one.
#pragma once

#include <cstdint>
#include <vector>

#include "backend/device.hpp"
#include "runtime/buffer.hpp"

namespace loom::detail {

class iteration_batch {
public:
    // Iterations one launch runs at most: bounds how long the device waits for the host to
    // record a batch before it starts (loop_while's check_every bounds it too, since its read
    // of the condition launches the batch).
    static constexpr std::uint32_t max_iterations = 16;

    bool empty() const { return count_ == 0; }
    std::uint32_t size() const { return count_; }
    backend::kernel& kernel() const { return *kernel_; }
    const backend::geometry& geometry() const { return geometry_; }
    // The first iteration's arguments (by-value ones point into the batch).
    const std::vector<backend::kernel_arg>& first_arguments() const { return first_; }
    // rotation()[j]: the argument position whose buffer position j takes in the next iteration.
    // Empty while the batch holds one iteration.
    const std::vector<std::uint32_t>& rotation() const { return rotation_; }

    // Adds an iteration launching `k` with `args` over `g`: starts the batch when it is empty.
    // Returns false, changing nothing, when the iteration does not continue the batch (another
    // kernel or geometry, other by-value arguments, buffers not moved by the batch's rotation)
    // or the batch is full; launch the batch, clear it and add the iteration again.
    bool add(backend::kernel& k, const std::vector<backend::kernel_arg>& args, const backend::geometry& g);
    // Buffers the batch's launch must keep alive until it runs.
    std::vector<buffer_ptr>& keep() { return keep_; }

    // Each iteration's arguments in turn, rebuilt from the first and the rotation: the launches
    // the batch stands for, for a device that cannot run the looped variant.
    template <class Launch> void for_each_iteration(Launch&& launch) const {
        std::vector<backend::kernel_arg> now = first_, next = first_;
        for (std::uint32_t t = 0; t < count_; ++t) {
            launch(now);
            if (!rotation_.empty())
                for (std::size_t j = 0; j < now.size(); ++j)
                    if (now[j].buffer) next[j].buffer = now[rotation_[j]].buffer;
            now.swap(next);
        }
    }

    void clear();

private:
    bool continues(const std::vector<backend::kernel_arg>& args) const;

    backend::kernel* kernel_ = nullptr;
    backend::geometry geometry_;
    std::uint32_t count_ = 0;
    std::vector<backend::kernel_arg> first_;
    std::vector<std::uint64_t> values_;          // the first iteration's by-value arguments
    std::vector<const backend::memory*> latest_; // the buffers of the latest iteration, per position
    std::vector<std::uint32_t> rotation_;
    std::vector<buffer_ptr> keep_;
};

} // namespace loom::detail
