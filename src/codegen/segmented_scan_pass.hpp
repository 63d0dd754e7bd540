// Source text of the keyed scans' passes (loom::inclusive_scan_by_key, exclusive_scan_by_key;
// docs/keyed-operations.md): a scan that starts again at every segment's head, the first element
// and each whose key differs from the one before it (keys compared with ==, so each NaN key is a
// segment of its own). At a head the running value starts again from `start`: the identity for
// an inclusive scan, the initial value for an exclusive one.
//
// Each work-item owns a contiguous chunk, as the scan's chunked layout (codegen/scan_pass.hpp):
// - totals: a chunk's running value at its end and whether it holds a head;
// - offsets: one group; each work-item folds its slice of the totals (a head's total replaces
//   what came before it), the group scans the slices' folds, and each work-item writes the
//   running value before each of its totals;
// - scan: each chunk again from its running value before it, writing the outputs.
// The keys' and values' expressions are fused into the first and last passes.
// On GPUs instead, single_pass: each work-group takes a tile by ticket (codegen/tile_fold.hpp),
// reads its keys and values coalesced, scans its values by segment in registers and across the
// group, and finds the running value before the tile by decoupled look-back; a tile that holds a
// head publishes its running value at once (it does not depend on the tiles before). Every
// element is read once, and its key a second time by the element after it.
//
// loom::reduce_by_key, over the same chunks:
// - heads: each chunk's count of heads, from the keys alone;
// - head_offsets: one group scans the counts into the heads before each chunk, and writes the
//   segments' count;
// - reduce: each chunk writes the keys of its heads, the values of the segments that end in it
//   and its last segment's value so far, and keeps the fold of its elements before its first head
//   (the fragment of a segment begun in an earlier chunk, the whole chunk if it holds no head);
// - fixup: one work-item adds the fragments, chunk by chunk in order, to their segments' values.
// The last two write nothing when the segments outnumber the outputs' room, so a too-short output
// is found (the count read back) with every vector as it was.
#pragma once

#include <cstdint>

#include "codegen/combine_op.hpp"
#include "codegen/dialect.hpp"
#include "codegen/kernel_source.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

enum class segmented_pass { totals, offsets, scan, heads, head_offsets, reduce, fixup, single_pass };

struct segmented_scan_kernel {
    // totals, scan: per element the key (node `key`) and the value (node `value`) of `input`.
    // offsets: input's parameters 0 and 1 are the totals' values and flags.
    const ir::kernel* input = nullptr;
    std::uint32_t key = ir::no_node, value = ir::no_node;
    const combine_op* op = nullptr;
    segmented_pass pass = segmented_pass::totals;
    bool exclusive = false;
    dtype key_out = dtype::i32; // the reduce pass's keys output
    unsigned group = 1;         // the offsets or single pass's work-items (a power of two)
};

// Parameters after the input's: totals: the chunks' values and flags (outputs 0 and 1); offsets:
// the running values before the chunks (output 0); scan: the offsets (role offsets), the output
// (output 0); heads: the chunks' heads (output 0); head_offsets (its input's parameter 0 the
// heads): the heads before each chunk and the count (outputs 0, 1); reduce: the heads before the
// chunk (role offsets), the keys and values outputs, the count, the fragments and whether each
// chunk has one (outputs 0-4); fixup (its input's parameters 0-2 the fragments, the flags and the
// heads before each chunk): the values output and the count (outputs 0, 1); single_pass: the output
// (output 0), the tiles' totals and running values (roles totals, offsets) and their status (role
// tile_status, zeroed first: emit_status_clear in scan_pass.hpp). Then id, init, the
// captures (c0, c1, ...), n, chunk, and for reduce and fixup room: n the elements (the chunks
// for the passes over them), chunk a work-item's, room the outputs' shorter length.
kernel_source emit_segmented_scan_pass(const segmented_scan_kernel& s, const dialect& d);

} // namespace loom::codegen
