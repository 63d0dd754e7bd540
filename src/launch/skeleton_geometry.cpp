// The skeletons' launch geometry; see skeleton_geometry.hpp.
#include "launch/skeleton_geometry.hpp"

#include <algorithm>

#include "codegen/radix_pass.hpp"
#include "codegen/scan_pass.hpp"

namespace loom::launch {
namespace {

// Groups enough to fill the device a few times over.
std::uint64_t groups_wanted(const backend::device_info& info) {
    return std::uint64_t(std::max(1u, info.compute_units)) * (info.gpu ? 8 : 4);
}

} // namespace

unsigned skeleton_group_size(const backend::device_info& info) {
    unsigned g = 256;
    while (g > 1 && g > info.max_work_group) g /= 2;
    return g;
}

reduce_geometry reduce_geometry_for(const backend::device_info& info, std::uint64_t n) {
    reduce_geometry g;
    g.group = skeleton_group_size(info);
    g.chunked = !info.gpu;
    // Enough groups to fill the device a few times over; no more, so pass 2 stays one
    // group's work.
    const std::uint64_t wanted = groups_wanted(info);
    if (!g.chunked) {
        g.groups = std::max<std::uint64_t>(1, std::min(wanted, (n + g.group - 1) / g.group));
        return g;
    }
    // On a CPU a group's work-items run one after another and each round of its tree is a
    // barrier, a fixed cost per group whatever its input. So a group is small, 8 to 64
    // work-items, each with at least 2048 elements when the input allows, so that its set-up
    // and its step of the tree stay small beside its folds. A second group, and with it pass 2
    // and a second launch, once the input passes 2^14 elements: a group runs on one core, and
    // an input dearer than a load needs the others early. docs/skeleton-reduce.md has the
    // reasons; bench/results/history.csv the trials.
    constexpr std::uint64_t per_item = 2048, one_group = std::uint64_t(1) << 14;
    g.groups = n <= one_group ? 1 : std::min(wanted, (n + one_group - 1) / one_group);
    g.group = std::min(g.group, 64u);
    while (g.group > 8 && g.groups * g.group * per_item > n) g.group /= 2;
    return g;
}

std::uint64_t reduce_chunk(const reduce_geometry& g, std::uint64_t n) {
    const std::uint64_t threads = g.groups * g.group;
    return ((n + threads - 1) / threads + chunk_lanes - 1) & ~std::uint64_t(chunk_lanes - 1);
}

std::uint64_t reduce_depth(const reduce_geometry& g, std::uint64_t n) {
    std::uint64_t log_group = 0;
    while ((1ull << log_group) < g.group) ++log_group;
    const std::uint64_t threads = g.groups * g.group;
    // Chunked: a lane folds every 16th element of the chunk, lane 0 also the tail (< 16);
    // then lane l takes lane l + 8 and the eight are folded in order, lane 0 first: eight
    // more steps for it (codegen/reduce_pass.cpp, chunked_fold).
    auto chunked_serial = [](const reduce_geometry& pass, std::uint64_t items) {
        return reduce_chunk(pass, items) / chunk_lanes + (chunk_lanes - 1) + 8;
    };
    const std::uint64_t serial1 = g.chunked ? chunked_serial(g, n) : (n + threads - 1) / threads;
    if (g.groups == 1) return serial1 + log_group;
    reduce_geometry pass2 = g; // one group over the partials
    pass2.groups = 1;
    const std::uint64_t serial2 = g.chunked ? chunked_serial(pass2, g.groups) : (g.groups + g.group - 1) / g.group;
    return serial1 + serial2 + 2 * log_group;
}

scan_geometry scan_geometry_for(const backend::device_info& info, std::optional<ir::map_form> forced, std::uint64_t n,
                                unsigned element_bytes) {
    scan_geometry g;
    g.group = skeleton_group_size(info);
    g.chunked = forced ? *forced == ir::map_form::chunked : !info.gpu;
    // A tile in work-group memory takes at most 32 KiB (CUDA gives a block 48 KiB of static
    // shared memory; the group's totals and the look-back's window take the rest).
    if (!g.chunked)
        while (g.group > 32 && std::uint64_t(g.group) * codegen::tile_items * element_bytes > 32768) g.group /= 2;
    const std::uint64_t wanted = groups_wanted(info);
    if (g.chunked) {
        g.groups = std::max<std::uint64_t>(1, std::min(wanted, (n + 64 * g.group - 1) / (64 * g.group)));
        g.parts = g.groups * g.group;
        g.chunk = ((n + g.parts - 1) / g.parts + 7) & ~std::uint64_t(7);
    } else { // a group a tile, as many as there are tiles (the single pass's look-back)
        g.chunk = std::uint64_t(g.group) * codegen::tile_items;
        g.groups = std::max<std::uint64_t>(1, (n + g.chunk - 1) / g.chunk);
        g.parts = g.groups;
    }
    return g;
}

sort_geometry sort_geometry_for(const backend::device_info& info, std::optional<ir::map_form> forced,
                                unsigned key_bytes, std::uint64_t n) {
    sort_geometry g;
    g.chunked = forced ? *forced == ir::map_form::chunked : !info.gpu;
    if (skeleton_group_size(info) < 16) g.chunked = true; // a tile's 16 digit values take a work-item each
    const std::uint64_t wanted = groups_wanted(info);
    if (g.chunked) {
        // Groups of one work-item, each a part of at least 2^14 keys where n allows: a part's
        // counts (256 of them) are set up, written and scanned per pass whatever its length, and
        // each part adds 256 runs to the scatter's writes. 8-bit digits, 4-bit ones for a 1-byte
        // key (two digits).
        g.radix_bits = key_bytes == 1 ? 4 : 8;
        g.group = 1;
        g.groups = std::max<std::uint64_t>(1, std::min(wanted, n >> 14));
        g.parts = g.groups;
        g.chunk = (n + g.parts - 1) / g.parts;
        g.whole = g.parts == 1;
    } else {
        g.radix_bits = codegen::tiled_radix_bits;
        g.group = skeleton_group_size(info);
        const std::uint64_t tile = std::uint64_t(g.group) * codegen::radix_items;
        const std::uint64_t groups0 = std::max<std::uint64_t>(1, std::min(wanted, (n + tile - 1) / tile));
        g.chunk = ((n + groups0 - 1) / groups0 + tile - 1) / tile * tile;
        g.groups = std::max<std::uint64_t>(1, (n + g.chunk - 1) / g.chunk);
        g.parts = g.groups;
    }
    const std::uint64_t counts = g.parts << g.radix_bits;
    g.offsets_group = skeleton_group_size(info);
    while (g.offsets_group > 1 && g.offsets_group * 16 > counts) g.offsets_group /= 2;
    g.offsets_chunk = (counts + g.offsets_group - 1) / g.offsets_group;
    return g;
}

merge_geometry merge_geometry_for(const backend::device_info& info, std::optional<ir::map_form> forced,
                                  std::uint64_t n) {
    merge_geometry g;
    g.chunked = forced ? *forced == ir::map_form::chunked : !info.gpu;
    if (g.chunked) {
        // A part per work-item, a few per compute unit, each at least 2^12 keys; a merge's
        // outputs in four segments per part, so that the last merges (two runs into one)
        // still keep every core busy.
        const std::uint64_t parts = std::max<std::uint64_t>(1, std::min(groups_wanted(info), n >> 12));
        g.chunk = std::max<std::uint64_t>(64, ((n + parts - 1) / parts + 63) & ~std::uint64_t(63));
        g.items = g.chunk / 4;
    } else {
        g.group = skeleton_group_size(info);
        g.chunk = 8;
        g.items = 8;
    }
    g.parts = std::max<std::uint64_t>(1, (n + g.chunk - 1) / g.chunk);
    g.merges = 1;
    while ((g.chunk << g.merges) < n) ++g.merges;
    return g;
}

keyed_scan_geometry keyed_scan_geometry_for(const backend::device_info& info, std::optional<ir::map_form> forced,
                                            std::uint64_t n) {
    keyed_scan_geometry g;
    const bool chunked = forced ? *forced == ir::map_form::chunked : !info.gpu;
    // CPU devices: groups of one work-item, at least 2^12 elements each where n allows.
    // GPUs: 32 elements a work-item, whole groups.
    g.group = chunked ? 1 : skeleton_group_size(info);
    const std::uint64_t items = chunked ? std::max<std::uint64_t>(1, std::min(groups_wanted(info) * 4, n >> 12))
                                        : std::max<std::uint64_t>(1, (n + 31) / 32);
    g.chunk = std::max<std::uint64_t>(1, (n + items - 1) / items);
    g.items = std::max<std::uint64_t>(1, (n + g.chunk - 1) / g.chunk);
    g.offsets_group = skeleton_group_size(info);
    while (g.offsets_group > 1 && g.offsets_group * 4 > g.items) g.offsets_group /= 2;
    g.offsets_chunk = (g.items + g.offsets_group - 1) / g.offsets_group;
    return g;
}

keyed_scan_geometry scan_by_key_geometry_for(const backend::device_info& info, std::optional<ir::map_form> forced,
                                             std::uint64_t n, unsigned value_bytes) {
    keyed_scan_geometry g = keyed_scan_geometry_for(info, forced, n);
    const bool chunked = forced ? *forced == ir::map_form::chunked : !info.gpu;
    if (chunked) return g;
    g.single_pass = true;
    g.tile_group = skeleton_group_size(info);
    while (g.tile_group > 32 && std::uint64_t(g.tile_group) * codegen::tile_items * (value_bytes + 4) > 32768)
        g.tile_group /= 2;
    const std::uint64_t tile = std::uint64_t(g.tile_group) * codegen::tile_items;
    g.tiles = std::max<std::uint64_t>(1, (n + tile - 1) / tile);
    return g;
}

compact_geometry compact_geometry_for(const backend::device_info& info, std::optional<ir::map_form> forced,
                                      std::uint64_t n, std::uint64_t room) {
    compact_geometry g;
    g.chunks = keyed_scan_geometry_for(info, forced, n);
    const bool chunked = forced ? *forced == ir::map_form::chunked : !info.gpu;
    g.single_pass = !chunked && room >= n;
    if (g.single_pass) {
        g.tile_group = skeleton_group_size(info);
        const std::uint64_t tile = std::uint64_t(g.tile_group) * codegen::tile_items;
        g.tiles = std::max<std::uint64_t>(1, (n + tile - 1) / tile);
    }
    return g;
}

axis_geometry axis_geometry_for(const backend::device_info& info, std::optional<ir::map_form> forced, unsigned axis,
                                std::uint64_t rows, std::uint64_t cols) {
    axis_geometry g;
    const bool gpu = forced ? *forced == ir::map_form::grid_stride : info.gpu;
    const std::uint64_t units = std::max(1u, info.compute_units);
    g.lanes = chunk_lanes;
    if (!gpu) {
        // As a CPU map: groups of one work-item, a few per compute unit, each a band of rows
        // (or of blocks of columns); a band's start-up is small beside a row's work.
        g.form = codegen::axis_form::lanes;
        const std::uint64_t things = axis == 1 ? rows : (cols + g.lanes - 1) / g.lanes;
        g.items = std::max<std::uint64_t>(1, std::min(things, units * 8));
        return g;
    }
    g.form = codegen::axis_form::groups;
    const unsigned largest = skeleton_group_size(info);
    if (axis == 1) {
        // A group per row, as wide as the row (a power of two), from a warp's 32 to 256.
        unsigned group = 32;
        while (group < largest && group < cols) group *= 2;
        g.group = std::min(group, largest);
        g.items = std::max<std::uint64_t>(1, std::min(rows, units * 32)) * g.group;
        return g;
    }
    g.group = largest;
    const std::uint64_t cap = std::max<std::uint64_t>(1, units * 2048 / g.group) * g.group;
    g.items = std::max<std::uint64_t>(g.group, std::min((cols + g.group - 1) / g.group * g.group, cap));
    return g;
}

} // namespace loom::launch
