// Stencil boundary policies as ordinary IR, before printing: each neighbour read becomes
// the arithmetic of its index and a load_at there (clamp: the index clamped into the vector
// or grid; wrap: taken modulo its extent; constant: a select on an in-range test, over a
// read of element i + offset bounded by the vector's length). The emitter's printer then
// knows loads, arithmetic and selects only, and no policy.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/kernel.hpp"

namespace loom::codegen {

// How the body being written reads a neighbour.
enum class neighbour_form {
    checked,  // each element tests its own neighbour against the border, per its policy
    interior, // the kernel form has ruled the border out (an interior test or a chunk's
              // interior): an interior-testable read is element i + offset, with no policy
};

// A read whose border a kernel form can rule out for a whole work-group or stretch of a
// chunk: a 1-D read, a 2-D read in a kernel launched on the 2-D range (whose coordinates
// are the launch's), or a 3-D read in the chunked form of that launch (which tests whole
// rows), with offsets that are kernel parameters the form's test can name.
bool interior_testable(const ir::node& n, const ir::kernel& k);

// An interior-testable 3-D read of a kernel whose 3-D reads share one plane height
// (ir::kernel::grid_height_param), clamped or wrapped: in the chunked grid form's interior it
// reads its own neighbour row, clamped or wrapped into the grid once per row, so no row test
// sends the whole row to the checked body. A border row of a 3-D grid (a face of the box: 6%
// of a 64^3 grid's rows) then costs what an inner row does. A constant-policy read keeps the
// row test: outside the grid it reads no row at all.
bool row_resolved(const ir::node& n, const ir::kernel& k);

struct lowered_kernel {
    ir::kernel kernel;               // k without load_neighbour nodes; stores renumbered
    std::vector<std::uint32_t> node; // node[j]: the node of `kernel` that k's node j became
};

// k with every neighbour read lowered for `form`. When `roots` (the nodes the caller writes
// out) reach no neighbour read, k comes back as it is, its nodes numbered as they were: a
// kernel's text changes only where a read is lowered.
lowered_kernel lower_neighbour_reads(const ir::kernel& k, const std::vector<std::uint32_t>& roots, neighbour_form form);

// k's stores lowered for each of `forms` into one body, so that what the forms share (the
// scalars, a grid row's index arithmetic) is one node: stores[f] are the stores of forms[f]
// (the kernel's own are forms[0]'s). A kernel form that writes one body per part of a row
// declares what is the same for the whole row once (map_kernel.cpp). Without neighbour
// reads, k as it is.
struct lowered_forms {
    ir::kernel kernel;
    std::vector<std::vector<ir::kernel_store>> stores;
};
lowered_forms lower_neighbour_reads(const ir::kernel& k, const std::vector<neighbour_form>& forms);

} // namespace loom::codegen
