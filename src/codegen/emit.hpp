// The emitter: one kernel IR in, deterministic source text out, in either dialect.
#pragma once

#include <string>

#include "codegen/dialect.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

// The entry point every generated kernel has.
inline constexpr const char* kernel_name = "loom_kernel";

std::string emit(const ir::kernel& k, const dialect& d);

} // namespace loom::codegen
