// The comment header at the top of a map kernel's source: one line per statement the kernel
// holds, with its number in the flush and what it computes, in the user's terms (buffers by
// their loom::name or as the fusion log's b<class>, host scalars as the kernel parameter p<k>
// that holds them).
#pragma once

#include <string>

#include "ir/kernel.hpp"

namespace loom::codegen {

// "// ...\n" lines for k.statements; "" when the kernel has none. Written when a plan is made,
// never on the dispatch path.
std::string kernel_header(const ir::kernel& k);

} // namespace loom::codegen
