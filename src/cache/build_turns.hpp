// One build of a kernel text per device at a time in the whole process. Contexts each compile
// their own programs; two of them building the same text at once make some drivers (PoCL with
// its own kernel cache off) race on their temporary files and abort, and so do two releases.
// A context that misses a kernel in memory takes the kernel's turn (its cache key names the text
// and the device) for its disk load or build, and again to release it; a second one asking
// meanwhile waits, then loads the binary the first one shared instead of building the text
// again. Only program cache misses and a context's end come here, never a cached dispatch.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cache/disk_cache.hpp"

namespace loom::cache {

// A binary built by the thread whose turn came before, with its kind ("opencl-binary", ...).
struct shared_binary {
    std::vector<unsigned char> binary;
    std::string kind;
};

class build_turn {
public:
    // Waits until no other thread holds the turn of key k, then holds it. Hold one turn at a time.
    explicit build_turn(const key& k);
    // Passes the turn on; the shared binary stays while other threads wait for the turn.
    ~build_turn();
    build_turn(const build_turn&) = delete;
    build_turn& operator=(const build_turn&) = delete;

    // What a thread holding this turn before shared while this one waited; null when none did.
    const shared_binary* shared() const;
    // Leaves this thread's build for the threads waiting for the turn (an empty binary: nothing).
    void share(const std::vector<unsigned char>& binary, const std::string& kind);

    struct slot;

private:
    key key_;
    std::shared_ptr<slot> slot_;
    std::unique_lock<std::mutex> held_;
};

} // namespace loom::cache
