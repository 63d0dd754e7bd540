// The flush limits (flush_limits.hpp).
// - Statements and slots are bounded to keep plan keys and kernels small.
// - Bytes: only memory the flush will really allocate counts. A target that already has
//   device memory counts nothing; nor does a temporary no live vector names any more (its
//   store is elided, so it is never allocated), nor a second write to one target (a vector's
//   fill and the assignment that overwrites it are one allocation).
// - A forced flush runs a prefix of the pending statements, cut where the fewest buffers
//   written before the cut are read after it: every such buffer must be stored and loaded
//   again, where uncut it would have stayed in registers.
#include "runtime/flush_limits.hpp"

#include <algorithm>
#include <vector>

#include "runtime/buffer.hpp"

namespace loom::detail {
namespace {

constexpr std::size_t max_pending_statements = 256;
constexpr std::size_t max_pending_slots = 4096;
constexpr std::uint64_t max_pending_bytes = std::uint64_t(1) << 30;

bool will_allocate(const buffer& b) { return !b.memory && b.vector_refs.load() > 0; }

} // namespace

// Recounts from scratch: the unallocated targets that a live vector still names.
std::uint64_t flush_limits::recount(const fusion::statement_queue& queue) {
    start_window();
    for (const fusion::pending_statement& st : queue.statements) {
        buffer& b = *st.target;
        if (b.pending_mark == window_) continue;
        b.pending_mark = window_;
        if (will_allocate(b)) bytes_ += b.bytes();
    }
    return bytes_;
}

flush_limits::limit flush_limits::reached(const fusion::statement_queue& queue) {
    buffer& target = *queue.statements.back().target;
    if (!target.memory && target.pending_mark != window_) { // counted once per window
        target.pending_mark = window_;
        bytes_ += target.bytes();
    }
    if (queue.statements.size() >= max_pending_statements || queue.slots.size() >= max_pending_slots)
        return limit::statements;
    if (bytes_ >= max_pending_bytes && recount(queue) >= max_pending_bytes) return limit::bytes;
    return limit::none;
}

// The number of leading statements to run: in the second half of the queue, the cut that the
// fewest buffers cross (written before it, read after it, or named by a live vector), the
// latest of equals.
std::size_t flush_limits::cut_point(const fusion::statement_queue& queue) {
    const std::size_t count = queue.statements.size();
    // Per buffer: the first statement writing it and the last reading it.
    std::vector<buffer*> buffers;
    std::vector<std::size_t> first_write, last_read;
    const std::uint64_t generation = next_flush_mark();
    auto index_of = [&](buffer& b) {
        if (b.flush_mark != generation) {
            b.flush_mark = generation;
            b.flush_class = std::uint32_t(buffers.size());
            buffers.push_back(&b);
            first_write.push_back(count);
            last_read.push_back(0);
        }
        return b.flush_class;
    };
    for (std::size_t s = 0; s < count; ++s) {
        const fusion::pending_statement& st = queue.statements[s];
        for (std::size_t k = 0; k < st.shape->slots.size(); ++k)
            if (buffer* b = queue.slots[st.first_slot + k].buffer.get()) {
                const std::uint32_t i = index_of(*b);
                last_read[i] = std::max(last_read[i], s);
            }
        const std::uint32_t t = index_of(*st.target);
        first_write[t] = std::min(first_write[t], s);
    }
    // A buffer a live vector still names may be read by statements not yet recorded (the
    // rest of a loop body): a cut anywhere after its first write is crossed by it.
    for (std::size_t i = 0; i < buffers.size(); ++i)
        if (buffers[i]->vector_refs.load() > 0) last_read[i] = count;
    // Buffer i crosses cut c (statements [0, c) run) when first_write < c <= last_read.
    std::vector<int> crossing(count + 2, 0);
    for (std::size_t i = 0; i < buffers.size(); ++i)
        if (first_write[i] < last_read[i]) {
            ++crossing[first_write[i] + 1];
            --crossing[last_read[i] + 1];
        }
    std::size_t best = count;
    int running = 0, fewest = 0;
    for (std::size_t c = 1; c <= count; ++c) {
        running += crossing[c];
        if (c < std::max<std::size_t>(1, count / 2)) continue;
        if (c == std::max<std::size_t>(1, count / 2) || running <= fewest) {
            fewest = running;
            best = c;
        }
    }
    return best;
}

} // namespace loom::detail
