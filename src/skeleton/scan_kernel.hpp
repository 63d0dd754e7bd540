// Source text of the scan passes, in two layouts that both keep the operation's
// left-to-right order (a scan needs associativity only):
// - tiled (GPUs): each work-group scans a contiguous chunk tile by tile, a Hillis-Steele
//   scan of one tile in work-group memory plus the running carry;
// - chunked (CPU devices): each work-item owns a contiguous chunk (a multiple of 8) and
//   walks it eight elements a step, their prefix computed in registers, so the serial
//   chain is one operation per eight elements and there are no barriers; pass 2 is one
//   work-item folding the work-items' totals in order.
#pragma once

#include <string>

#include "skeleton/skeleton_kernel.hpp"

namespace loom::skeleton {

enum class scan_pass {
    chunk_totals, // pass 1: each group's chunk total to totals[group]
    scan_totals,  // pass 2: one group, exclusive scan of the totals (its input) to out
    scan_output,  // pass 3: scan each chunk again from its offset, writing out
};

// Parameters after the input's: out (scan_totals, and scan_output unless out_param is
// set), offsets (scan_output), totals (chunk_totals); then id, init, the captures
// (c0, c1, ...), chunk and n. out_param: the input parameter the output is written
// through when it is also read (in-place scan), or no_class. chunk is per group (tiled)
// or per work-item (chunked); the totals are per group or per work-item accordingly.
std::string emit_scan_pass(const input_kernel& in, const combine_op& op, scan_pass pass, bool exclusive,
                           std::uint32_t out_param, unsigned group, bool chunked, const codegen::dialect& d);

} // namespace loom::skeleton
