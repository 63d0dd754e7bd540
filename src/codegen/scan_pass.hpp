// Source text of the scan passes, in layouts that all keep the operation's left-to-right
// order (a scan needs associativity only):
// - single pass (GPUs): each work-group takes the next tile (group * tile_items elements) by a
//   ticket, scans it (each work-item its tile_items consecutive elements in registers, the
//   work-items' totals across the group), and finds what the tiles before it fold to by
//   looking back at what they published (decoupled look-back, Merrill and Garland 2016): every
//   element is read once and written once. A clearing pass zeroes the tiles' status first;
// - chunked (CPU devices): each work-item owns a contiguous chunk (a multiple of 8) and
//   walks it eight elements a step, their prefix computed in registers, so the serial
//   chain is one operation per eight elements and there are no barriers; pass 2 is one
//   work-item folding the work-items' totals in order.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/combine_op.hpp"
#include "codegen/dialect.hpp"
#include "codegen/kernel_source.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

enum class scan_pass {
    // The chunked layout's three passes:
    chunk_totals, // pass 1: each work-item's chunk total to totals[work-item]
    scan_totals,  // pass 2: one work-item, exclusive scan of the totals (its input) to out
    scan_output,  // pass 3: scan each chunk again from its offset, writing out
    // The single-pass layout's scan: each group a tile, its carry from the tiles before it.
    // Its status (a word a tile, then the ticket counter) is zeroed by emit_status_clear's pass;
    // totals[t] holds tile t's own total, offsets[t] the fold of every element up to its end.
    single_pass,
};

// Elements a work-item holds in the single-pass layout: a tile is group * tile_items.
constexpr unsigned tile_items = 8;

// No input parameter is the output (scan_pass_kernel::out_param).
constexpr std::uint32_t no_output_param = 0xFFFFFFFFu;

struct scan_pass_kernel {
    const ir::kernel* input = nullptr; // per element, the value scanned: node `root`
    std::uint32_t root = ir::no_node;
    const combine_op* op = nullptr;
    scan_pass pass = scan_pass::chunk_totals;
    bool exclusive = false;
    // The input parameter the output is written through when it is also read (an in-place
    // scan), or no_output_param.
    std::uint32_t out_param = no_output_param;
    unsigned group = 1; // work-items per group, a power of two
    bool chunked = false;
};

// The source's layout (kernel_source::layout) lists the parameters for whoever binds them.
// Parameters after the input's: out (scan_totals, and scan_output and single_pass unless
// out_param is set), offsets (scan_output), totals (chunk_totals), totals, offsets and status
// (single_pass: all written, status 32-bit unsigned); then id, init, the captures (c0, c1,
// ...), chunk and n. chunk is per work-item (chunked) or the tile (single pass). The chunked
// layout's passes require s.chunked, the single pass !s.chunked.
kernel_source emit_scan_pass(const scan_pass_kernel& s, const dialect& d);

// The pass that zeroes a single-pass scan's status (tile_status, then the extent n: its words).
kernel_source emit_status_clear(const dialect& d);

} // namespace loom::codegen
