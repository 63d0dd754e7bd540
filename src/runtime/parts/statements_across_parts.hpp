// Running work on a context over several devices (docs/multi-device.md): each part runs its
// share of an element-wise statement or of a reduction's input, in its own queue, as a context
// of one device would; nothing waits between devices until a result is read.
#pragma once

#include "fusion/statement_queue.hpp"
#include "ir/shape.hpp"
#include "loom/reduce.hpp"
#include "runtime/buffer.hpp"

namespace loom::detail {

// `target = written(slots)` on ctx (several()), its operands checked: the same statement recorded
// in each part's queue, over the part's elements of every vector, its element index counted from
// the part's first element. Throws loom::error (nothing recorded) for a statement that reads or
// writes at other indices (partwise_refusal).
void commit_across_parts(context_impl& ctx, const shape* written, const fusion::bound_slot* slots,
                         const buffer_ptr& target);

// A reduction on ctx (several()) whose input's slots are the last recorded in ctx's queue: each
// part reduces its elements into partial results on its device (its pending statements fused into
// the first pass, as on one device), then part 0 folds the partials, in part order, with the same
// operations. Results to the host only; into device scalars is a loom::error.
void reduce_across_parts(context_impl& ctx, const reduce_call& call, const reduce_results& results);

} // namespace loom::detail
