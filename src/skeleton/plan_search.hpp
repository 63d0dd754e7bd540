// The binary-search planner (loom::lower_bound, upper_bound, binary_search): one pass
// (codegen/search_pass.hpp), a work-item a value. Pure: no device, no context.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/search_pass.hpp"
#include "ir/shape.hpp"
#include "plan/plan.hpp"

namespace loom::skeleton {

struct search_request {
    // The values (root) and, as its last slot, the sorted vector (read by no node).
    const detail::shape* input = nullptr;
    const std::vector<std::uint32_t>* slot_class = nullptr;
    dtype key = dtype::f32;
    dtype result = dtype::u64;
    codegen::search_bound bound = codegen::search_bound::lower;
    bool descending = false;
    bool guarded = false;
};

// The pass reads the input's slots and the sorted vector (the input's last slot), writes result
// 0; extents n (the values) and chunk (the sorted keys).
plan::plan plan_search(const search_request& r, const codegen::dialect& d);

} // namespace loom::skeleton
