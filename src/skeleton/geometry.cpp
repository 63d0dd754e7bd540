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

bool wants_grid_form(const backend::device_info& device) { return !device.gpu; }

bool grid_geometry(std::uint64_t width, std::uint64_t items, backend::geometry& g) {
    if (width < 16 || items % width != 0) return false;
    // Groups of 32 x 8. An interior-tested stencil map runs its per-element form only in
    // the groups at the border, and a narrower group puts fewer columns there. Loom's
    // clamped 5-point kernel, medians of 30 runs in a standalone driver: 2048 x 2048,
    // 0.84-0.87 ms in 32 x 8 groups against 0.90-0.91 in 64 x 4 and 1.04 in 16 x 16;
    // 1024 x 1024, 0.27 against 0.30; 512 x 512, 0.11 against 0.13 (docs/skeleton-stencil.md).
    // Rows narrower than 32 take 16.
    const std::uint32_t across = width >= 32 ? 32 : 16, down = 8;
    const std::uint64_t rows = items / width;
    g.group_size = across;
    g.group_rows = down;
    g.global_items = (width + across - 1) / across * across;
    g.rows = (rows + down - 1) / down * down;
    return true;
}

} // namespace loom::skeleton
