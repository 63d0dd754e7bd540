// The launch geometry of the multi-pass skeletons (reductions, scans, reductions along an
// axis), read from the device's properties: how many work-groups of how many work-items each
// pass runs, and how a work-item walks its elements. Pure functions; the planners
// (src/skeleton) key their plans on the parts that change the kernel's text.
#pragma once

#include <cstdint>
#include <optional>

#include "backend/device.hpp"
#include "codegen/axis_pass.hpp"
#include "ir/kernel.hpp"

namespace loom::launch {

// Work-group size of the skeletons on this device: a power of two, at most 256.
unsigned skeleton_group_size(const backend::device_info& info);

// Reductions (docs/skeleton-reduce.md).
struct reduce_geometry {
    unsigned group = 1;       // work-items per group (a power of two)
    std::uint64_t groups = 1; // groups of pass 1 = partials reduced by pass 2 (no pass 2 when 1)
    // How a work-item walks the input: a contiguous chunk, chunk_lanes elements at a time
    // into as many accumulators (CPU devices: cache lines read once, and independent chains
    // the compiler can vectorise), or a grid-stride loop (GPUs: coalesced loads).
    bool chunked = false;
};

// Accumulators per work-item in the chunked layout. Sixteen, not eight: one 8-wide vector
// add has a latency of several cycles, and with one vector of accumulators each step waits
// for the last.
constexpr unsigned chunk_lanes = 16;

reduce_geometry reduce_geometry_for(const backend::device_info& info, std::uint64_t n);

// Elements a work-item folds in the chunked layout: a multiple of chunk_lanes.
std::uint64_t reduce_chunk(const reduce_geometry& g, std::uint64_t n);

// The longest chain of additions from one element to the result (k in the bound
// |error| <= gamma_k * sum |x_i|): a work-item's serial fold (chunked: one lane's fold,
// the tail and the fold of the lanes), the tree of pass 1, the serial fold of
// pass 2 and its tree.
std::uint64_t reduce_depth(const reduce_geometry& g, std::uint64_t n);

// Scans (codegen/scan_pass.hpp): a single pass on GPUs (or with LOOM_KERNEL_FORM=grid_stride),
// a tile per group; chunked on CPU devices, three passes, a chunk per work-item (a multiple of
// 8, at least 64 elements a work-item where n allows).
struct scan_geometry {
    unsigned group = 1;
    bool chunked = false;
    std::uint64_t groups = 0;
    std::uint64_t chunk = 0; // elements per work-item (chunked) or the tile (single pass)
    std::uint64_t parts = 0; // the chunks (pass 2 scans their totals) or the tiles
};

scan_geometry scan_geometry_for(const backend::device_info& info, std::optional<ir::map_form> forced, std::uint64_t n,
                                unsigned element_bytes);

// Radix sorts (codegen/radix_pass.hpp): chunked on CPU devices (a part per work-item, 8-bit
// digits), tiled on GPUs (a part per group of whole tiles, 4-bit digits), or as `forced` says.
struct sort_geometry {
    bool chunked = false;
    unsigned group = 1;      // work-items per group of the count and scatter passes
    unsigned radix_bits = 8; // the digit's width
    std::uint64_t groups = 1;
    std::uint64_t parts = 1;         // work-items (chunked) or groups (tiled): each counts its own keys
    std::uint64_t chunk = 0;         // keys per part
    unsigned offsets_group = 1;      // the offsets pass's one group
    std::uint64_t offsets_chunk = 0; // counts per work-item of the offsets pass
    // Chunked with one part: one work-item runs every digit in one launch (radix_pass::whole),
    // the work the three passes a digit would do on that one work-item, without their launches.
    bool whole = false;
};

// key_bytes: the key's size; its digits are an even number, so that the last digit's scatter
// writes the output (the passes alternate between it and one scratch copy).
sort_geometry sort_geometry_for(const backend::device_info& info, std::optional<ir::map_form> forced,
                                unsigned key_bytes, std::uint64_t n);

// Merge sorts (codegen/merge_pass.hpp): on CPU devices a few long parts, each sorted by one
// work-item, then few merges of long output segments; on GPUs parts of 8 keys and many merges of
// 8 outputs a work-item.
struct merge_geometry {
    bool chunked = false;
    unsigned group = 1;      // work-items per group
    std::uint64_t chunk = 1; // keys per part of the run sort (a multiple of items)
    std::uint64_t items = 1; // outputs per work-item of a merge
    std::uint64_t parts = 1; // the run sort's work-items: n / chunk, rounded up
    unsigned merges = 1;     // merge passes: the doublings from chunk to n, at least one
};

merge_geometry merge_geometry_for(const backend::device_info& info, std::optional<ir::map_form> forced,
                                  std::uint64_t n);

// Keyed scans (codegen/segmented_scan_pass.hpp): a chunk per work-item on every device; on CPU
// devices a few per compute unit, on GPUs 32 elements each.
struct keyed_scan_geometry {
    unsigned group = 1;      // work-items per group of the totals and scan passes
    std::uint64_t items = 1; // work-items launched: the totals
    std::uint64_t chunk = 1; // elements per work-item
    unsigned offsets_group = 1;
    std::uint64_t offsets_chunk = 1; // totals per work-item of the offsets pass
    // A keyed scan on a GPU (scan_by_key_geometry_for): one pass over tiles of tile_group *
    // tile_items elements, a group each, taken by ticket, instead of the three over chunks.
    bool single_pass = false;
    unsigned tile_group = 0;
    std::uint64_t tiles = 0;
};

keyed_scan_geometry keyed_scan_geometry_for(const backend::device_info& info, std::optional<ir::map_form> forced,
                                            std::uint64_t n);
// The same for a keyed scan of values `value_bytes` wide: its single pass on GPUs, whose tile
// of values and head flags takes at most 32 KiB of work-group memory.
keyed_scan_geometry scan_by_key_geometry_for(const backend::device_info& info, std::optional<ir::map_form> forced,
                                             std::uint64_t n, unsigned value_bytes);

// Stream compactions (codegen/compact_pass.hpp): on GPUs, when the output has room for every
// element (so that no write can overflow it), one pass over tiles of tile_group * tile_items
// elements taken by ticket; otherwise, and on CPU devices, three passes over the keyed scans'
// chunks.
struct compact_geometry {
    keyed_scan_geometry chunks; // the three passes'
    bool single_pass = false;
    unsigned tile_group = 0; // the single pass's work-items per group
    std::uint64_t tiles = 0; // ... and its tiles (a group each)
};

compact_geometry compact_geometry_for(const backend::device_info& info, std::optional<ir::map_form> forced,
                                      std::uint64_t n, std::uint64_t room);

// Reductions along an axis of a rows x cols input (codegen/axis_pass.hpp): one launch.
struct axis_geometry {
    codegen::axis_form form = codegen::axis_form::lanes;
    unsigned group = 1;      // work-items per group (groups form, axis 1: the tree's size)
    std::uint64_t items = 1; // work-items launched, a multiple of group
    unsigned lanes = 16;     // lanes form: accumulators per work-item
};

// The device's form (lanes on CPU devices, groups on GPUs), or the one `forced` names
// (LOOM_KERNEL_FORM: chunked is lanes, grid_stride groups).
axis_geometry axis_geometry_for(const backend::device_info& info, std::optional<ir::map_form> forced, unsigned axis,
                                std::uint64_t rows, std::uint64_t cols);

} // namespace loom::launch
