// The contraction rewrite; see contraction.hpp.
#include "ir/contraction.hpp"

#include "ir/promotion.hpp"

namespace loom::ir {
namespace {

bool is_product(const node& n, dtype t) { return n.op == opcode::mul && n.type == t; }

} // namespace

bool contract(detail::shape& s) {
    const std::vector<node>& in = s.nodes;
    node_list out;
    std::vector<std::uint32_t> remap(in.size(), no_node);
    bool changed = false;
    for (std::uint32_t i = 0; i < in.size(); ++i) {
        node n = in[i];
        for (std::uint32_t& a : n.arg)
            if (a != no_node) a = remap[a];
        // The product must be this statement's own node of the sum's type: a product read
        // back from a vector is a load, and one behind a conversion was rounded to another
        // type first, so neither may lose its rounding.
        const bool sum = (n.op == opcode::add || n.op == opcode::sub) && is_float(n.type);
        if (sum) {
            const std::uint32_t left = in[i].arg[0], right = in[i].arg[1];
            if (is_product(in[left], n.type)) { // a * b + c, a * b - c
                std::uint32_t c = n.arg[1];
                if (n.op == opcode::sub) c = out.add({opcode::negate, n.type, 0, {c, no_node, no_node, no_node}});
                n = {opcode::fma, n.type, 0, {remap[in[left].arg[0]], remap[in[left].arg[1]], c, no_node}};
                changed = true;
            } else if (is_product(in[right], n.type)) { // c + a * b, c - a * b
                std::uint32_t a = remap[in[right].arg[0]];
                if (n.op == opcode::sub) a = out.add({opcode::negate, n.type, 0, {a, no_node, no_node, no_node}});
                n = {opcode::fma, n.type, 0, {a, remap[in[right].arg[1]], n.arg[0], no_node}};
                changed = true;
            }
        }
        remap[i] = out.add(n);
    }
    if (!changed) return false;
    s.nodes = out.nodes();
    s.root = remap[s.root];
    for (std::uint32_t& r : s.more_roots) r = remap[r];
    if (s.store_index != no_node) s.store_index = remap[s.store_index];
    if (s.store_limit != no_node) s.store_limit = remap[s.store_limit];
    return true;
}

} // namespace loom::ir
