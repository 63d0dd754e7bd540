// Queries on a kernel's IR; see kernel.hpp.
#include "ir/kernel.hpp"

namespace loom::ir {

std::vector<std::uint32_t> grid_width_params(const kernel& k) {
    std::vector<std::uint32_t> params;
    for (const node& n : k.body) {
        if (n.op != opcode::load_neighbour || n.arg[grid_width] == no_node) continue;
        const node& width = k.body[n.arg[grid_width]];
        if (width.op != opcode::scalar || width.type != dtype::i64) return {};
        params.push_back(width.slot);
    }
    return params;
}

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
