// What the scan skeleton asks codegen to write: its single pass on GPUs, its three chunked passes
// on CPU devices (the layouts are described in codegen/scan_pass.hpp).
#pragma once

#include <string>

#include "codegen/scan_pass.hpp"
#include "plan/plan.hpp"
#include "skeleton/pass_arguments.hpp"
#include "skeleton/skeleton_kernel.hpp"

namespace loom::skeleton {

using codegen::scan_pass;

// Pass `pass` over `in` (parameters as codegen::emit_scan_pass declares them). out_param:
// the input parameter the output is written through when it is also read (in-place scan),
// or no_class. chunked: the three passes; otherwise the single pass.
codegen::kernel_source emit_scan_pass(const input_kernel& in, const combine_op& op, scan_pass pass, bool exclusive,
                                      std::uint32_t out_param, unsigned group, bool chunked, const codegen::dialect& d);

// The pass that zeroes a single-pass plan's tile status (the scan's, the compaction's): its
// kernel, its status buffer where `binding` says, and its sizes in column `column` of `sizes`
// for `tiles` tiles (a word each, then the ticket counter) in groups of `group`.
plan::pass status_clear_pass(const pass_binding& binding, const codegen::dialect& d);
void status_clear_sizes(plan::launch_sizes& sizes, std::size_t column, std::uint64_t tiles, unsigned group);

} // namespace loom::skeleton
