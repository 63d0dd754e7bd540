// Kept device memory (memory_pool.hpp), and a buffer's giving its memory back when it dies.
#include "runtime/memory_pool.hpp"

#include <algorithm>
#include <utility>

#include "runtime/buffer.hpp"

namespace loom::detail {

std::uint64_t memory_pool::capacity_for(std::uint64_t global_memory) {
    return std::min<std::uint64_t>(global_memory / 16, std::uint64_t(256) << 20);
}

std::unique_ptr<backend::memory> memory_pool::take(std::uint64_t bytes) {
    std::lock_guard<std::mutex> guard(lock_);
    const auto it = free_.find(bytes);
    if (it == free_.end()) return nullptr;
    std::unique_ptr<backend::memory> m = std::move(it->second);
    free_.erase(it);
    kept_ -= bytes;
    return m;
}

void memory_pool::give(std::unique_ptr<backend::memory> m, std::uint64_t bytes) {
    {
        std::lock_guard<std::mutex> guard(lock_);
        if (bytes != 0 && bytes <= capacity_ - std::min(capacity_, kept_)) {
            free_.emplace(bytes, std::move(m));
            kept_ += bytes;
            return;
        }
    }
    m.reset(); // freed outside the lock: CUDA's free waits for the device
}

std::uint64_t memory_pool::trim() {
    std::multimap<std::uint64_t, std::unique_ptr<backend::memory>> freed;
    std::uint64_t bytes = 0;
    {
        std::lock_guard<std::mutex> guard(lock_);
        freed.swap(free_);
        std::swap(bytes, kept_);
    }
    return bytes; // `freed` frees them here, outside the lock
}

std::uint64_t memory_pool::kept() const {
    std::lock_guard<std::mutex> guard(lock_);
    return kept_;
}

buffer::~buffer() {
    if (memory && pool && !pinned.load()) pool->give(std::move(memory), bytes());
}

} // namespace loom::detail
