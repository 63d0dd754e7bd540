// A device buffer as the runtime sees it: length, type, lazily allocated memory, and
// the count of loom::vector objects naming it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/device.hpp"
#include "loom/detail/runtime.hpp"

namespace loom::detail {

class memory_pool;

struct buffer {
    buffer() = default;
    buffer(const buffer&) = delete;
    buffer& operator=(const buffer&) = delete;
    ~buffer(); // gives its memory back to `pool` (runtime/memory_pool.cpp)

    context_impl* ctx = nullptr; // the vectors naming this buffer keep the context alive
    std::uint64_t length = 0;
    dtype type = dtype::f32;
    std::unique_ptr<backend::memory> memory; // null until first needed
    // Where memory goes when the buffer dies (executor::allocate sets it); null: freed.
    std::shared_ptr<memory_pool> pool;
    std::atomic<int> vector_refs{0}; // vectors may die on any thread
    // loom::name's name for it, or "": read only when logging or writing a kernel's header.
    std::string name;
    // Scratch for the flush being planned: the buffer's class number in that flush.
    std::uint64_t flush_mark = 0;
    std::uint32_t flush_class = 0;
    // The pending window (flush_limits.hpp) that last counted this buffer.
    std::uint64_t pending_mark = 0;
    // The caller holds a handle of its memory (loom::native_handle) or owns it (a wrapped
    // buffer): the memory never changes hands (adopt_memory).
    std::atomic<bool> pinned{false};

    // On a context over several devices: one buffer per part (context_impl::parts), holding the
    // elements context_impl::split gives it; this buffer then never has memory of its own.
    std::vector<std::shared_ptr<buffer>> parts;
    // With parts: a loom::scalar's buffer, whose every part holds the whole (one) element. Writes
    // reach every copy; reads take the first part's.
    bool replicated = false;

    // The writes recorded to the buffer: statements committed to it, skeleton outputs, host
    // writes, copies between devices (note_write). Halos cut from a vector of several devices are
    // read again while every part is the same buffer with the same count (kept_halos.hpp).
    std::atomic<std::uint64_t> writes{0};
    // halo_reads.cpp's halos cut from this vector (of several devices), kept with it.
    std::shared_ptr<void> halos;

    std::uint64_t bytes() const { return length * size_of(type); }
};

// Counts a write to b. Not a read-modify-write: every write of a buffer is recorded under its
// context's lock, so a load and a store (plain moves, on the dispatch path of every statement)
// lose no count; the atomic only makes a read from another context's thread well defined.
inline void note_write(buffer& b) {
    b.writes.store(b.writes.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

// A fresh value for buffer::flush_mark: a pass over the queue's buffers (planning a flush,
// choosing where to cut one) marks each buffer it meets with the pass's own number. Unique in
// the process, so passes of different contexts never mistake each other's marks.
inline std::uint64_t next_flush_mark() {
    static std::atomic<std::uint64_t> last{0};
    return ++last;
}

} // namespace loom::detail
