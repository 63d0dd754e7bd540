// A test hook: a function called with every kernel a plan creates (before it is
// compiled). The NVRTC test uses it to compile, for CUDA, every kernel the expression
// suite generates on OpenCL. Not for production use; not thread-safe to change.
#pragma once

#include <functional>

#include "ir/kernel.hpp"

namespace loom::detail {

using kernel_observer = std::function<void(const ir::kernel&)>;

void set_kernel_observer(kernel_observer observer);
const kernel_observer& current_kernel_observer();

} // namespace loom::detail
