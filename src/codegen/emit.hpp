// The emitter: one kernel IR in, deterministic source text out, in either dialect, named
// after itself (kernel_source.hpp).
#pragma once

#include <string>
#include <vector>

#include "codegen/dialect.hpp"
#include "codegen/emit_core.hpp"
#include "codegen/kernel_source.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

// The whole element-wise (map) kernel, in the form k.form (and k.grid_width_param) names, with
// the comment header of the statements it holds (kernel_header.hpp).
kernel_source emit(const ir::kernel& k, const dialect& d);

// Whether grid kernel k (grid_width_param set) has a narrow form in dialect d (ir::kernel::narrow_grid):
// the dialect walks grids in loops with an int-coordinate item, and the kernel's only 64-bit signed
// integers are its neighbour reads' coordinates.
bool grid_narrowable(const ir::kernel& k, const dialect& d);

// The emitter core's lines as text, each line starting with `indent`, for code outside
// codegen that writes kernels of its own around Loom's bodies (the benchmarks' previews).
// k reads no neighbours, or comes from lower_neighbour_reads.
std::string emit_guard(const ir::kernel& k, const dialect& d);
std::string emit_values(const ir::kernel& k, const dialect& d, const std::vector<std::uint32_t>& roots,
                        const std::string& indent, const std::string& index = "i");
std::string emit_stores(const ir::kernel& k, const std::string& indent, const std::string& index = "i");

} // namespace loom::codegen
