// Map geometry. OpenCL kernels run one work-item per element (`if (i < n)`), so the
// grid covers n: on PoCL, groups of 1024 measured best for saxpy at 2^24 floats
// (7.7 ms, against 8.5 ms for 256 and 11.6 ms for 4096; bench/README.md), and a loop
// inside the work-item, as a grid-stride kernel has, stops PoCL vectorising across
// work-items (20.5 ms). CUDA kernels keep the grid-stride loop, with 256-thread blocks
// and a grid capped at a few waves per multiprocessor.
#include "skeleton/geometry.hpp"

#include <algorithm>

namespace loom::skeleton {

backend::geometry map_geometry(const backend::device_info& device, std::uint64_t items) {
    backend::geometry g;
    if (items == 0) items = 1;
    if (device.backend == "cuda") {
        const std::uint32_t block = 256;
        const std::uint64_t cap = std::max<std::uint64_t>(std::uint64_t(device.compute_units) * 2048, block);
        g.group_size = block;
        g.global_items = std::min<std::uint64_t>((items + block - 1) / block * block, cap);
        return g;
    }
    const std::uint64_t preferred = device.gpu ? 256 : 1024;
    const std::uint32_t group = std::uint32_t(std::max<std::uint64_t>(1, std::min<std::uint64_t>(preferred, device.max_work_group)));
    g.group_size = group;
    g.global_items = (items + group - 1) / group * group;
    return g;
}

} // namespace loom::skeleton
