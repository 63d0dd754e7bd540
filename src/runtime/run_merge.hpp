// The merge on one device, as loom::merge runs it and as each part of a context over several
// devices runs its share of a merge (parts/merge_across_parts.cpp).
#pragma once

#include <cstdint>

#include "loom/merge.hpp"
#include "runtime/buffer.hpp"

namespace loom::detail {

// The buffers of a merge, with the elements each input holds: `a[0]`, `b[0]` the keys, a[1 + k],
// b[1 + k] value vector k's (as many as outputs has after its keys). An input of no elements is
// never read (its buffer may be any buffer of the context).
struct merge_operands {
    const buffer_ptr* outputs = nullptr;
    const buffer_ptr* a = nullptr;
    const buffer_ptr* b = nullptr;
    std::uint64_t a_length = 0, b_length = 0;
    std::size_t values = 0;
};

// The merge of `m` on ctx (one device), checked by the caller: its plan found or made
// (skeleton::plan_merge) and run by the executor.
void merge_on_device(context_impl& ctx, const merge_call& call, const merge_operands& m);

// Value vectors a merge moves with its keys: loom::merge_by_key's one, or a sort's merge across
// parts' (loom::sort_by_key: at most six).
constexpr std::size_t max_merged_values = max_sorted_values;

} // namespace loom::detail
