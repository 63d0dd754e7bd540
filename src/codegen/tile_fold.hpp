// The folds of the single-pass passes (codegen/scan_pass.cpp: the scan; codegen/compact_pass.cpp:
// the compaction's places), as kernel text: across the work-items of a group, and across tiles
// by decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back", 2016): each work-group takes a tile by ticket and finds what every tile before its
// own folds to, from what those tiles published.
//
// The pass declares, with these names: buffers `totals` and `offsets` of the fold's type (a tile's
// own total, and the fold of everything up to its end) and `status` (32-bit unsigned, a word a tile
// and then the ticket counter, zeroed before the pass: emit_status_clear in scan_pass.hpp), and
// the extents `n` and `chunk` (a tile's elements).
#pragma once

#include <functional>
#include <string>

#include "codegen/source_builder.hpp"

namespace loom::codegen {

struct tile_fold {
    dtype type;                                                              // the folded values' type
    std::string type_name;                                                   // ... as the dialect spells it
    std::function<std::string(const std::string&, const std::string&)> call; // op(a, b), in order
    unsigned group = 1;                                                      // work-items per group
    std::string init;     // the fold before tile 0 (an exclusive scan's init)
    std::string identity; // op's identity
};

// A tile's place q in work-group memory `array`: one slot of padding every 32, so that work-item
// l reading its tile_items consecutive values (q = l * 8 + j) hits 32 different banks a warp, and
// so do 32 work-items reading or writing a value four apart.
std::string tile_slot(const std::string& q, const std::string& array = "s");

// The exclusive scan over the group of each work-item's value `v`: `before` (the fold of the
// values of the work-items before this one, the identity for the first) and `total` (the whole
// group's), both declared by the caller, as is `ts`, f.group values of f's type in work-group
// memory, and `lid`. Where the dialect shuffles within a warp, a warp scan, the warps' totals
// scanned by the first warp, two barriers; elsewhere a Hillis-Steele scan in ts[], two barriers
// a step. The caller's next writes to s[] and ts[] come after a barrier every work-item reaches
// only once it has read both.
void group_exclusive_scan(source_builder& b, const tile_fold& f, const std::string& v);

// At the kernel's outermost scope (OpenCL C declares work-group memory there): the look-back's
// work-group memory, `lid`, `tiles`, and the ticket: `g`, the tile this group scans.
void take_ticket(source_builder& b, const tile_fold& f);

// After the tile's fold is declared as `total` and `carry` (of the fold's type) is declared:
// publishes `total`, finds the fold of every tile before g, from `init`, publishes its own, and
// sets `carry` to that fold in every work-item of the group. `complete`, where given, is an
// expression the same in every work-item of the group, true where `total` is already the fold up
// to the tile's end whatever came before it (a keyed scan's tile holding a segment's head): the
// tile publishes it as that at once, and still looks back for its `carry`.
void look_back(source_builder& b, const tile_fold& f, const std::string& complete = "");

} // namespace loom::codegen
