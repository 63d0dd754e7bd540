// A generated kernel as the rest of Loom handles it: its text, its name, and the comment header
// that says what it holds. The name is made from the text, so a profiler, a dumped file and a
// cache entry name one kernel alike in every process.
#pragma once

#include <string>
#include <vector>

#include "codegen/dialect.hpp"
#include "codegen/parameter_layout.hpp"

namespace loom::codegen {

// The name every emitter writes in a kernel's signature; name_kernel replaces it.
inline constexpr const char* unnamed_kernel = "loom_kernel";

struct kernel_source {
    // "loom_" and 16 hex digits: XXH3-64 of the body as written with unnamed_kernel in its
    // signature. Equal bodies share a name in every process; different ones differ.
    std::string name;
    // The text the kernel's name and its cache key are made from: prologue, helpers and the
    // kernel, whose entry point is `name`.
    std::string body;
    // Comment lines ("// ...\n") listing the statements of the plan that made the kernel, or
    // empty. Left out of the name and the key, so that two plans whose statements are numbered
    // differently share one compiled kernel (which keeps the header of the first).
    std::string header;
    // Its parameters, in order, for the pass kernels (reduce, scan, axis) that declare them with
    // this list; empty for maps, whose flush binds the arguments of its own groups.
    parameter_layout layout;

    // What the device compiler sees and LOOM_DUMP_SOURCE writes.
    std::string text() const { return header + body; }
};

// Each source function's definition in a kernel (emit_core.hpp) is guarded by this prefix and its
// emitted name, name_<8 hex digits>.
inline constexpr const char* source_function_guard = "LOOM_DEFINED_";

// The user's names of the source functions (loom::function<R(A...)>) a kernel's text defines,
// for the message of a build that failed.
std::vector<std::string> source_functions_in(const std::string& text);

// Names a kernel written with unnamed_kernel as its entry point in dialect d.
kernel_source name_kernel(std::string body, const dialect& d, std::string header = {});

} // namespace loom::codegen
