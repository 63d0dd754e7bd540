// Splitting vectors over devices, and statements over the parts; see partition.hpp.
#include "runtime/parts/partition.hpp"

#include <cmath>
#include <map>
#include <mutex>

#include "ir/op_table.hpp"
#include "loom/error.hpp"

namespace loom::detail {

std::vector<part_range> split(std::uint64_t length, const std::vector<double>& weights) {
    double total = 0;
    for (double w : weights) total += w;
    std::vector<part_range> parts(weights.size());
    double before = 0;
    std::uint64_t first = 0;
    for (std::size_t k = 0; k < weights.size(); ++k) {
        before += weights[k];
        const std::uint64_t end = k + 1 == weights.size()
                                      ? length
                                      : std::min(length, std::uint64_t(std::floor(double(length) * before / total)));
        parts[k] = {first, end > first ? end - first : 0};
        first = std::max(first, end);
    }
    return parts;
}

const char* partwise_refusal(const shape& s) {
    if (s.store_index != ir::no_node) return "a write through a view or a scatter on a context of several devices";
    for (const ir::node& n : s.nodes) {
        switch (n.op) {
        case opcode::load_neighbour:
            return "a stencil (a read at neighbouring elements) on a context of several devices";
        case opcode::load_at: return "a gather or a view on a context of several devices";
        case opcode::row_sum: return "a sparse matrix product on a context of several devices";
        default: break;
        }
    }
    return nullptr;
}

void rewritten_ends(const shape& s, const std::vector<std::uint32_t>& moved, shape& out) {
    const auto remap = [&](std::uint32_t j) { return j == ir::no_node ? j : moved[j]; };
    out.root = remap(s.root);
    for (std::uint32_t r : s.more_roots) out.more_roots.push_back(remap(r));
    out.has_target = s.has_target;
    out.target_type = s.target_type;
    out.uses_f64 = s.uses_f64;
    out.store_index = remap(s.store_index);
    out.store_limit = remap(s.store_limit);
    out.target_slot = s.target_slot;
}

namespace {

shape with_index_base(const shape& s) {
    shape out;
    out.slots = s.slots;
    const std::uint32_t base_slot = std::uint32_t(s.slots.size());
    out.slots.push_back({slot_kind::scalar, dtype::u64});
    std::vector<std::uint32_t> moved(s.nodes.size(), ir::no_node);
    std::uint32_t base = ir::no_node;
    for (std::size_t j = 0; j < s.nodes.size(); ++j) {
        ir::node n = s.nodes[j];
        for (std::uint32_t& a : n.arg)
            if (a != ir::no_node) a = moved[a];
        if (n.op == opcode::index && ir::index_value(n.slot) == ir::index_value::element) {
            if (base == ir::no_node) {
                ir::node first{opcode::scalar, dtype::u64};
                first.slot = base_slot;
                out.nodes.push_back(first);
                base = std::uint32_t(out.nodes.size() - 1);
            }
            out.nodes.push_back(n);
            ir::node sum{opcode::add, dtype::u64};
            sum.arg[0] = std::uint32_t(out.nodes.size() - 1);
            sum.arg[1] = base;
            out.nodes.push_back(sum);
        } else {
            out.nodes.push_back(n);
        }
        moved[j] = std::uint32_t(out.nodes.size() - 1);
    }
    rewritten_ends(s, moved, out);
    return out;
}

bool reads_index(const shape& s) {
    for (const ir::node& n : s.nodes)
        if (n.op == opcode::index && ir::index_value(n.slot) == ir::index_value::element) return true;
    return false;
}

} // namespace

const shape* counted_from_part(const shape* s) {
    if (!reads_index(*s)) return s;
    return derived_shape(s, [&] { return register_shape(with_index_base(*s)); });
}

} // namespace loom::detail
