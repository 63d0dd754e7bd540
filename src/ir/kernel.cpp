// Queries on a kernel's IR; see kernel.hpp.
#include "ir/kernel.hpp"

namespace loom::ir {

namespace {

// The parameters holding operand `extent` of the kernel's neighbour reads that have one.
std::vector<std::uint32_t> extent_params(const kernel& k, unsigned extent) {
    std::vector<std::uint32_t> params;
    for (const node& n : k.body) {
        if (n.op != opcode::load_neighbour || n.arg[extent] == no_node) continue;
        const node& e = k.body[n.arg[extent]];
        if (e.op != opcode::scalar || e.type != dtype::i64) return {};
        params.push_back(e.slot);
    }
    return params;
}

} // namespace

std::vector<std::uint32_t> grid_width_params(const kernel& k) { return extent_params(k, grid_width); }

std::vector<std::uint32_t> grid_height_params(const kernel& k) { return extent_params(k, grid_height); }

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
