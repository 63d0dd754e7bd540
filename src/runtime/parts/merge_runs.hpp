// Merging sorted runs of vectors split over a context's parts (docs/multi-device.md, "Sorting"):
// loom::merge across parts, and the merge rounds of a sort across parts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/parts/partition.hpp"
#include "runtime/run_merge.hpp"

namespace loom::detail {

// A sorted run in parted buffers: elements first .. first + count of buffers[0] (the keys) and of
// buffers[1 + k] (value vector k), each split as `ranges`.
struct parted_run {
    const buffer_ptr* buffers = nullptr;
    const std::vector<part_range>* ranges = nullptr;
    std::uint64_t first = 0, count = 0;
};

// A key's place in loom::sort's ascending order as an unsigned number: an integer with its sign
// flipped, a float's bits in IEEE 754 totalOrder (docs/sorting.md). bytes: the key's size_of(t).
std::uint64_t key_order(dtype t, const unsigned char* bytes);

// Whether run b's first key goes before run a's last in the sort's order (`descending` or not):
// the runs are not already one.
bool runs_overlap(const parted_run& a, const parted_run& b, bool descending);

// The merge (no comparator: loom::sort's order) of runs a and b, `values` value vectors with the
// keys, into the parts first_part .. end_part - 1 of `outputs` (keys, then values; split as
// out_ranges), which hold a.count + b.count elements from out_ranges[first_part].first on. The
// host finds each output part's share of each run (merge path: a binary search, two key reads a
// step); every part's shares are copied into buffers of its own (between the devices where they
// can) before any output is written, so the runs may lie in the outputs; then every part merges
// its shares (merge_on_device), all at once.
void merge_runs_into_parts(context_impl& ctx, const merge_call& call, const parted_run& a, const parted_run& b,
                           const buffer_ptr* outputs, std::size_t values, const std::vector<part_range>& out_ranges,
                           std::size_t first_part, std::size_t end_part);

} // namespace loom::detail
