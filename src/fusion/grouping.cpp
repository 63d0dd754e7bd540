// Groups consecutive statements of equal length, closing a group when fusion is off or
// a per-kernel limit would be passed. Limits are counted conservatively (every slot as
// its own parameter, every shape node as a kernel node), so a group never overflows.
#include "fusion/grouping.hpp"

namespace loom::fusion {

std::vector<group_bounds> group_statements(const plan_request& request) {
    std::vector<group_bounds> groups;
    const auto& st = request.statements;
    const plan_limits& lim = request.limits;
    std::uint32_t first = 0, params = 0, nodes = 0;
    for (std::uint32_t s = 0; s < st.size(); ++s) {
        const std::uint32_t s_params = std::uint32_t(st[s].shape->slots.size()) + 1;
        const std::uint32_t s_nodes = std::uint32_t(st[s].shape->nodes.size());
        if (s > first) {
            boundary reason = boundary::end_of_flush;
            if (!request.fuse) reason = boundary::fusion_off;
            else if (st[s].length_class != st[first].length_class) reason = boundary::length_change;
            else if (params + s_params > lim.max_parameters) reason = boundary::parameter_limit;
            else if (nodes + s_nodes > lim.max_nodes) reason = boundary::node_limit;
            else if (s - first >= lim.max_statements) reason = boundary::statement_limit;
            if (reason != boundary::end_of_flush) {
                groups.push_back({first, s - 1, reason});
                first = s;
                params = nodes = 0;
            }
        }
        params += s_params;
        nodes += s_nodes;
    }
    if (!st.empty()) groups.push_back({first, std::uint32_t(st.size() - 1), boundary::end_of_flush});
    return groups;
}

const char* name_of(boundary b) {
    switch (b) {
    case boundary::end_of_flush: return "end_of_flush";
    case boundary::fusion_off: return "fusion_off";
    case boundary::length_change: return "length_change";
    case boundary::parameter_limit: return "parameter_limit";
    case boundary::node_limit: return "node_limit";
    case boundary::statement_limit: return "statement_limit";
    }
    return "?";
}

} // namespace loom::fusion
