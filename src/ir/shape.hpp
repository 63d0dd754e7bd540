// A statement's shape: the IR of one expression type, with its terminals as numbered
// slots. Shapes are built once per C++ expression type and never freed, so a pointer to
// one is a stable identity (and shape::id a small integer for plan-cache keys).
#pragma once

#include <cstdint>
#include <tuple>
#include <vector>

#include "ir/node.hpp"
#include "loom/detail/scalar_bits.hpp"

namespace loom::detail {

enum class slot_kind : std::uint8_t { vector, scalar };

struct slot_info {
    slot_kind kind;
    dtype type;
    bool neighbour = false; // a vector read at other indices than the element's own (a stencil)
    bool broadcast = false; // a device scalar: element 0 read by every element (also `neighbour`), any length
    // A scalar that is an offset, grid width or boundary value of a neighbour read. The flush
    // gives equal scalars one kernel parameter, but not these: a stencil's offsets may change
    // between runs, and that must not change the plan (see fusion::planned_statement), but for
    // whether an offset is zero (neighbour_offset).
    bool neighbour_operand = false;
    // A vector read at computed indices (a gather or a view, also `neighbour`): its length is
    // its own, not the statement's, and is checked where the indices are made.
    bool any_length = false;
    // An offset of a neighbour read (also a neighbour_operand). Whether it is zero is part of the
    // plan: a zero offset is compiled in, so the read's coordinate on that axis is the element's
    // own, with no parameter, clamp or border test (fusion::zero_offset).
    bool neighbour_offset = false;
    // A view's start or stride (also a neighbour_operand). Equal starts share a kernel parameter,
    // and equal strides do (never a start with a stride, nor either with another scalar), so two
    // reads through views of equal start and stride are one load, as the user's eight reads of
    // each phase in the DCT's row pass: whether starts (or strides) are equal is part of the plan.
    enum class view_part : std::uint8_t { none, start, stride };
    view_part view_index = view_part::none;
};

// Whether equal values of slot s share one kernel parameter (a value class, keyed by
// scalar_value): host scalars, and a view's starts among themselves and strides among
// themselves; no other neighbour operand.
inline bool shares_equal_values(const slot_info& s) {
    return !s.neighbour_operand || s.view_index != slot_info::view_part::none;
}
// What equal scalars agree on: type, view part and bits.
using scalar_value = std::tuple<dtype, slot_info::view_part, scalar_bits>;
constexpr std::uint32_t no_value_class = 0xFFFFFFFFu;
// The value class of slot s holding `bits`: its number in `seen`, which it joins at its first
// appearance; no_value_class where s takes none (shares_equal_values) or `seen` already holds 32
// values, which bounds the search on the dispatch path (the flush planner and the skeletons'
// inputs both number their scalars so).
inline std::uint32_t value_class(const slot_info& s, const scalar_bits& bits, std::vector<scalar_value>& seen) {
    if (!shares_equal_values(s)) return no_value_class;
    const scalar_value value{s.type, s.view_index, bits};
    for (std::size_t c = 0; c < seen.size(); ++c)
        if (seen[c] == value) return std::uint32_t(c);
    if (seen.size() == 32) return no_value_class;
    seen.push_back(value);
    return std::uint32_t(seen.size() - 1);
}

struct shape {
    std::uint32_t id = 0;
    std::vector<ir::node> nodes; // topological; loads/scalars name slots
    std::uint32_t root = ir::no_node;
    // An axis reduction of several values at once (loom::sum of a std::tuple along an axis):
    // the values after root's, in order. Empty for every other shape.
    std::vector<std::uint32_t> more_roots;
    bool has_target = false; // an assignment; the root is already converted to target_type
    dtype target_type = dtype::f32;
    std::vector<slot_info> slots;
    bool uses_f64 = false;
    // A store through a view or a scatter: the target is written at this node's index
    // (a u64) instead of the element's own, and slot target_slot is the target itself, read at
    // other indices (what it held elsewhere survives). ir::no_node for a whole-vector target.
    std::uint32_t store_index = ir::no_node;
    std::uint32_t store_limit = ir::no_node; // with store_index: a store at or past it is skipped
    std::uint32_t target_slot = ir::no_node; // with store_index
    // The same statement with its multiply-adds contracted (ir/contraction.hpp), for contexts
    // with fp_contract on; this shape itself when it has none. Set when registered.
    const shape* contracted = nullptr;
};

// Registers a shape built outside shape_builder (a rewrite of one, runtime/parts/partition.hpp)
// and its contracted form (see shape::contracted), which gets the next id; computes uses_f64.
// The shape lives for the whole program.
const shape* register_shape(shape s);

} // namespace loom::detail
