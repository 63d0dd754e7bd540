// Positions as element index arithmetic; see lower_positions.hpp.
#include "ir/lower_positions.hpp"

#include "loom/error.hpp"

namespace loom::ir {
namespace {

// The axis a position names (0, 1 or 2), or 3 for any other node.
unsigned position_axis(const node& n) {
    if (n.op != opcode::index) return 3;
    switch (index_value(n.slot)) {
    case index_value::row: return 0;
    case index_value::column: return 1;
    case index_value::axis2: return 2;
    default: return 3;
    }
}

} // namespace

bool uses_positions(const std::vector<node>& nodes, unsigned from_axis) {
    for (const node& n : nodes) {
        const unsigned a = position_axis(n);
        if (a < 3 && a >= from_axis) return true;
    }
    return false;
}

bool lower_positions(detail::shape& s, unsigned rank) {
    if (!uses_positions(s.nodes)) return false;
    // One u64 slot per extent after the first, outermost first (a matrix: its columns).
    const std::uint32_t first_extent_slot = std::uint32_t(s.slots.size());
    for (unsigned d = 1; d < rank; ++d) {
        detail::slot_info extent{detail::slot_kind::scalar, dtype::u64};
        extent.neighbour_operand = true;
        s.slots.push_back(extent);
    }

    node_list body;
    auto add = [&](opcode op, std::uint32_t a = no_node, std::uint32_t b = no_node) {
        node n{op, dtype::u64};
        n.arg[0] = a;
        n.arg[1] = b;
        return body.add(n);
    };
    // The element's index divided by the extents from the innermost out: quotient[d] is the
    // element's index over axes 0..d; the position along axis d is quotient[d] less
    // quotient[d - 1] * extent[d] (axis 0: quotient[0] itself). Made on first use, each once,
    // so that a matrix statement with only a row divides once and nothing more.
    std::uint32_t quotient[3] = {no_node, no_node, no_node}, position[3] = {no_node, no_node, no_node};
    auto extent = [&](unsigned d) {
        node c{opcode::scalar, dtype::u64};
        c.slot = first_extent_slot + d - 1;
        return body.add(c);
    };
    auto quotient_of = [&](unsigned d) {
        for (unsigned k = rank; k-- > d;)
            if (quotient[k] == no_node) {
                if (k + 1 == rank) {
                    quotient[k] = add(opcode::index);
                } else {
                    const std::uint32_t e = extent(k + 1);
                    quotient[k] = add(opcode::div, quotient[k + 1], e);
                }
            }
        return quotient[d];
    };
    auto position_of = [&](unsigned d) {
        if (position[d] == no_node) {
            if (d == 0) {
                position[d] = quotient_of(0);
            } else {
                const std::uint32_t outer = quotient_of(d - 1), e = extent(d);
                position[d] = add(opcode::sub, quotient_of(d), add(opcode::mul, outer, e));
            }
        }
        return position[d];
    };
    std::vector<std::uint32_t> remap(s.nodes.size(), no_node);
    for (std::uint32_t j = 0; j < s.nodes.size(); ++j) {
        node n = s.nodes[j];
        if (const unsigned a = position_axis(n); a < 3) {
            remap[j] = position_of(a);
            continue;
        }
        for (std::uint32_t& a : n.arg)
            if (a != no_node) a = remap[a];
        remap[j] = body.add(n);
    }
    s.nodes = body.nodes();
    for (std::uint32_t* v : {&s.root, &s.store_index, &s.store_limit})
        if (*v != no_node) *v = remap[*v];
    for (std::uint32_t& r : s.more_roots) r = remap[r];
    return true;
}

unsigned lower_positions_for_axis(detail::shape& s, unsigned folded_axis) {
    bool loads = false; // element-index reads, which the middle axis's pass must move
    for (const node& n : s.nodes) {
        if (n.op == opcode::load_neighbour && folded_axis == 1)
            throw error("loom: a stencil read in a reduction along axis 1 of a 3-D expression; assign the "
                        "expression to a loom::array3 first, then reduce that");
        loads = loads || n.op == opcode::load || (n.op == opcode::index && index_value(n.slot) == index_value::element);
    }
    if (!uses_positions(s.nodes) && !(folded_axis == 1 && loads)) return 0;
    // The extent slots, u64, kept apart from equal scalars: d1 (axis 2), d2 (axis 0), d1 and d2
    // (axis 1).
    const std::uint32_t first_slot = std::uint32_t(s.slots.size());
    const unsigned extents = folded_axis == 1 ? 2 : 1;
    for (unsigned e = 0; e < extents; ++e) {
        detail::slot_info extent{detail::slot_kind::scalar, dtype::u64};
        extent.neighbour_operand = true;
        s.slots.push_back(extent);
    }

    node_list body;
    auto add = [&](opcode op, std::uint32_t a = no_node, std::uint32_t b = no_node) {
        node n{op, dtype::u64};
        n.arg[0] = a;
        n.arg[1] = b;
        return body.add(n);
    };
    auto counter = [&](index_value v) { // the pass's loop counter
        node n{opcode::index, dtype::u64};
        n.slot = std::uint32_t(v);
        return body.add(n);
    };
    auto extent = [&](unsigned e) { // e: 0 the first extent slot, 1 the second
        node n{opcode::scalar, dtype::u64};
        n.slot = first_slot + e;
        return body.add(n);
    };
    // The counter that holds two axes, split by an extent: the row (i * d1 + j) when axis 2 is
    // folded, the column (j * d2 + k) when axis 0 is, the column (i * d2 + k) when axis 1 is.
    // Its quotient and remainder, made on first use, once each.
    const index_value split = folded_axis == 2 ? index_value::row : index_value::column;
    const unsigned divisor = folded_axis == 1 ? 1 : 0; // the extent slot that splits it
    std::uint32_t quotient = no_node, remainder = no_node;
    auto quotient_of = [&] {
        if (quotient == no_node) {
            const std::uint32_t c = counter(split), e = extent(divisor);
            quotient = add(opcode::div, c, e);
        }
        return quotient;
    };
    auto remainder_of = [&] {
        if (remainder == no_node) {
            const std::uint32_t q = quotient_of(), c = counter(split), e = extent(divisor);
            remainder = add(opcode::sub, c, add(opcode::mul, q, e));
        }
        return remainder;
    };
    auto position_of = [&](unsigned a) {
        switch (folded_axis) {
        case 2: return a == 0 ? quotient_of() : a == 1 ? remainder_of() : counter(index_value::column);
        case 0: return a == 0 ? counter(index_value::row) : a == 1 ? quotient_of() : remainder_of();
        default: return a == 0 ? quotient_of() : a == 1 ? counter(index_value::row) : remainder_of();
        }
    };
    // Axis 1: the element of (i, j, k) is (i * d1 + j) * d2 + k, not the pass's own
    // row * cols + column, so element reads become reads at that index.
    std::uint32_t element = no_node;
    auto element_of = [&] {
        if (element == no_node) {
            const std::uint32_t i = position_of(0), j = position_of(1), k = position_of(2);
            const std::uint32_t d1 = extent(0), d2 = extent(1);
            element = add(opcode::add, add(opcode::mul, add(opcode::add, add(opcode::mul, i, d1), j), d2), k);
        }
        return element;
    };
    std::vector<std::uint32_t> remap(s.nodes.size(), no_node);
    for (std::uint32_t j = 0; j < s.nodes.size(); ++j) {
        node n = s.nodes[j];
        if (const unsigned a = position_axis(n); a < 3) {
            remap[j] = position_of(a);
            continue;
        }
        if (folded_axis == 1 && n.op == opcode::index && index_value(n.slot) == index_value::element) {
            remap[j] = element_of();
            continue;
        }
        for (std::uint32_t& a : n.arg)
            if (a != no_node) a = remap[a];
        if (folded_axis == 1 && n.op == opcode::load) {
            n.op = opcode::load_at; // an unchecked read: every index lies inside the array
            n.arg[0] = element_of();
            s.slots[n.slot].any_length = true;
        }
        remap[j] = body.add(n);
    }
    s.nodes = body.nodes();
    s.root = remap[s.root];
    for (std::uint32_t& r : s.more_roots) r = remap[r];
    return extents;
}

} // namespace loom::ir
