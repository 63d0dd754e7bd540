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
//
// loom::reduce_by_key is the same three passes (`reduce`): the totals pass also counts each
// chunk's heads, the offsets pass also scans those counts into the heads before each chunk and
// writes the segments' count, and the last pass (segmented_pass::reduce) writes, instead of every
// element's running value, each segment's key at its head and its value where it ends (at the
// next head, or at the last element) - nothing at all when the segments outnumber the outputs'
// room, so a too-short output is found (the count read back) with every vector as it was.
#pragma once

#include <cstdint>

#include "codegen/combine_op.hpp"
#include "codegen/dialect.hpp"
#include "codegen/kernel_source.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

enum class segmented_pass { totals, offsets, scan, reduce };

struct segmented_scan_kernel {
    // totals, scan: per element the key (node `key`) and the value (node `value`) of `input`.
    // offsets: input's parameters 0 and 1 are the totals' values and flags.
    const ir::kernel* input = nullptr;
    std::uint32_t key = ir::no_node, value = ir::no_node;
    const combine_op* op = nullptr;
    segmented_pass pass = segmented_pass::totals;
    bool exclusive = false;
    bool reduce = false;             // totals and offsets: for reduce_by_key (heads counted too)
    dtype key_out = dtype::i32;      // the reduce pass's keys output
    unsigned group = 1; // the offsets pass's work-items (a power of two)
};

// Parameters after the input's: totals: the chunks' values and flags (outputs 0 and 1), with
// reduce their heads (output 2); offsets: the running values before the chunks (output 0), with
// reduce the heads before them and the segments' count (outputs 1 and 2; its input's parameter 2
// the heads); scan: the offsets (role offsets), the output (output 0); reduce: the offsets (role
// offsets), the heads before the chunks (role totals), the keys and values outputs and the count
// (outputs 0, 1, 2). Then id, init, the captures (c0, c1, ...), n, chunk (and room for reduce):
// n the elements (the totals for the offsets pass), chunk a work-item's.
kernel_source emit_segmented_scan_pass(const segmented_scan_kernel& s, const dialect& d);

} // namespace loom::codegen
