// The process's build turns (build_turns.hpp): one slot per key while threads hold or wait for it.
#include "cache/build_turns.hpp"

#include <map>
#include <utility>

namespace loom::cache {

struct build_turn::slot {
    std::mutex turn;                     // held by the thread whose turn it is
    std::size_t users = 0;               // the holder and the waiters, under the registry's lock
    std::optional<shared_binary> binary; // written and read with `turn` held
};

namespace {

struct registry {
    std::mutex lock;
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::shared_ptr<build_turn::slot>> slots;
};

// Never destroyed: contexts may still build from other threads while the process exits.
registry& turns() {
    static registry* r = new registry;
    return *r;
}

} // namespace

build_turn::build_turn(const key& k) : key_(k) {
    registry& r = turns();
    {
        std::lock_guard<std::mutex> guard(r.lock);
        std::shared_ptr<slot>& s = r.slots[{k.high, k.low}];
        if (!s) s = std::make_shared<slot>();
        ++s->users;
        slot_ = s;
    }
    held_ = std::unique_lock<std::mutex>(slot_->turn);
}

build_turn::~build_turn() {
    held_.unlock();
    registry& r = turns();
    std::lock_guard<std::mutex> guard(r.lock);
    if (--slot_->users == 0) r.slots.erase({key_.high, key_.low}); // nobody waits: the binary goes
}

const shared_binary* build_turn::shared() const { return slot_->binary ? &*slot_->binary : nullptr; }

void build_turn::share(const std::vector<unsigned char>& binary, const std::string& kind) {
    if (!binary.empty()) slot_->binary = shared_binary{binary, kind};
}

} // namespace loom::cache
