// Queries on a kernel's IR; see kernel.hpp.
#include "ir/kernel.hpp"

namespace loom::ir {

namespace {

// The parameters holding operand `extent` of the kernel's neighbour reads that have one, and with
// `positions` the divisors of its row positions. The launch reads their values from its
// arguments, so a packed one (kernel_param::packed) leaves the kernel without a grid form.
std::vector<std::uint32_t> extent_params(const kernel& k, unsigned extent, bool positions) {
    std::vector<std::uint32_t> params;
    for (const node& n : k.body) {
        if (positions) {
            if (const std::uint32_t p = row_position_divisor(k, n); p != no_node) params.push_back(p);
        }
        if (n.op != opcode::load_neighbour || n.arg[extent] == no_node) continue;
        const node& e = k.body[n.arg[extent]];
        if (e.op != opcode::scalar || e.type != dtype::i64) return {};
        params.push_back(e.slot);
    }
    for (std::uint32_t p : params)
        if (k.params[p].packed) return {};
    return params;
}

} // namespace

std::uint32_t row_position_divisor(const kernel& k, const node& n) {
    if (n.op != opcode::div || n.type != dtype::u64) return no_node;
    const node &a = k.body[n.arg[0]], &b = k.body[n.arg[1]];
    const bool element = a.op == opcode::index && index_value(a.slot) == index_value::element;
    return element && b.op == opcode::scalar && b.type == dtype::u64 ? b.slot : no_node;
}

std::vector<std::uint32_t> grid_width_params(const kernel& k) { return extent_params(k, grid_width, true); }

std::vector<std::uint32_t> grid_height_params(const kernel& k) { return extent_params(k, grid_height, false); }

void append_store_nodes(const kernel& k, std::vector<std::uint32_t>& roots) {
    for (const kernel_store& st : k.stores)
        for (std::uint32_t n : {st.value, st.index, st.limit})
            if (n != no_node) roots.push_back(n);
}

bool packs_scalars(const kernel& k) {
    for (const kernel_param& p : k.params)
        if (p.packed) return true;
    return false;
}

} // namespace loom::ir
