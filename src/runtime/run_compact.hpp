// A stream compaction on one device in two steps (src/runtime/run_compact.cpp), so that the parts
// of a context over several devices enqueue theirs before any count is read back
// (runtime/parts/compact_across_parts.cpp).
#pragma once

#include <cstdint>

#include "loom/compaction.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/skeleton_input.hpp"

namespace loom::detail {

// A compaction's passes enqueued; its count not read yet.
struct enqueued_compaction {
    cached_plan* plan = nullptr; // its scratch 2 holds the count
    std::uint64_t room = 0;      // the output's elements from call.start on
};

// The passes of `call` over the n elements `in` binds, writing output[call.start ..), enqueued on
// ctx (one device), every check made.
enqueued_compaction enqueue_compaction(context_impl& ctx, const compact_call& call, const bound_input& in,
                                       std::uint64_t n, const buffer_ptr& output);

// How many values it kept (waits for its passes). Throws loom::length_error where they did not fit:
// nothing was written then.
std::uint64_t kept_count(context_impl& ctx, const enqueued_compaction& e, const compact_call& call,
                         const buffer_ptr& output);

} // namespace loom::detail
