// The block map planner (loom::map_blocks, docs/blocks.md): one pass, a map kernel over the
// blocks, one block an element. The body is the traced lambda's shape (loom/detail/
// block_trace.hpp): its values are the block's results and its more values their places in the
// output, so each block stores its values where its elements were read. Pure: no device, no
// context.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/kernel.hpp"
#include "ir/shape.hpp"
#include "plan/plan.hpp"

namespace loom::skeleton {

struct block_map_request {
    const detail::shape* body = nullptr; // in the form the context runs
    const std::vector<std::uint32_t>* slot_class = nullptr;
    dtype output = dtype::f32;
    bool guarded = false;
    ir::map_form form = ir::map_form::grid_stride;
    // The input slot whose matrix is the output (in place), or not_in_place: the output is result 0.
    static constexpr std::uint32_t not_in_place = 0xFFFFFFFFu;
    std::uint32_t in_place = not_in_place;
};

// The pass reads the input slots, writes result 0 (the output matrix; in place, the input's
// parameter, read-write) and covers extent n, the blocks.
plan::plan plan_block_map(const block_map_request& r, const codegen::dialect& d);

} // namespace loom::skeleton
