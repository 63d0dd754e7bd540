// Input bodies for the multi-pass skeletons; see skeleton_kernel.hpp.
#include "skeleton/skeleton_kernel.hpp"

#include "loom/error.hpp"
#include "loom/reduce.hpp"

namespace loom::skeleton {

std::uint32_t scalar_value_class(const detail::slot_info& slot, detail::scalar_bits bits,
                                 std::vector<detail::scalar_value>& seen) {
    const std::uint32_t c = detail::value_class(slot, bits, seen);
    return c == detail::no_value_class ? no_class : scalar_class_base + c;
}

input_kernel build_input(const detail::shape& s, const std::vector<std::uint32_t>& slot_class, dtype value_type) {
    return build_input(s, slot_class, std::vector<dtype>{value_type});
}

input_kernel build_input(const detail::shape& s, const std::vector<std::uint32_t>& slot_class,
                         const std::vector<dtype>& value_types) {
    if (value_types.size() != 1 + s.more_roots.size())
        throw error("loom: internal error: a reduction's input has another number of values than its operations");
    input_kernel in;
    ir::node_list body;
    std::vector<std::uint32_t> param_of_class, param_of_value;
    std::vector<std::uint32_t> remap(s.nodes.size(), ir::no_node);
    for (std::uint32_t i = 0; i < s.nodes.size(); ++i) {
        ir::node n = s.nodes[i];
        for (std::uint32_t& a : n.arg)
            if (a != ir::no_node) a = remap[a];
        if (n.op == opcode::load || n.op == opcode::load_neighbour || n.op == opcode::load_first ||
            n.op == opcode::load_at) {
            // stencil reads, reads at computed indices and device scalars are fused like any load
            const std::uint32_t cls = slot_class[n.slot];
            if (cls >= param_of_class.size()) param_of_class.resize(cls + 1, ir::no_node);
            if (param_of_class[cls] == ir::no_node) {
                param_of_class[cls] = std::uint32_t(in.kernel.params.size());
                in.kernel.params.push_back({ir::param_kind::buffer, n.type, false});
                in.param_slot.push_back(n.slot);
            }
            n.slot = param_of_class[cls];
        } else if (n.op == opcode::scalar) {
            // Callers that build a body from its shape alone (the source tests) give no class
            // for scalar slots past the last vector's.
            const std::uint32_t cls = n.slot < slot_class.size() ? slot_class[n.slot] : no_class;
            std::uint32_t* shared = nullptr; // the parameter of the slot's value class
            if (cls != no_class) {
                const std::uint32_t c = cls - scalar_class_base;
                if (c >= param_of_value.size()) param_of_value.resize(c + 1, ir::no_node);
                shared = &param_of_value[c];
            }
            if (!shared || *shared == ir::no_node) {
                const std::uint32_t param = std::uint32_t(in.kernel.params.size());
                in.kernel.params.push_back({ir::param_kind::scalar, n.type, false});
                in.param_slot.push_back(n.slot);
                if (shared) *shared = param;
                n.slot = param;
            } else {
                n.slot = *shared;
            }
        }
        remap[i] = body.add(n);
    }
    // Each value converted to its operation's type.
    auto value = [&](std::uint32_t node, dtype type) {
        std::uint32_t v = remap[node];
        if (body[v].type != type) {
            ir::node cast{opcode::cast, type};
            cast.arg[0] = v;
            v = body.add(cast);
        }
        return v;
    };
    in.root = value(s.root, value_types[0]);
    for (std::size_t k = 0; k < s.more_roots.size(); ++k)
        in.more_roots.push_back(value(s.more_roots[k], value_types[k + 1]));
    in.kernel.body = body.nodes();
    return in;
}

combine_op combine_of(const detail::skeleton_operation& s) {
    combine_op op;
    op.shape = s.op->body;
    op.role = s.op->role;
    op.type = s.type;
    op.captures = capture_types(op);
    return op;
}

input_kernel partials_input(const std::vector<dtype>& buffers) {
    input_kernel in;
    for (std::uint32_t p = 0; p < buffers.size(); ++p) {
        in.kernel.params.push_back({ir::param_kind::buffer, buffers[p], false});
        ir::node load{opcode::load, buffers[p]};
        load.slot = p;
        in.kernel.body.push_back(load);
        in.param_slot.push_back(p);
    }
    in.root = 0;
    return in;
}

} // namespace loom::skeleton
