// Row positions from the launch; see rows_from_launch.hpp.
#include "codegen/rows_from_launch.hpp"

#include <algorithm>

namespace loom::codegen {
namespace {

bool is_element(const ir::node& n) {
    return n.op == opcode::index && ir::index_value(n.slot) == ir::index_value::element;
}

} // namespace

ir::kernel rows_from_launch(const ir::kernel& k) {
    if (k.grid_width_param == ir::no_node) return k;
    // Every one of these parameters holds the launch's row width when the grid form runs.
    const std::vector<std::uint32_t> widths = ir::grid_width_params(k);
    auto is_width = [&](const ir::node& n) {
        return n.op == opcode::scalar && std::find(widths.begin(), widths.end(), n.slot) != widths.end();
    };
    ir::kernel out = k;
    ir::node_list body;
    auto launch = [&](ir::index_value v) { // the launch's coordinate v, as the u64 a position is
        ir::node at{opcode::index, dtype::i64};
        at.slot = std::uint32_t(v);
        ir::node cast{opcode::cast, dtype::u64};
        cast.arg[0] = body.add(at);
        return body.add(cast);
    };
    std::uint32_t row = ir::no_node; // made at the first row position
    std::vector<std::uint32_t> remap(k.body.size(), ir::no_node);
    for (std::uint32_t j = 0; j < k.body.size(); ++j) {
        ir::node n = k.body[j];
        if (ir::row_position_divisor(k, n) != ir::no_node) {
            if (row == ir::no_node) row = launch(ir::index_value::grid_row);
            remap[j] = row;
            continue;
        }
        for (std::uint32_t& a : n.arg)
            if (a != ir::no_node) a = remap[a];
        if (n.op == opcode::sub && n.type == dtype::u64 && is_element(body[n.arg[0]])) {
            // element - row * width: the column
            const ir::node& product = body[n.arg[1]];
            if (row != ir::no_node && product.op == opcode::mul &&
                ((product.arg[0] == row && is_width(body[product.arg[1]])) ||
                 (product.arg[1] == row && is_width(body[product.arg[0]])))) {
                remap[j] = launch(ir::index_value::grid_column);
                continue;
            }
        }
        remap[j] = body.add(n);
    }
    out.body = body.nodes();
    for (ir::kernel_store& st : out.stores)
        for (std::uint32_t* v : {&st.value, &st.index, &st.limit})
            if (*v != ir::no_node) *v = remap[*v];
    return out;
}

} // namespace loom::codegen
