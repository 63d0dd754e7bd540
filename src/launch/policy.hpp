// The launch policy: which form a map kernel takes on a device (ir::map_form) and the
// geometry it launches with, chosen from the device's properties (its type, compute units,
// work-group limit), never from a backend's name. docs/kernel-forms.md explains the rules.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "backend/device.hpp"
#include "ir/kernel.hpp"

namespace loom::launch {

// The form of an element-wise kernel on this device: a contiguous chunk per work-item on
// CPU devices (and other devices that are not GPUs), a grid-stride loop on GPUs.
ir::map_form map_form_for(const backend::device_info& device);
// The rows a slice of a sparse matrix holds by default (loom::sparse_layout::automatic) where
// maps run in `form`: 1 (CSR, each work-item's rows one run of memory) in the chunked form; in the
// grid-stride form 32, a warp, so that neighbouring work-items read neighbouring entries (sliced
// ELL). A rule from the layouts' access patterns, not yet measured on a GPU.
std::uint32_t sparse_slice_height(const backend::device_info& device, ir::map_form form);

// A geometry the tuner may try, or a tuned choice from the cache: the work-items per
// compute unit of a chunked launch, the work-group size of the others. 0: the default.
struct geometry_choice {
    std::uint32_t value = 0;
    bool operator==(const geometry_choice& o) const { return value == o.value; }
};

// The launch of a map kernel of this form over `items` elements.
backend::geometry map_geometry(const backend::device_info& device, ir::map_form form, std::uint64_t items,
                               geometry_choice choice = {});

// The candidates the tuner measures for this form on this device, the default first.
// Empty: nothing to tune.
std::vector<geometry_choice> tuning_candidates(const backend::device_info& device, ir::map_form form);

// A grid kernel's work-group shape (non-chunked forms) as a geometry_choice: `across` columns
// by `down` rows, packed as across | down << 16. A choice with no rows (0, or a tuned block
// size stored before grid kernels tuned their shape) is the default shape.
constexpr std::uint32_t grid_shape(std::uint32_t across, std::uint32_t down) { return across | down << 16; }

// The candidates the tuner measures for a grid kernel launched on rows (grid_geometry), the
// default first: in the chunked form the map's; otherwise group shapes from one row of 256
// work-items to 16 x 16 (a handwritten 5-point stencil's best shape depends on the GPU and
// the grid: 128 x 2 and 256 x 1 on an H200), those the device's groups hold.
std::vector<geometry_choice> grid_tuning_candidates(const backend::device_info& device, ir::map_form form);

// Whether a kernel with 2-D neighbour reads gets its grid form (ir::kernel::grid_width_param)
// on this device: every device, as a 1-D launch computes each read's row and column per
// element (a 64-bit division per read on a GPU, docs/bench/gpu-code-quality.md).
bool wants_grid_form(const backend::device_info& device);

// LOOM_KERNEL_FORM: "chunked" or "grid_stride" runs every map in that form whatever the device
// (to compare forms, and so that CI runs the GPU forms on its CPU device); empty or "auto": the
// device's own (map_form_for). Throws loom::error naming the accepted values otherwise.
std::optional<ir::map_form> form_from_environment();
// The launch of a grid kernel of this form over `items` elements, `width` a row: for the
// chunked form a few work-items, each a band of rows; otherwise a 2-D range. False (use the
// 1-D form) when the rows do not tile the elements or are too narrow to fill a vector.
bool grid_geometry(const backend::device_info& device, ir::map_form form, std::uint64_t width, std::uint64_t items,
                   backend::geometry& g, geometry_choice choice = {});

} // namespace loom::launch
