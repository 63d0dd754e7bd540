// How many parameters a hand-written kernel declares, read from its source text: for backends
// whose driver cannot say (CUDA), so that a loom::kernel launched with too few or too many
// arguments is refused with both counts instead of a driver's bare error code.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace loom::detail {

// The parameters of the kernel `name` that `source` defines (a __global__ function in CUDA, a
// __kernel or kernel function in OpenCL C): the top-level commas of its parameter list, plus
// one; 0 for () and (void). nullopt when no such definition is found or its list is unbalanced
// (a macro, say): the launch is then not checked.
std::optional<std::size_t> parameters_in_source(const std::string& source, const std::string& name);

} // namespace loom::detail
