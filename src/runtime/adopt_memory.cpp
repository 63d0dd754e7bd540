// A temporary result's memory taken by the vector it is assigned to; see detail::adopt_memory
// in loom/detail/runtime.hpp.
#include <mutex>
#include <utility>

#include "loom/detail/runtime.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"

namespace loom::detail {

bool adopt_memory(const buffer_ptr& target, const buffer_ptr& source) {
    if (!target || !source || target == source || !target->ctx || source->ctx != target->ctx) return false;
    if (source->type != target->type || source->length != target->length) return false;
    context_impl& ctx = *target->ctx;
    std::lock_guard<std::recursive_mutex> lock(context_mutex(ctx));
    if (!source->memory || target->pinned || source->pinned) return false;
    // A pending statement, a held pass or a batch of loop iterations may name target's memory
    // as it is now; a loop body replays what it records.
    if (!ctx.queue().empty() || ctx.guard() || ctx.loop().holding() || ctx.loop().device_loop()) return false;
    std::swap(target->memory, source->memory);
    return true;
}

} // namespace loom::detail
