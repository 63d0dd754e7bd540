// Kernel construction for one fusion group; see build_kernel.hpp.
#include "fusion/build_kernel.hpp"

#include <algorithm>

namespace loom::fusion {

kernel_group build_kernel(const plan_request& request, const group_bounds& bounds, const std::vector<bool>& keep) {
    kernel_group g;
    g.first = bounds.first;
    g.last = bounds.last;
    g.reason = bounds.reason;
    g.reason_buffer = bounds.reason_buffer;
    g.reason_statement = bounds.reason_statement;

    const std::size_t classes = request.buffer_types.size();
    std::vector<std::uint32_t> value_of(classes, ir::no_node); // register holding the class's current value
    std::vector<std::uint32_t> param_of(classes, ir::no_node);
    std::vector<bool> loaded(classes, false);
    ir::node_list body;

    auto buffer_param = [&](std::uint32_t cls) {
        if (param_of[cls] == ir::no_node) {
            param_of[cls] = std::uint32_t(g.kernel.params.size());
            g.kernel.params.push_back({ir::param_kind::buffer, request.buffer_types[cls], false});
            g.args.push_back({ir::param_kind::buffer, cls, 0, 0});
        }
        return param_of[cls];
    };

    std::vector<std::uint32_t> param_of_scalar; // scalar value class -> parameter
    std::vector<std::uint32_t> remap;           // shape node -> body node, per statement
    for (std::uint32_t s = bounds.first; s <= bounds.last; ++s) {
        const planned_statement& st = request.statements[s];
        const detail::shape& sh = *st.shape;
        remap.assign(sh.nodes.size(), ir::no_node);
        ir::statement_note note{s, st.shape, st.target, st.slot_buffer};
        for (std::uint32_t i = 0; i < sh.nodes.size(); ++i) {
            ir::node n = sh.nodes[i];
            if (n.op == opcode::load) {
                const std::uint32_t cls = st.slot_buffer[n.slot];
                if (value_of[cls] != ir::no_node) { // written earlier in this group: forward the register
                    remap[i] = value_of[cls];
                    continue;
                }
                // A read before any write in the group sees the value the group started
                // with; equal loads hash-cons to one node, so each buffer is loaded once.
                n.slot = buffer_param(cls);
                loaded[cls] = true;
                remap[i] = body.add(n);
                continue;
            }
            if (n.op == opcode::load_neighbour || n.op == opcode::load_first || n.op == opcode::load_at) {
                // Grouping guarantees nothing in this group writes the buffer: read memory.
                const std::uint32_t cls = st.slot_buffer[n.slot];
                n.slot = buffer_param(cls);
                loaded[cls] = true;
                for (std::uint32_t& a : n.arg)
                    if (a != ir::no_node) a = remap[a];
                remap[i] = body.add(n);
                continue;
            }
            if (n.op == opcode::scalar) {
                const std::uint32_t cls = st.slot_scalar.empty() ? no_buffer : st.slot_scalar[n.slot];
                if (cls == zero_offset) { // compiled in: the read's lowering drops what it would add
                    ir::node zero{opcode::index, dtype::i64};
                    zero.slot = std::uint32_t(ir::index_value::zero);
                    note.slots[n.slot] = ir::literal_zero;
                    remap[i] = body.add(zero);
                    continue;
                }
                if (cls != no_buffer && cls >= param_of_scalar.size()) param_of_scalar.resize(cls + 1, no_buffer);
                std::uint32_t param = cls != no_buffer ? param_of_scalar[cls] : no_buffer;
                if (param == no_buffer) {
                    param = std::uint32_t(g.kernel.params.size());
                    g.kernel.params.push_back({ir::param_kind::scalar, n.type, false});
                    g.args.push_back({ir::param_kind::scalar, no_buffer, s, n.slot});
                    if (cls != no_buffer) param_of_scalar[cls] = param;
                }
                note.slots[n.slot] = param;
                n.slot = param;
                remap[i] = body.add(n);
                continue;
            }
            for (std::uint32_t& a : n.arg)
                if (a != ir::no_node) a = remap[a];
            remap[i] = body.add(n);
        }
        g.kernel.statements.push_back(std::move(note));
        g.last_value = remap[sh.root];
        if (sh.store_index != ir::no_node) {
            // Stored now, at its index; grouping ends the kernel after it (but for more view
            // writes of the target at disjoint spans), so nothing later in the group reads the
            // target in a register.
            const std::uint32_t p = buffer_param(st.target);
            g.kernel.params[p].written = true;
            g.kernel.stores.push_back({p, remap[sh.root], remap[sh.store_index],
                                       sh.store_limit == ir::no_node ? ir::no_node : remap[sh.store_limit]});
            if (std::find(g.stored.begin(), g.stored.end(), st.target) == g.stored.end())
                g.stored.push_back(st.target); // disjoint view writes of one vector: one store listed
            continue;
        }
        value_of[st.target] = remap[sh.root];
    }

    for (std::uint32_t cls = 0; cls < classes; ++cls) {
        if (loaded[cls]) g.loaded.push_back(cls);
        if (value_of[cls] == ir::no_node) continue;
        if (!keep[cls]) {
            g.elided.push_back(cls);
            continue;
        }
        const std::uint32_t p = buffer_param(cls);
        g.kernel.params[p].written = true;
        g.kernel.stores.push_back({p, value_of[cls]});
        g.stored.push_back(cls);
    }
    g.kernel.body = body.nodes();
    if (std::any_of(request.buffer_names.begin(), request.buffer_names.end(),
                    [](const std::string& name) { return !name.empty(); }))
        g.kernel.buffer_names = request.buffer_names;
    return g;
}

} // namespace loom::fusion
