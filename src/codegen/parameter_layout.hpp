// What each parameter of a generated pass kernel is, in the order its signature declares them:
// the emitter that writes the signature writes this list beside it (kernel_source::layout), so
// that whoever binds the arguments reads the order from codegen instead of restating it.
#pragma once

#include <cstdint>
#include <vector>

namespace loom::codegen {

enum class parameter_role : std::uint8_t {
    input,          // index: parameter p of the pass's input kernel (a buffer or a scalar)
    packed_scalars, // the input kernel's packed scalars (loom_scalars)
    guard,          // loom::loop_while's guard (loom_guard)
    output,         // index: accumulator k's results (reduce, axis passes), or the scan's output
    totals,         // the scan's chunk totals (written by its first pass, or by the single pass)
    offsets,        // the scan's scanned totals (read by its last pass, or written by the single pass)
    tile_status,    // the single-pass scan's status of each tile, and its ticket counter
    identity,       // index: operation k's identity
    initial,        // the scan's first value (its identity, or an exclusive scan's init)
    capture,        // index: operation k, item: its capture j
    extent,         // index: a pass_extent
    epilogue,       // index: parameter p of a loop's bookkeeping run at the pass's end
    iterations,     // a looped pass's iteration count
    carried,        // index: value vector k a sort moves with its keys (read)
    pass_constant,  // a 32-bit value of the pass's own: a radix pass's digit shift, a merge pass's doubling
    key_order,      // a radix pass's direction: 0 ascending, 1 descending
};

// The sizes a pass takes by value.
enum class pass_extent : std::uint8_t {
    n,     // the elements the pass covers
    chunk, // a scan's elements per group (tiled) or work-item (chunked)
    rows,  // an axis pass's matrix
    cols,
    parts, // a radix pass's parts: the digit counts of each, laid out digit by digit
    items, // a merge pass's outputs per work-item
    room,  // a reduce-by-key or compaction pass's room: the most its outputs hold
    start, // a compaction's first place in its output
};

struct parameter {
    parameter_role role = parameter_role::input;
    std::uint32_t index = 0;
    std::uint32_t item = 0;

    bool operator==(const parameter& o) const { return role == o.role && index == o.index && item == o.item; }
};

using parameter_layout = std::vector<parameter>;

} // namespace loom::codegen
