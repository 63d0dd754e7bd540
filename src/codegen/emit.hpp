// The emitter: one kernel IR in, deterministic source text out, in either dialect.
#pragma once

#include <string>
#include <vector>

#include "codegen/dialect.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

// The entry point every generated kernel has.
inline constexpr const char* kernel_name = "loom_kernel";

// The whole element-wise (map) kernel.
std::string emit(const ir::kernel& k, const dialect& d);

// Building blocks for the other skeletons' emitters (reduce, scan), which read the same IR.
bool uses_f64(const ir::kernel& k);
// The prologue (pragmas) for this kernel in this dialect.
std::string emit_prologue(const ir::kernel& k, const dialect& d);
// "T0 p0, T1 p1, ..., " : every parameter but packed scalars, each followed by ", ", then the
// packed-scalar buffer when there is one, then the loop guard's parameter when the kernel is guarded. `rebindable`: buffers are plain pointers (neither
// const nor restrict) of one type per element type, so that the kernel may point one
// parameter at another's buffer (a looped kernel following loom::swap).
std::string emit_parameters(const ir::kernel& k, const dialect& d, bool rebindable = false);
// The first statements of a kernel's body: a guarded kernel's return when the loop has ended,
// and the declarations of packed scalars (ir::kernel_param::packed); "" when it has neither.
std::string emit_guard(const ir::kernel& k, const dialect& d);
// One "T vK = ...;" line per node reachable from `roots`, in order, each line starting with `indent`.
// Loads read p<slot>[<index>].
std::string emit_values(const ir::kernel& k, const dialect& d, const std::vector<std::uint32_t>& roots,
                        const std::string& indent, const std::string& index = "i");
// One "p<param>[<index>] = vK;" line per store of the kernel (its values from emit_values).
std::string emit_stores(const ir::kernel& k, const std::string& indent, const std::string& index = "i");
// The name of node n's value in emitted code.
std::string value_name(std::uint32_t n);

} // namespace loom::codegen
