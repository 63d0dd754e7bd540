// Merging sorted runs split over a context's parts; see merge_runs.hpp.
#include <algorithm>
#include <cstring>

#include "ir/promotion.hpp"
#include "loom/error.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/merge_runs.hpp"
#include "runtime/parts/parted_buffer.hpp"
#include "runtime/parts/parts_device.hpp"
#include "runtime/parts/statements_across_parts.hpp"

namespace loom::detail {
namespace {

// The run's keys x .. x + count in the sort's order, read from the device (one read).
std::vector<std::uint64_t> keys_at(const parted_run& r, std::uint64_t x, std::uint64_t count) {
    const dtype t = r.buffers[0]->type;
    const std::size_t size = size_of(t);
    std::vector<unsigned char> bytes(std::size_t(count) * size);
    if (count != 0) download(*r.buffers[0], r.first + x, count, bytes.data());
    std::vector<std::uint64_t> keys(count);
    for (std::size_t k = 0; k < keys.size(); ++k) keys[k] = key_order(t, &bytes[k * size]);
    return keys;
}

std::uint64_t key_at(const parted_run& r, std::uint64_t x) { return keys_at(r, x, 1)[0]; }

// A merge path search reads a key of each run a step, each read a wait on the device (about 40 us
// on PoCL): it steps until this many candidates are left, then reads those of both runs at once
// (two reads in place of 2 log2 of the window's; 64-128 KiB each).
constexpr std::uint64_t search_window = std::uint64_t(1) << 14;

// How many of the merge's first p outputs come from run a: the least i with (j = p - i) j == 0,
// or i == a.count, or b[j - 1] before a[i] (a's keys go first among equals, so a[i] waits only
// for a b strictly before it).
std::uint64_t first_run_share(const parted_run& a, const parted_run& b, bool descending, std::uint64_t p) {
    const auto before = [&](std::uint64_t x, std::uint64_t y) { return descending ? x > y : x < y; };
    std::uint64_t lo = p > b.count ? p - b.count : 0, hi = std::min(p, a.count);
    while (hi - lo > search_window) {
        const std::uint64_t i = lo + (hi - lo) / 2, j = p - i; // (lo < i < hi <= min(p, a.count))
        if (before(key_at(b, j - 1), key_at(a, i)))
            hi = i;
        else
            lo = i + 1;
    }
    if (lo == hi) return lo;
    // For lo <= i < hi: i < a.count and j = p - i >= 1, so the test reads a[i] and b[p - i - 1],
    // which lie in a[lo, hi) and b[p - hi, p - lo).
    const std::uint64_t first = lo, last = hi;
    const std::vector<std::uint64_t> as = keys_at(a, first, last - first), bs = keys_at(b, p - last, last - first);
    while (lo < hi) {
        const std::uint64_t i = lo + (hi - lo) / 2; // a[i] is as[i - first], b[p - i - 1] bs[last - 1 - i]
        if (before(bs[last - 1 - i], as[i - first]))
            hi = i;
        else
            lo = i + 1;
    }
    return lo;
}

} // namespace

std::uint64_t key_order(dtype t, const unsigned char* bytes) {
    // A radix key is at most 8 bytes (the bound also tells the compiler so).
    const std::size_t size = std::min<std::size_t>(size_of(t), sizeof(std::uint64_t));
    std::uint64_t bits = 0;
    std::memcpy(&bits, bytes, size); // little-endian: the low bytes
    const unsigned width = unsigned(size * 8);
    const std::uint64_t sign = std::uint64_t(1) << (width - 1);
    const std::uint64_t all = width == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << width) - 1;
    if (ir::is_signed_integer(t)) return bits ^ sign;
    if (ir::is_float(t)) return (bits & sign) ? (~bits & all) : (bits | sign);
    return bits;
}

bool runs_overlap(const parted_run& a, const parted_run& b, bool descending) {
    if (a.count == 0 || b.count == 0) return false;
    const std::uint64_t last = key_at(a, a.count - 1), first = key_at(b, 0);
    return descending ? first > last : first < last;
}

void merge_runs_into_parts(context_impl& ctx, const merge_call& call, const parted_run& a, const parted_run& b,
                           const buffer_ptr* outputs, std::size_t values, const std::vector<part_range>& out_ranges,
                           std::size_t first_part, std::size_t end_part) {
    const std::uint64_t o0 = out_ranges[first_part].first;
    std::vector<std::uint64_t> cut; // run a's share of the merge before each output part's start
    for (std::size_t m = first_part; m < end_part; ++m)
        cut.push_back(first_run_share(a, b, call.descending, out_ranges[m].first - o0));
    cut.push_back(a.count);
    // Every part's shares of both runs (keys, then values) into buffers of its own, before any
    // output is written: a share may lie in any output part.
    struct shares {
        std::vector<buffer_ptr> a, b;
        std::uint64_t a_length = 0, b_length = 0;
    };
    std::vector<shares> parts(end_part - first_part);
    for (std::size_t m = first_part; m < end_part; ++m) {
        shares& s = parts[m - first_part];
        const std::uint64_t p0 = out_ranges[m].first - o0, i0 = cut[m - first_part], i1 = cut[m - first_part + 1];
        const std::uint64_t j0 = p0 - i0, j1 = p0 + out_ranges[m].count - i1;
        s.a_length = i1 - i0;
        s.b_length = j1 - j0;
        if (out_ranges[m].count == 0) continue;
        const context_ptr part = ctx.parts()[m];
        for (std::size_t v = 0; v <= values; ++v) {
            const dtype t = outputs[v]->type;
            s.a.push_back(new_buffer(part, std::max<std::uint64_t>(1, s.a_length), t));
            s.b.push_back(new_buffer(part, std::max<std::uint64_t>(1, s.b_length), t));
            if (s.a_length) copy_from_parts(ctx, *a.buffers[v], *a.ranges, a.first + i0, s.a_length, m, *s.a.back(), 0);
            if (s.b_length) copy_from_parts(ctx, *b.buffers[v], *b.ranges, b.first + j0, s.b_length, m, *s.b.back(), 0);
        }
    }
    // Then every part merges its shares into its part of the outputs.
    std::vector<buffer_ptr> into(1 + values);
    for (std::size_t m = first_part; m < end_part; ++m) {
        const shares& s = parts[m - first_part];
        if (out_ranges[m].count == 0) continue;
        for (std::size_t v = 0; v <= values; ++v) into[v] = outputs[v]->parts[m];
        merge_operands operands;
        operands.outputs = into.data();
        operands.a = s.a.data();
        operands.b = s.b.data();
        operands.a_length = s.a_length;
        operands.b_length = s.b_length;
        operands.values = values;
        context_impl& part = *ctx.parts()[m];
        std::lock_guard<std::recursive_mutex> guard(part.mutex());
        merge_on_device(part, call, operands);
    }
}

void merge_across_parts(context_impl& ctx, const merge_call& call, const merge_operands& m) {
    const std::size_t parts = ctx.parts().size();
    if (call.less) throw error(needs_one_device("a merge with a comparator", parts));
    if (ctx.ranks()) throw error(needs_one_device("a merge over MPI ranks", parts));
    // What each part has pending runs first (it may write the inputs), as on one device.
    for (const context_ptr& part : ctx.parts()) {
        std::lock_guard<std::recursive_mutex> guard(part->mutex());
        run_pending(*part);
    }
    const std::vector<part_range> a_ranges = ctx.split(m.a_length), b_ranges = ctx.split(m.b_length);
    const std::vector<part_range> out_ranges = ctx.split(m.a_length + m.b_length);
    const parted_run a{m.a, &a_ranges, 0, m.a_length}, b{m.b, &b_ranges, 0, m.b_length};
    merge_runs_into_parts(ctx, call, a, b, m.outputs, m.values, out_ranges, 0, parts);
}

} // namespace loom::detail
