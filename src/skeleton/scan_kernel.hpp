// What the scan skeleton asks codegen to write for its three passes, tiled on GPUs and
// chunked on CPU devices (the layouts are described in codegen/scan_pass.hpp).
#pragma once

#include <string>

#include "codegen/scan_pass.hpp"
#include "skeleton/skeleton_kernel.hpp"

namespace loom::skeleton {

using codegen::scan_pass;

// Pass `pass` over `in` (parameters as codegen::emit_scan_pass declares them). out_param:
// the input parameter the output is written through when it is also read (in-place scan),
// or no_class. chunk is per group (tiled) or per work-item (chunked).
codegen::kernel_source emit_scan_pass(const input_kernel& in, const combine_op& op, scan_pass pass, bool exclusive,
                                      std::uint32_t out_param, unsigned group, bool chunked, const codegen::dialect& d);

} // namespace loom::skeleton
