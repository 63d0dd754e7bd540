// Kept device memory (memory_pool.hpp), and a buffer's giving its memory back when it dies.
#include "runtime/memory_pool.hpp"

#include <algorithm>
#include <utility>

#include "runtime/buffer.hpp"

namespace loom::detail {

namespace {

struct pool_registry {
    std::mutex lock;
    std::vector<std::weak_ptr<memory_pool>> pools;
};

pool_registry& registry() {
    static pool_registry& r = *new pool_registry; // never destroyed: buffers may die at exit
    return r;
}

} // namespace

std::shared_ptr<memory_pool> memory_pool::make(std::uint64_t capacity) {
    auto pool = std::make_shared<memory_pool>(capacity);
    pool_registry& r = registry();
    std::lock_guard<std::mutex> guard(r.lock);
    r.pools.erase(std::remove_if(r.pools.begin(), r.pools.end(), [](const auto& w) { return w.expired(); }),
                  r.pools.end());
    r.pools.push_back(pool);
    return pool;
}

std::uint64_t memory_pool::trim_all() {
    std::vector<std::shared_ptr<memory_pool>> live;
    {
        pool_registry& r = registry();
        std::lock_guard<std::mutex> guard(r.lock);
        for (const std::weak_ptr<memory_pool>& w : r.pools)
            if (auto p = w.lock()) live.push_back(std::move(p));
    }
    std::uint64_t bytes = 0;
    for (const std::shared_ptr<memory_pool>& p : live) bytes += p->trim();
    return bytes;
}

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
