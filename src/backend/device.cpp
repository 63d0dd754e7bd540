// What the backends share: the ledger of device memory per physical device, kept across every
// context of the process, and the allocation that consults it before the driver is asked.
#include "backend/device.hpp"

#include <map>
#include <mutex>

namespace loom::backend {

bool memory_ledger::reserve(std::uint64_t bytes, std::uint64_t limit) {
    std::uint64_t now = in_use_.load();
    do {
        if (limit != 0 && (bytes > limit || now > limit - bytes)) return false;
    } while (!in_use_.compare_exchange_weak(now, now + bytes));
    return true;
}

memory_ledger& ledger_of(const std::string& id) {
    struct ledgers {
        std::mutex lock;
        std::map<std::string, std::unique_ptr<memory_ledger>> by_device;
    };
    static ledgers& all = *new ledgers; // never destroyed: buffers of static contexts free at exit
    std::lock_guard<std::mutex> guard(all.lock);
    std::unique_ptr<memory_ledger>& ledger = all.by_device[id];
    if (!ledger) ledger = std::make_unique<memory_ledger>();
    return *ledger;
}

// Reserved before the driver is asked, so that two contexts allocating at once cannot both pass.
std::unique_ptr<memory> device::allocate(std::size_t bytes) {
    memory_ledger& counted = ledger();
    const std::uint64_t total = info().global_memory;
    if (!counted.reserve(bytes, total))
        throw out_of_memory("loom: out of device memory: allocating " + std::to_string(bytes) + " bytes on " +
                            info().name + ", which has " + std::to_string(total) + " bytes in all, " +
                            std::to_string(counted.in_use()) +
                            " of them allocated already by this process's contexts; free vectors you no longer "
                            "need, or use smaller ones");
    std::unique_ptr<memory> m;
    try {
        m = allocate_memory(bytes);
    } catch (...) {
        counted.release(bytes);
        throw;
    }
    m->ledger_ = &counted;
    m->bytes_ = bytes;
    return m;
}

// A caller that asked copies_from first never reaches these.
void device::copy_between(const memory&, std::size_t, memory&, std::size_t, std::size_t) {
    throw error("loom: internal error: a copy between devices on a device that cannot make one; please report it");
}
std::unique_ptr<queue_mark> device::mark() {
    throw error("loom: internal error: a queue mark on a device that cannot make one; please report it");
}
void device::wait_for(const queue_mark&) {
    throw error("loom: internal error: a wait for another queue on a device that cannot make one; please report it");
}

} // namespace loom::backend
