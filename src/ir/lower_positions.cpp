// Positions as element index arithmetic; see lower_positions.hpp.
#include "ir/lower_positions.hpp"

namespace loom::ir {
namespace {

bool is_position(const node& n) {
    return n.op == opcode::index &&
           (index_value(n.slot) == index_value::row || index_value(n.slot) == index_value::column);
}

} // namespace

bool uses_positions(const std::vector<node>& nodes) {
    for (const node& n : nodes)
        if (is_position(n)) return true;
    return false;
}

bool lower_positions(detail::shape& s) {
    if (!uses_positions(s.nodes)) return false;
    const std::uint32_t columns_slot = std::uint32_t(s.slots.size());
    detail::slot_info columns{detail::slot_kind::scalar, dtype::u64};
    columns.neighbour_operand = true;
    s.slots.push_back(columns);

    node_list body;
    auto add = [&](opcode op, std::uint32_t a = no_node, std::uint32_t b = no_node) {
        node n{op, dtype::u64};
        n.arg[0] = a;
        n.arg[1] = b;
        return body.add(n);
    };
    // Made on first use, each once, so that a statement with only a row divides and nothing more.
    std::uint32_t cols = no_node, row = no_node, column = no_node;
    auto row_node = [&] {
        if (row != no_node) return row;
        node c{opcode::scalar, dtype::u64};
        c.slot = columns_slot;
        cols = body.add(c);
        row = add(opcode::div, add(opcode::index), cols);
        return row;
    };
    std::vector<std::uint32_t> remap(s.nodes.size(), no_node);
    for (std::uint32_t j = 0; j < s.nodes.size(); ++j) {
        node n = s.nodes[j];
        if (is_position(n)) {
            if (index_value(n.slot) == index_value::row) {
                remap[j] = row_node();
            } else {
                if (column == no_node) {
                    const std::uint32_t r = row_node();
                    column = add(opcode::sub, add(opcode::index), add(opcode::mul, r, cols));
                }
                remap[j] = column;
            }
            continue;
        }
        for (std::uint32_t& a : n.arg)
            if (a != no_node) a = remap[a];
        remap[j] = body.add(n);
    }
    s.nodes = body.nodes();
    for (std::uint32_t* v : {&s.root, &s.store_index, &s.store_limit})
        if (*v != no_node) *v = remap[*v];
    return true;
}

} // namespace loom::ir
