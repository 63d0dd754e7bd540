// Launch geometry of the map skeleton (every element-wise kernel is a grid-stride map).
#pragma once

#include <cstdint>

#include "backend/device.hpp"

namespace loom::skeleton {

backend::geometry map_geometry(const backend::device_info& device, std::uint64_t items);

} // namespace loom::skeleton
