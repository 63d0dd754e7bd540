// The statements a context has recorded and not yet run. Slots of all statements live in
// one array, so that recording a statement allocates nothing once the queue has grown.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/shape.hpp"
#include "loom/detail/runtime.hpp"
#include "loom/detail/scalar_bits.hpp"

namespace loom::fusion {

struct bound_slot {
    detail::buffer_ptr buffer; // a vector slot (keeps the buffer alive until the flush)
    detail::scalar_bits bits;  // a scalar slot: the value's bytes
};

struct pending_statement {
    const detail::shape* shape;
    detail::buffer_ptr target;
    std::uint32_t first_slot;
    std::uint64_t length;
    // A view write at a strided span of its target (span.count > 0), or none.
    detail::written_span span{};
};

struct statement_queue {
    std::vector<bound_slot> slots;
    std::vector<pending_statement> statements;

    bool empty() const { return statements.empty(); }
    void clear() {
        slots.clear();
        statements.clear();
    }
    // Drops the statements and their slots, keeping the slots recorded after them: a
    // skeleton's input, bound before the skeleton flushes what is pending.
    void drop_statements() {
        if (statements.empty()) return;
        const pending_statement& last = statements.back();
        slots.erase(slots.begin(), slots.begin() + (last.first_slot + last.shape->slots.size()));
        statements.clear();
    }
};

} // namespace loom::fusion
