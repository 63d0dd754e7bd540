// A reduce_by_key on one device in two steps (src/runtime/run_keyed_scan.cpp), so that the parts
// of a context over several devices enqueue theirs before any count is read back
// (runtime/parts/keyed_across_parts.cpp).
#pragma once

#include <cstdint>

#include "loom/keyed.hpp"
#include "runtime/plan_cache.hpp"

namespace loom::detail {

// A reduce_by_key's passes enqueued; its count not read yet.
struct enqueued_segments {
    cached_plan* plan = nullptr; // its scratch 4 holds the count; none for no keys
    std::uint64_t room = 0;      // the segments both outputs hold
};

// The passes of `call` (its input's slots the last recorded in ctx's queue) writing each
// segment's key and value into the outputs, enqueued on ctx (one device), every check made.
enqueued_segments enqueue_reduce_by_key(context_impl& ctx, const keyed_scan_call& call, const buffer_ptr& keys_out,
                                        const buffer_ptr& values_out);

// How many segments it wrote (waits for its passes). Throws loom::length_error where they did not
// fit: neither output was written then.
std::uint64_t segments_count(context_impl& ctx, const enqueued_segments& e, const buffer_ptr& keys_out,
                             const buffer_ptr& values_out);

} // namespace loom::detail
