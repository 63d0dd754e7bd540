// How a context over several devices splits its vectors (docs/multi-device.md): every vector
// of n elements is cut into one contiguous part per device, by the same rule, so that element i
// of every vector of one length lives on the same device and an element-wise statement runs on
// each part alone.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

#include "ir/shape.hpp"

namespace loom::detail {

struct part_range {
    std::uint64_t first = 0;
    std::uint64_t count = 0;
};

// `length` elements cut in proportion to `weights` (positive), in order: part k starts where
// part k - 1 ends, the last ends at `length`. Each boundary is the weights' share of `length`
// rounded down, so equal weights give parts that differ by at most one element, and a part may
// be empty when `length` is smaller than the number of parts.
std::vector<part_range> split(std::uint64_t length, const std::vector<double>& weights);

// Why the statement or input `s` cannot run part by part, or nullptr when it can: each part's
// elements are computed from the same elements of its operands, so a read at other indices (a
// stencil, a gather, a view, a sparse product) or a store at other indices (a view or scatter
// target) needs the other parts' data, which this version does not bring (docs/multi-device.md).
// A loom::scalar's read is not one: every part holds the scalar (buffer::replicated).
const char* partwise_refusal(const shape& s);

// A shape rewritten node by node from `s` (`moved[j]`: where s's node j went): its roots, target
// and store fields from s's, renumbered.
void rewritten_ends(const shape& s, const std::vector<std::uint32_t>& moved, shape& out);

// The shape `make()` returns (registered), made once per `key` at each call site (each site's
// lambda keys a table of its own) and kept for the process, as every registered shape is:
// contexts may record at exit. `make` may not derive a shape at its own call site.
template <class Key, class Make> const shape* derived_shape(const Key& key, Make make) {
    static std::mutex& lock = *new std::mutex; // never destroyed, as the shapes are not
    static auto& made = *new std::map<Key, const shape*>;
    std::lock_guard<std::mutex> guard(lock);
    const shape*& s = made[key];
    if (!s) s = make();
    return s;
}

// The shape `s` run on a part: its element index counted from the part's first element, as on one
// device. Each `index` node becomes `index + first`, `first` a u64 scalar slot added after the
// shape's own (bind it last). `s` itself when it reads no index. Made once per shape.
const shape* counted_from_part(const shape* s);

} // namespace loom::detail
