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
#pragma once

#include <cstdint>

#include "codegen/combine_op.hpp"
#include "codegen/dialect.hpp"
#include "codegen/kernel_source.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

enum class segmented_pass { totals, offsets, scan };

struct segmented_scan_kernel {
    // totals, scan: per element the key (node `key`) and the value (node `value`) of `input`.
    // offsets: input's parameters 0 and 1 are the totals' values and flags.
    const ir::kernel* input = nullptr;
    std::uint32_t key = ir::no_node, value = ir::no_node;
    const combine_op* op = nullptr;
    segmented_pass pass = segmented_pass::totals;
    bool exclusive = false;
    unsigned group = 1; // the offsets pass's work-items (a power of two)
};

// Parameters after the input's: totals: the chunks' values and flags (outputs 0 and 1); offsets:
// the running values before the chunks (output 0); scan: the offsets (role offsets), the output
// (output 0). Then id, init, the captures (c0, c1, ...), n, chunk: n the elements (the totals
// for the offsets pass), chunk a work-item's.
kernel_source emit_segmented_scan_pass(const segmented_scan_kernel& s, const dialect& d);

} // namespace loom::codegen
