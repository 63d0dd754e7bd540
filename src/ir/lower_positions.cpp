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

// What both lowerings share: u64 extent slots appended to the shape (kept apart from equal
// scalars, so that new extents never change a plan), a new body of hash-consed u64 nodes, and
// the walk that rebuilds the shape with each position replaced.
class position_rewrite {
public:
    position_rewrite(detail::shape& s, unsigned extents) : s_(s), first_extent_(std::uint32_t(s.slots.size())) {
        for (unsigned e = 0; e < extents; ++e) {
            detail::slot_info extent{detail::slot_kind::scalar, dtype::u64};
            extent.neighbour_operand = true;
            s.slots.push_back(extent);
        }
    }

    std::uint32_t add(opcode op, std::uint32_t a = no_node, std::uint32_t b = no_node) {
        node n{op, dtype::u64};
        n.arg[0] = a;
        n.arg[1] = b;
        return body_.add(n);
    }
    std::uint32_t index(index_value v) {
        node n{opcode::index, dtype::u64};
        n.slot = std::uint32_t(v);
        return body_.add(n);
    }
    std::uint32_t extent(unsigned e) { // the e-th appended slot
        node n{opcode::scalar, dtype::u64};
        n.slot = first_extent_ + e;
        return body_.add(n);
    }

    // Rebuilds the shape: a position along axis a becomes position_of(a); any other node, its
    // operands remapped, is passed to other(n), which may change it in place or return the node
    // that replaces it (no_node: keep n).
    template <class Position, class Other> void finish(Position position_of, Other other) {
        std::vector<std::uint32_t> remap(s_.nodes.size(), no_node);
        for (std::uint32_t j = 0; j < s_.nodes.size(); ++j) {
            node n = s_.nodes[j];
            if (const unsigned a = position_axis(n); a < 3) {
                remap[j] = position_of(a);
                continue;
            }
            for (std::uint32_t& a : n.arg)
                if (a != no_node) a = remap[a];
            const std::uint32_t replaced = other(n);
            remap[j] = replaced != no_node ? replaced : body_.add(n);
        }
        s_.nodes = body_.nodes();
        for (std::uint32_t* v : {&s_.root, &s_.store_index, &s_.store_limit})
            if (*v != no_node) *v = remap[*v];
        for (std::uint32_t& r : s_.more_roots) r = remap[r];
    }

private:
    detail::shape& s_;
    std::uint32_t first_extent_;
    node_list body_;
};

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
    // One extent slot per axis after the first, outermost first (a matrix: its columns).
    position_rewrite r(s, rank - 1);
    // The element's index divided by the extents from the innermost out: quotient[d] is the
    // element's index over axes 0..d; the position along axis d is quotient[d] less
    // quotient[d - 1] * extent[d] (axis 0: quotient[0] itself). Made on first use, each once,
    // so that a matrix statement with only a row divides once and nothing more.
    std::uint32_t quotient[3] = {no_node, no_node, no_node}, position[3] = {no_node, no_node, no_node};
    auto quotient_of = [&](unsigned d) {
        for (unsigned k = rank; k-- > d;)
            if (quotient[k] == no_node) {
                if (k + 1 == rank) {
                    quotient[k] = r.add(opcode::index);
                } else {
                    const std::uint32_t e = r.extent(k);
                    quotient[k] = r.add(opcode::div, quotient[k + 1], e);
                }
            }
        return quotient[d];
    };
    auto position_of = [&](unsigned d) {
        if (position[d] == no_node) {
            if (d == 0) {
                position[d] = quotient_of(0);
            } else {
                const std::uint32_t outer = quotient_of(d - 1), e = r.extent(d - 1);
                position[d] = r.add(opcode::sub, quotient_of(d), r.add(opcode::mul, outer, e));
            }
        }
        return position[d];
    };
    r.finish(position_of, [](node&) { return no_node; });
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
    // The extent slots: d1 (axis 2), d2 (axis 0), d1 and d2 (axis 1).
    const unsigned extents = folded_axis == 1 ? 2 : 1;
    position_rewrite r(s, extents);
    // The counter that holds two axes, split by an extent: the row (i * d1 + j) when axis 2 is
    // folded, the column (j * d2 + k) when axis 0 is, the column (i * d2 + k) when axis 1 is.
    // Its quotient and remainder, made on first use, once each.
    const index_value split = folded_axis == 2 ? index_value::row : index_value::column;
    const unsigned divisor = folded_axis == 1 ? 1 : 0; // the extent slot that splits it
    std::uint32_t quotient = no_node, remainder = no_node;
    auto quotient_of = [&] {
        if (quotient == no_node) {
            const std::uint32_t c = r.index(split), e = r.extent(divisor);
            quotient = r.add(opcode::div, c, e);
        }
        return quotient;
    };
    auto remainder_of = [&] {
        if (remainder == no_node) {
            const std::uint32_t q = quotient_of(), c = r.index(split), e = r.extent(divisor);
            remainder = r.add(opcode::sub, c, r.add(opcode::mul, q, e));
        }
        return remainder;
    };
    auto position_of = [&](unsigned a) {
        switch (folded_axis) {
        case 2: return a == 0 ? quotient_of() : a == 1 ? remainder_of() : r.index(index_value::column);
        case 0: return a == 0 ? r.index(index_value::row) : a == 1 ? quotient_of() : remainder_of();
        default: return a == 0 ? quotient_of() : a == 1 ? r.index(index_value::row) : remainder_of();
        }
    };
    // Axis 1: the element of (i, j, k) is (i * d1 + j) * d2 + k, not the pass's own
    // row * cols + column, so element reads become reads at that index.
    std::uint32_t element = no_node;
    auto element_of = [&] {
        if (element == no_node) {
            const std::uint32_t i = position_of(0), j = position_of(1), k = position_of(2);
            const std::uint32_t d1 = r.extent(0), d2 = r.extent(1);
            element = r.add(opcode::add, r.add(opcode::mul, r.add(opcode::add, r.add(opcode::mul, i, d1), j), d2), k);
        }
        return element;
    };
    r.finish(position_of, [&](node& n) -> std::uint32_t {
        if (folded_axis != 1) return no_node;
        if (n.op == opcode::index && index_value(n.slot) == index_value::element) return element_of();
        if (n.op == opcode::load) {
            n.op = opcode::load_at; // an unchecked read: every index lies inside the array
            n.arg[0] = element_of();
            s.slots[n.slot].any_length = true;
        }
        return no_node;
    });
    return extents;
}

} // namespace loom::ir
