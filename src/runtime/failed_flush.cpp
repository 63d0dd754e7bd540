// What a failed flush leaves behind. Its statements are dropped, so every vector keeps the
// value it had before them; a vector made inside the failed window had no value before, and
// its initial contents must not be lost either: the fill its constructor recorded
// (`loom::vector<float> y(ctx, n, 7.0f)`) is written directly from the host.
#include <cstring>
#include <vector>

#include "runtime/context_impl.hpp"
#include "support/log.hpp"

namespace loom::detail {
namespace {

// The fill value's slot, when statement st is `target = scalar` of the target's own type.
const fusion::bound_slot* fill_value(const fusion::pending_statement& st, const fusion::statement_queue& q) {
    const shape& s = *st.shape;
    if (s.slots.size() != 1 || s.slots[0].kind != slot_kind::scalar || s.root == ir::no_node) return nullptr;
    const ir::node& root = s.nodes[s.root];
    if (root.op != opcode::scalar || root.type != st.target->type) return nullptr;
    return &q.slots[st.first_slot];
}

} // namespace

void context_impl::keep_initial_contents() noexcept {
    std::vector<unsigned char> host;
    const std::uint64_t mark = next_flush_mark(); // marks the targets seen, first write first
    for (const fusion::pending_statement& st : queue_.statements) {
        buffer& b = *st.target;
        if (b.flush_mark == mark) continue;
        b.flush_mark = mark;
        const fusion::bound_slot* value = b.memory ? nullptr : fill_value(st, queue_);
        if (!value) continue; // had memory (its old value stands) or began with something else
        try {
            // Device memory first: after a flush that failed for want of memory, a fill that does
            // not fit either is refused before its host image is made.
            executor_.allocate(b);
            const std::size_t element = size_of(b.type);
            host.resize(b.bytes());
            for (std::size_t at = 0; at < host.size(); at += element)
                std::memcpy(host.data() + at, &value->bits, element);
            device_->write(*b.memory, 0, host.data(), host.size());
        } catch (const std::exception& e) { // the flush's own error is the one to report
            b.memory.reset();
            logging::warn(std::string("after a failed flush, a vector's initial fill could not be written either: ") +
                          e.what());
        }
    }
}

} // namespace loom::detail
