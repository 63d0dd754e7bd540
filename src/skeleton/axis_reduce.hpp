// The axis reduction skeleton's launch geometry (loom::sum(e, loom::axis<1>) and the others
// of loom/matrix.hpp): which form of codegen/axis_pass.hpp a device runs, and with how many
// work-items. One launch; docs/matrices.md has the costs.
#pragma once

#include <cstdint>
#include <optional>

#include "backend/device.hpp"
#include "codegen/axis_pass.hpp"
#include "ir/kernel.hpp"

namespace loom::skeleton {

struct axis_geometry {
    codegen::axis_form form = codegen::axis_form::lanes;
    unsigned group = 1;      // work-items per group (groups form, axis 1: the tree's size)
    std::uint64_t items = 1; // work-items launched, a multiple of group
    unsigned lanes = 16;     // lanes form: accumulators per work-item
};

// The device's form (lanes on CPU devices, groups on GPUs), or the one `forced` names
// (LOOM_KERNEL_FORM: chunked is lanes, grid_stride groups), for a rows x cols input.
axis_geometry axis_geometry_for(const backend::device_info& info, std::optional<ir::map_form> forced, unsigned axis,
                                std::uint64_t rows, std::uint64_t cols);

} // namespace loom::skeleton
