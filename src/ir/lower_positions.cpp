// Positions as element index arithmetic; see lower_positions.hpp.
#include "ir/lower_positions.hpp"

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

bool lower_positions_for_axis(detail::shape& s, unsigned folded_axis) {
    if (!uses_positions(s.nodes)) return false;
    const std::uint32_t extent_slot = std::uint32_t(s.slots.size());
    detail::slot_info extent{detail::slot_kind::scalar, dtype::u64};
    extent.neighbour_operand = true;
    s.slots.push_back(extent);

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
    // The counter that holds two axes (the row when axis 2 is folded, the column when axis 0
    // is), split by the extent: its quotient and remainder. Made on first use, once each.
    std::uint32_t quotient = no_node, remainder = no_node;
    const index_value split = folded_axis == 2 ? index_value::row : index_value::column;
    auto quotient_of = [&] {
        if (quotient == no_node) {
            const std::uint32_t c = counter(split);
            node e{opcode::scalar, dtype::u64};
            e.slot = extent_slot;
            quotient = add(opcode::div, c, body.add(e));
        }
        return quotient;
    };
    auto remainder_of = [&] {
        if (remainder == no_node) {
            const std::uint32_t q = quotient_of(), c = counter(split);
            node e{opcode::scalar, dtype::u64};
            e.slot = extent_slot;
            remainder = add(opcode::sub, c, add(opcode::mul, q, body.add(e)));
        }
        return remainder;
    };
    auto position_of = [&](unsigned a) {
        if (folded_axis == 2) // rows: (i, j) as i * d1 + j; columns: k
            return a == 0 ? quotient_of() : a == 1 ? remainder_of() : counter(index_value::column);
        return a == 0 ? counter(index_value::row) : a == 1 ? quotient_of() : remainder_of(); // columns: j * d2 + k
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
    s.root = remap[s.root];
    for (std::uint32_t& r : s.more_roots) r = remap[r];
    return true;
}

} // namespace loom::ir
