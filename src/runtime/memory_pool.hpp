// Device memory that dead buffers gave back, kept for the next buffer of the same size: a loop
// that makes and drops temporaries (a reduction's result adopted by its target, whose old memory
// the temporary then frees) allocates nothing after its first iteration. A driver allocation
// costs host time on every backend, and CUDA's cuMemFree waits for the device.
//
// Reuse needs no wait: every use of a context's memory is enqueued on its device's one in-order
// queue or stream (kernels, transfers; a copy between two parts' devices makes the source's queue
// wait for it, parts/parted_buffer.cpp), so work enqueued after a buffer died runs after
// everything that used its memory. Memory the caller holds a handle of (loom::native_handle, a
// wrapped buffer) is never kept. What is kept stays counted as in use (backend::memory_ledger);
// before refusing an allocation for want of room, the executor frees what every context keeps
// (another context's kept memory counts on the same device).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "backend/device.hpp"

namespace loom::detail {

class memory_pool {
public:
    // Keeps at most `capacity` bytes.
    explicit memory_pool(std::uint64_t capacity) : capacity_(capacity) {}
    memory_pool(const memory_pool&) = delete;
    memory_pool& operator=(const memory_pool&) = delete;

    // A pool that trim_all reaches while it lives.
    static std::shared_ptr<memory_pool> make(std::uint64_t capacity);
    // Frees what every pool made by make keeps; the bytes freed.
    static std::uint64_t trim_all();

    // The capacity for a device of `global_memory` bytes: a sixteenth of it, at most 256 MiB.
    static std::uint64_t capacity_for(std::uint64_t global_memory);

    // Kept memory of exactly `bytes`, or null.
    std::unique_ptr<backend::memory> take(std::uint64_t bytes);
    // Keeps m, of `bytes`, where it fits beside what is kept; frees it otherwise. Any thread.
    void give(std::unique_ptr<backend::memory> m, std::uint64_t bytes);
    // Frees everything kept; the bytes freed.
    std::uint64_t trim();
    std::uint64_t kept() const;

private:
    mutable std::mutex lock_;
    std::multimap<std::uint64_t, std::unique_ptr<backend::memory>> free_;
    std::uint64_t kept_ = 0;
    const std::uint64_t capacity_;
};

} // namespace loom::detail
