// Launch geometry of the map skeleton (every element-wise kernel is a grid-stride map).
#pragma once

#include <cstdint>

#include "backend/device.hpp"

namespace loom::skeleton {

backend::geometry map_geometry(const backend::device_info& device, std::uint64_t items);

// Whether a kernel with 2-D neighbour reads gets its grid form (ir::kernel::grid_width_param)
// on this device: CPU devices, where a 1-D launch computes each read's row per element.
bool wants_grid_form(const backend::device_info& device);
// The 2-D launch of a grid kernel over `items` elements, `width` a row; false (use the 1-D
// form) when the rows do not tile the elements or are too narrow to fill a vector.
bool grid_geometry(std::uint64_t width, std::uint64_t items, backend::geometry& g);

} // namespace loom::skeleton
