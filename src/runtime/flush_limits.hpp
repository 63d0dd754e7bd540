// When pending statements flush by themselves: the limits on what one flush may hold, what
// counts toward them, and where a flush that a limit forces cuts the stream (flush_limits.cpp).
// It reads the queue and the buffers' marks; the context runs the flush it asks for.
#pragma once

#include <cstddef>
#include <cstdint>

#include "fusion/statement_queue.hpp"

namespace loom::detail {

class flush_limits {
public:
    enum class limit : std::uint8_t { none, statements, bytes };

    // A new window: each flush starts one, and the bytes the pending statements would
    // allocate count from zero in it (each target once).
    void start_window() {
        ++window_;
        bytes_ = 0;
    }
    // After a statement is recorded (the queue's last): the limit the queue has reached, if any.
    limit reached(const fusion::statement_queue& queue);
    // The number of leading statements a forced flush runs (the cut the fewest buffers cross).
    static std::size_t cut_point(const fusion::statement_queue& queue);
    // Recounts the bytes of the statements still pending (after a forced flush ran a prefix).
    std::uint64_t recount(const fusion::statement_queue& queue);

private:
    // The bytes the pending statements would allocate: each target without device memory,
    // counted once per window; recounted at a limit, when only the targets a live vector
    // still names count.
    std::uint64_t bytes_ = 0;
    std::uint64_t window_ = 0;
};

} // namespace loom::detail
