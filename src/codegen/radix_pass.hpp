// Source text of a least-significant-digit radix sort's passes (docs/sorting.md). One digit is
// three passes: count each part's keys per digit value, scan the counts (digit by digit, part by
// part within a digit) into where each part's keys of each digit value start, and move every key
// (and the values that travel with it) to its place, in order within a part, so the sort is
// stable. The key is the digit's bits of its ordered bits: an unsigned integer of the key's width
// that orders as the key does (sign bit flipped for signed integers; for floating point, every bit
// flipped for negatives and the sign bit for the others, IEEE 754's totalOrder), inverted for a
// descending sort. The direction is an argument, so both directions run one program.
//
// Two layouts, as the scan's (codegen/scan_pass.hpp):
// - chunked (CPU devices): a part is a work-item's contiguous chunk, walked once per pass by one
//   work-item with its counts in private memory: no barriers, and each work-item writes its
//   digit values' runs in order;
// - tiled (GPUs): a part is a work-group's contiguous chunk, walked a tile of group * radix_items
//   elements at a time; a work-item ranks its radix_items keys among the tile's by an exclusive
//   scan over the group of its per-digit counts, packed two 16-bit counts to a word.
// Where the chunked layout has one part (under 2^15 keys), one work-item runs every digit's three
// steps in one launch (radix_pass::whole): the same work, without two launches a digit.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/dialect.hpp"
#include "codegen/kernel_source.hpp"
#include "codegen/source_builder.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

enum class radix_pass {
    count,   // each part's count of each digit value to counts[digit * parts + part]
    offsets, // one work-group: the counts' exclusive scan, in place
    scatter, // each key (and its values) to keys_out[offset of its part and digit + its rank]
    // One work-item, every digit: count, scan the counts, move the keys; the first digit reads
    // the input (and the value vectors in place), the digits alternate between the scratch
    // copies and the outputs, the last writes the outputs (chunked layout, one part).
    whole,
};

// Keys a work-item ranks per tile in the tiled layout.
constexpr unsigned radix_items = 4;
// The digit's width in the tiled layout: its 16 counts pack into 8 words.
constexpr unsigned tiled_radix_bits = 4;

struct radix_pass_kernel {
    // Per element, the key: node `root` of `input` (an expression fused into the first digit's
    // passes, or a load of the keys an earlier digit moved). The offsets pass reads the counts
    // through `input`'s parameter 0 and writes them in place.
    const ir::kernel* input = nullptr;
    std::uint32_t root = ir::no_node;
    radix_pass pass = radix_pass::count;
    dtype key = dtype::u32;
    unsigned radix_bits = 8;    // the digit's width
    std::vector<dtype> carried; // the value vectors the scatter moves with the keys
    unsigned group = 1;         // work-items per group, a power of two
    bool chunked = false;
};

// Parameters after the input's: count: counts; scatter: keys_out, counts, then each carried
// vector's input and output; then shift and descending (count, scatter), n, chunk, parts. chunk is per
// work-item (chunked, and the offsets pass) or per group (tiled); n is the keys' count, or the
// offsets pass's count of counts. whole: keys_out (output 0), the keys' scratch copy (carried 0),
// then per value vector k its vector (output 1 + k: read by the first digit, written by the last)
// and its scratch copy (carried 1 + k); then descending, n, chunk and parts (the last two unused).
// Its input and keys_out may be one vector (an in-place sort): no parameter is restrict.
kernel_source emit_radix_pass(const radix_pass_kernel& r, const dialect& d);

// Writes loom_key_bits(x, descending): a `key`'s ordered bits (above), inverted where descending
// is nonzero, so that keys compare as the sort orders them; the same text in both dialects but
// for the reinterpretation of a floating-point key's bits. Also a merge's order without a
// comparator (codegen/merge_pass.hpp).
void write_key_bits(source_builder& b, dtype key);

// Whether t may be a radix sort's key: an integer or floating-point scalar.
bool radix_key(dtype t);

} // namespace loom::codegen
