// Groups consecutive statements of equal length, closing a group when fusion is off, a
// per-kernel limit would be passed, or a stencil read would race with a write: all
// work-items of a kernel run at once, so a kernel may neither read at another index a
// vector it writes, nor write a vector it reads at other indices. Limits are counted
// conservatively (every slot as its own parameter, every shape node as a kernel node),
// so a group never overflows.
#include "fusion/grouping.hpp"

#include <algorithm>

namespace loom::fusion {
namespace {

// Per buffer class, within the current group: the statement that last wrote it, and
// the statement that last read it at other indices (no_buffer when none).
struct group_access {
    std::vector<std::uint32_t> writer, neighbour_reader;
    void reset() {
        std::fill(writer.begin(), writer.end(), no_buffer);
        std::fill(neighbour_reader.begin(), neighbour_reader.end(), no_buffer);
    }
};

// Why statement s cannot join a group with these accesses, if it cannot.
boundary stencil_conflict(const planned_statement& st, const group_access& acc, std::uint32_t& buffer,
                          std::uint32_t& statement) {
    const auto& slots = st.shape->slots;
    for (std::size_t k = 0; k < slots.size(); ++k) {
        const std::uint32_t cls = st.slot_buffer[k];
        if (slots[k].neighbour && acc.writer[cls] != no_buffer) {
            buffer = cls;
            statement = acc.writer[cls];
            return boundary::neighbour_read;
        }
    }
    if (acc.neighbour_reader[st.target] != no_buffer) {
        buffer = st.target;
        statement = acc.neighbour_reader[st.target];
        return boundary::neighbour_write;
    }
    return boundary::end_of_flush;
}

void record_access(const planned_statement& st, std::uint32_t s, group_access& acc) {
    const auto& slots = st.shape->slots;
    for (std::size_t k = 0; k < slots.size(); ++k)
        if (slots[k].neighbour) acc.neighbour_reader[st.slot_buffer[k]] = s;
    acc.writer[st.target] = s;
}

} // namespace

std::vector<group_bounds> group_statements(const plan_request& request) {
    std::vector<group_bounds> groups;
    const auto& st = request.statements;
    const plan_limits& lim = request.limits;
    group_access acc;
    acc.writer.assign(request.buffer_types.size(), no_buffer);
    acc.neighbour_reader.assign(request.buffer_types.size(), no_buffer);
    std::uint32_t first = 0, params = 0, nodes = 0;
    for (std::uint32_t s = 0; s < st.size(); ++s) {
        const std::uint32_t s_params = std::uint32_t(st[s].shape->slots.size()) + 1;
        const std::uint32_t s_nodes = std::uint32_t(st[s].shape->nodes.size());
        if (s > first) {
            std::uint32_t buffer = no_buffer, statement = 0;
            boundary reason = boundary::end_of_flush;
            if (!request.fuse) reason = boundary::fusion_off;
            else if (st[s].length_class != st[first].length_class) reason = boundary::length_change;
            else if (params + s_params > lim.max_parameters) reason = boundary::parameter_limit;
            else if (nodes + s_nodes > lim.max_nodes) reason = boundary::node_limit;
            else if (s - first >= lim.max_statements) reason = boundary::statement_limit;
            else reason = stencil_conflict(st[s], acc, buffer, statement);
            if (reason != boundary::end_of_flush) {
                groups.push_back({first, s - 1, reason, buffer, statement});
                first = s;
                params = nodes = 0;
                acc.reset();
            }
        }
        params += s_params;
        nodes += s_nodes;
        record_access(st[s], s, acc);
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
    case boundary::neighbour_read: return "neighbour_read";
    case boundary::neighbour_write: return "neighbour_write";
    }
    return "?";
}

} // namespace loom::fusion
