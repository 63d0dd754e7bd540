// When pending statements flush by themselves: the limits on what one flush may hold, what
// counts toward them, and where a flush that a limit forces cuts the stream.
// - Statements and slots are bounded to keep plan keys and kernels small.
// - Bytes: only memory the flush will really allocate counts. A target that already has
//   device memory counts nothing; nor does a temporary no live vector names any more (its
//   store is elided, so it is never allocated), nor a second write to one target (a vector's
//   fill and the assignment that overwrites it are one allocation).
// - A forced flush runs a prefix of the pending statements, cut where the fewest buffers
//   written before the cut are read after it: every such buffer must be stored and loaded
//   again, where uncut it would have stayed in registers.
#include <algorithm>

#include "runtime/context_impl.hpp"

namespace loom::detail {
namespace {

constexpr std::size_t max_pending_statements = 256;
constexpr std::size_t max_pending_slots = 4096;
constexpr std::uint64_t max_pending_bytes = std::uint64_t(1) << 30;

bool will_allocate(const buffer& b) { return !b.memory && b.vector_refs.load() > 0; }

} // namespace

void context_impl::start_pending_window() {
    ++pending_window_;
    pending_bytes_ = 0;
}

// Recounts from scratch: the unallocated targets that a live vector still names.
std::uint64_t context_impl::count_pending_bytes() {
    start_pending_window();
    for (const fusion::pending_statement& st : queue_.statements) {
        buffer& b = *st.target;
        if (b.pending_mark == pending_window_) continue;
        b.pending_mark = pending_window_;
        if (will_allocate(b)) pending_bytes_ += b.bytes();
    }
    return pending_bytes_;
}

void context_impl::after_record() {
    buffer& target = *queue_.statements.back().target;
    if (!target.memory && target.pending_mark != pending_window_) { // counted once per window
        target.pending_mark = pending_window_;
        pending_bytes_ += target.bytes();
    }
    if (queue_.statements.size() >= max_pending_statements || queue_.slots.size() >= max_pending_slots)
        flush_prefix(cut_point(), flush_cause::statement_limit);
    else if (pending_bytes_ >= max_pending_bytes && count_pending_bytes() >= max_pending_bytes)
        flush_prefix(cut_point(), flush_cause::byte_limit);
}

// The number of leading statements to run: in the second half of the queue, the cut that the
// fewest buffers cross (written before it, read after it, or named by a live vector), the
// latest of equals.
std::size_t context_impl::cut_point() {
    const std::size_t count = queue_.statements.size();
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
        const fusion::pending_statement& st = queue_.statements[s];
        for (std::size_t k = 0; k < st.shape->slots.size(); ++k)
            if (buffer* b = queue_.slots[st.first_slot + k].buffer.get()) {
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

// Runs the first `count` pending statements; the rest stay pending. On failure everything
// pending is dropped, as in flush(): the rest may read what the failed part would have written.
void context_impl::flush_prefix(std::size_t count, flush_cause cause) {
    if (count >= queue_.statements.size()) return flush(cause);
    fusion::statement_queue rest;
    const std::uint32_t first_slot = queue_.statements[count].first_slot;
    rest.slots.assign(std::make_move_iterator(queue_.slots.begin() + first_slot),
                      std::make_move_iterator(queue_.slots.end()));
    for (std::size_t s = count; s < queue_.statements.size(); ++s) {
        rest.statements.push_back(std::move(queue_.statements[s]));
        rest.statements.back().first_slot -= first_slot;
    }
    queue_.slots.resize(first_slot);
    queue_.statements.resize(count);
    flush(cause);
    // The queue is empty now: the rest becomes the pending statements.
    const std::uint32_t base = std::uint32_t(queue_.slots.size());
    for (fusion::bound_slot& slot : rest.slots) queue_.slots.push_back(std::move(slot));
    for (fusion::pending_statement& st : rest.statements) {
        st.first_slot += base;
        queue_.statements.push_back(std::move(st));
    }
    count_pending_bytes();
}

} // namespace loom::detail
