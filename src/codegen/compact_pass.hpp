// Source text of stream compaction's passes (loom::copy_if, remove_if, partition, unique;
// docs/search-and-compaction.md), each work-item owning a contiguous chunk as the keyed scans'
// do (codegen/segmented_scan_pass.hpp):
// - count: each chunk's count of kept elements (from the predicate alone);
// - offsets: one group scans the counts into the kept elements before each chunk, and writes
//   their total (codegen/count_scan.hpp);
// - write: each chunk writes its kept values to consecutive places from its offset, storing every
//   value and advancing the place by the predicate (a store that stays inside the chunk's places
//   instead of a branch on the predicate, which a random predicate makes unpredictable). Nothing
//   is written when the kept elements outnumber the output's room, so a too-short output is found
//   (the count read back) with the output as it was.
// Or, on GPUs where the output has room for every element, single_pass: each work-group takes a
// tile by ticket (codegen/tile_fold.hpp), reads it coalesced, ranks its kept elements across the
// group, finds the kept elements before the tile by decoupled look-back, and writes its kept
// values from there; the last tile writes the total. Every element is read once.
#pragma once

#include <cstdint>

#include "codegen/dialect.hpp"
#include "codegen/kernel_source.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

enum class compact_pass { count, offsets, write, single_pass };

struct compact_kernel {
    // count, write: per element the value (node `value`) and whether it is kept (node `keep`, a
    // u32: 0 or 1) of `input`. offsets: input's parameter 0 is the counts.
    const ir::kernel* input = nullptr;
    std::uint32_t value = ir::no_node, keep = ir::no_node;
    compact_pass pass = compact_pass::count;
    unsigned group = 1; // the offsets or single pass's work-items (a power of two)
};

// Parameters after the input's: count: the chunks' counts (output 0); offsets: the kept elements
// before each chunk and their total (outputs 0, 1); write: the kept elements before each chunk
// (role offsets), the output and the total (outputs 0, 1). Then n and chunk, and for write parts
// (the chunks), room (the output's places from start) and start (its first place). single_pass:
// the output (output 0), the tiles' totals and folds (roles totals, offsets), their status (role
// tile_status, zeroed first: emit_status_clear) and the total (output 1); then n, chunk (the
// tile) and start.
kernel_source emit_compact_pass(const compact_kernel& k, const dialect& d);

} // namespace loom::codegen
