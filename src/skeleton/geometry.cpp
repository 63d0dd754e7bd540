// Map geometry. Measured with bench/bench_geometry on PoCL (see bench/README.md): on a
// CPU device one work-item per element with the runtime's work-group choice lets PoCL
// vectorise across work-items; on a GPU, 256-wide groups and a grid capped at a few
// waves per compute unit, each thread striding over the rest.
#include "skeleton/geometry.hpp"

#include <algorithm>

namespace loom::skeleton {

backend::geometry map_geometry(const backend::device_info& device, std::uint64_t items) {
    backend::geometry g;
    if (items == 0) items = 1;
    if (!device.gpu) {
        g.global_items = items;
        g.group_size = 0;
        return g;
    }
    const std::uint32_t group = 256;
    const std::uint64_t cap = std::uint64_t(device.compute_units) * 2048;
    g.group_size = group;
    g.global_items = std::min<std::uint64_t>((items + group - 1) / group * group, std::max<std::uint64_t>(cap, group));
    return g;
}

} // namespace loom::skeleton
