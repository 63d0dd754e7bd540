// What a loom::vector holds, whatever its element type, as typed pointers to its members: its
// context, its buffer, the expressions' claim on the buffer, and its length. loom::swap exchanges
// two vectors' fields, and loom::loop_while's swap log records the pairs it may have to exchange
// back (runtime/loop/device_loop.cpp), so the log names vectors without erasing their type.
#pragma once

#include <cstddef>
#include <utility>

#include "loom/detail/runtime.hpp"
#include "loom/expr/vector_ref.hpp"

namespace loom::detail {

struct vector_fields {
    context_ptr* ctx = nullptr;
    buffer_ptr* buf = nullptr;
    expr::shared_claim* claim = nullptr;
    std::size_t* size = nullptr;

    // Whether both name one vector (its buffer member's address is its identity).
    bool same_vector(const vector_fields& o) const { return buf == o.buf; }
};

// Exchanges everything but the swap-log mark, which stays with each object.
inline void exchange(const vector_fields& a, const vector_fields& b) noexcept {
    using std::swap;
    swap(*a.ctx, *b.ctx);
    swap(*a.buf, *b.buf);
    swap(*a.claim, *b.claim);
    swap(*a.size, *b.size);
}

} // namespace loom::detail
