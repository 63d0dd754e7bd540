// Source text of the scan passes, in two layouts that both keep the operation's
// left-to-right order (a scan needs associativity only):
// - tiled (GPUs): each work-group scans a contiguous chunk tile by tile (group * tile_items
//   elements), each work-item's tile_items consecutive elements in registers and the
//   work-items' totals across the group, plus the running carry;
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
    chunk_totals, // pass 1: each group's chunk total to totals[group]
    scan_totals,  // pass 2: one group, exclusive scan of the totals (its input) to out
    scan_output,  // pass 3: scan each chunk again from its offset, writing out
};

// Elements a work-item holds per tile in the tiled layout; a group's chunk is best a
// multiple of group * tile_items (the host's geometry makes it one).
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
// Parameters after the input's: out (scan_totals, and scan_output unless out_param is set),
// offsets (scan_output), totals (chunk_totals); then id, init, the captures (c0, c1, ...),
// chunk and n. chunk is per group (tiled) or per work-item (chunked); the totals are per
// group or per work-item accordingly.
kernel_source emit_scan_pass(const scan_pass_kernel& s, const dialect& d);

} // namespace loom::codegen
