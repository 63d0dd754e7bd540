// The launch policy. Rules, with the measurements behind them in docs/kernel-forms.md:
// - CPU devices run a map as a few work-groups of one work-item each, every work-item
//   walking a contiguous chunk: the device compiler vectorises the chunk's inner loop, and
//   the few work-groups keep the per-group cost of the runtime small. One work-item per
//   element, vectorised across work-items at any group size, ran at less than half the speed.
// - GPUs run a grid-stride loop in blocks of 256, the grid capped at a few waves per
//   compute unit, so that large launches reuse their threads instead of launching more.
#include "launch/policy.hpp"

#include <algorithm>
#include <string>

#include "support/environment.hpp"

namespace loom::launch {
namespace {

// A chunk is at least this many elements: below it a work-item costs more to start than its
// elements take. Work-items per compute unit by default: enough for the runtime to balance
// the units when one is slowed, few enough to keep the cost per work-group small.
constexpr std::uint64_t min_chunk = 1024;
constexpr std::uint32_t default_items_per_unit = 8;
constexpr std::uint32_t default_block = 256;
constexpr std::uint64_t threads_per_unit = 2048; // the grid-stride cap: a few waves per unit

std::uint32_t block_size(const backend::device_info& device, std::uint32_t wanted) {
    return std::uint32_t(std::max<std::uint64_t>(1, std::min<std::uint64_t>(wanted, device.max_work_group)));
}

} // namespace

ir::map_form map_form_for(const backend::device_info& device) {
    return device.gpu ? ir::map_form::grid_stride : ir::map_form::chunked;
}

std::uint32_t sparse_slice_height(const backend::device_info&, ir::map_form form) {
    return form == ir::map_form::grid_stride ? 32 : 1;
}

backend::geometry map_geometry(const backend::device_info& device, ir::map_form form, std::uint64_t items,
                               geometry_choice choice) {
    backend::geometry g;
    if (items == 0) items = 1;
    const std::uint64_t units = std::max(1u, device.compute_units);
    if (form == ir::map_form::chunked) {
        const std::uint64_t per_unit = choice.value ? choice.value : default_items_per_unit;
        g.group_size = 1;
        g.global_items = std::max<std::uint64_t>(1, std::min(units * per_unit, (items + min_chunk - 1) / min_chunk));
        return g;
    }
    const std::uint32_t block = block_size(device, choice.value ? choice.value : default_block);
    std::uint64_t global = (items + block - 1) / block * block;
    if (form == ir::map_form::grid_stride)
        global = std::min<std::uint64_t>(global, std::max<std::uint64_t>(units * threads_per_unit / block, 1) * block);
    g.group_size = block;
    g.global_items = global;
    return g;
}

std::vector<geometry_choice> tuning_candidates(const backend::device_info& device, ir::map_form form) {
    std::vector<geometry_choice> out;
    if (form == ir::map_form::chunked) {
        for (std::uint32_t per_unit : {default_items_per_unit, 2u, 4u, 16u, 32u}) out.push_back({per_unit});
        return out;
    }
    for (std::uint32_t block : {default_block, 128u, 512u, 1024u})
        if (block <= device.max_work_group) out.push_back({block});
    return out;
}

std::vector<geometry_choice> grid_tuning_candidates(const backend::device_info& device, ir::map_form form) {
    if (form == ir::map_form::chunked) return tuning_candidates(device, form);
    std::vector<geometry_choice> out{{0}}; // the default shape (grid_geometry)
    for (auto [across, down] : {std::pair<std::uint32_t, std::uint32_t>{64, 4}, {128, 2}, {256, 1}, {32, 4}, {16, 16}})
        if (across * down <= device.max_work_group) out.push_back({grid_shape(across, down)});
    return out;
}

bool wants_grid_form(const backend::device_info&) { return true; }

std::optional<ir::map_form> form_from_environment() {
    const std::optional<std::string> value = environment::text("LOOM_KERNEL_FORM");
    if (!value || *value == "auto") return std::nullopt;
    if (*value == "chunked") return ir::map_form::chunked;
    if (*value == "grid_stride") return ir::map_form::grid_stride;
    throw environment::refusal("LOOM_KERNEL_FORM", *value, "a kernel form",
                               "use chunked (a contiguous chunk per work-item, the CPU form), grid_stride (the GPU "
                               "form) or auto (the device's own, the default)");
}

bool grid_geometry(const backend::device_info& device, ir::map_form form, std::uint64_t width, std::uint64_t items,
                   backend::geometry& g, geometry_choice choice) {
    if (width < 16 || items % width != 0) return false;
    const std::uint64_t rows = items / width;
    if (form == ir::map_form::chunked) { // bands of rows, as many work-items as a 1-D chunked map
        g = map_geometry(device, form, items, choice);
        g.global_items = std::min(g.global_items, rows);
        return true;
    }
    // Groups of 32 x 8. An interior-tested stencil map runs its per-element form only in
    // the groups at the border, and a narrower group puts fewer columns there
    // (docs/skeleton-stencil.md has the comparison). Rows narrower than 32 take 16.
    std::uint32_t across = width >= 32 ? 32 : 16, down = 8;
    if (choice.value >> 16) { // a tuned shape (grid_shape)
        across = choice.value & 0xFFFFu;
        down = choice.value >> 16;
    }
    g.group_size = across;
    g.group_rows = down;
    g.global_items = (width + across - 1) / across * across;
    g.rows = (rows + down - 1) / down * down;
    return true;
}

} // namespace loom::launch
