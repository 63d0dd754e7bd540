// Groups consecutive statements of equal length, closing a group when fusion is off, a
// per-kernel limit would be passed, or a stencil read would race with a write: all
// work-items of a kernel run at once, so a kernel may neither read at another index a
// vector it writes, nor write a vector it reads at other indices (view writes of one vector
// at spans that share no element excepted: fusion/disjoint_writes.hpp). Limits are counted as
// the kernel builder makes parameters (one per buffer class, one per scalar value class,
// one per other scalar slot) and conservatively for nodes (every shape node as a kernel
// node), so a group never overflows.
#include "fusion/grouping.hpp"

#include <algorithm>

namespace loom::fusion {
namespace {

// How a group's statements have touched a buffer class: not at all, only by view writes at
// spans that share no element (planned_statement::disjoint_write), or otherwise.
enum class touch : std::uint8_t { none, disjoint_writes, other };

// Per buffer class, within the current group: the statement that last wrote it, and
// the statement that last read it at other indices (no_buffer when none).
struct group_access {
    // ... the statement that last read it at all, and the one that last wrote it through a view or scatter.
    std::vector<std::uint32_t> writer, neighbour_reader, reader, scatterer;
    std::vector<touch> touched; // ... and how the group has touched it
    bool any_scattered = false;
    void reset() {
        std::fill(writer.begin(), writer.end(), no_buffer);
        std::fill(neighbour_reader.begin(), neighbour_reader.end(), no_buffer);
        std::fill(reader.begin(), reader.end(), no_buffer);
        std::fill(touched.begin(), touched.end(), touch::none);
        if (any_scattered) std::fill(scatterer.begin(), scatterer.end(), no_buffer);
        any_scattered = false;
    }
};

// Whether st writes its target at a span sharing no element with the group's other writes of
// it, and the group has done nothing else with the target: then the conflicts below, which its
// own write and its target's slot would raise, do not apply to the target.
bool joins_disjoint_writes(const planned_statement& st, const group_access& acc) {
    return st.disjoint_write && acc.touched[st.target] == touch::disjoint_writes;
}

// Why statement s cannot join a group with these accesses, if it cannot.
boundary stencil_conflict(const planned_statement& st, const group_access& acc, std::uint32_t& buffer,
                          std::uint32_t& statement) {
    const auto& slots = st.shape->slots;
    // The target's class, which a disjoint write's checks skip (no_buffer: none skipped).
    const std::uint32_t joined = joins_disjoint_writes(st, acc) ? st.target : no_buffer;
    if (acc.any_scattered) {
        // Written at other indices by this kernel: nothing after may read or write it here.
        std::uint32_t touched = acc.scatterer[st.target] != no_buffer && st.target != joined ? st.target : no_buffer;
        for (std::uint32_t cls : st.slot_buffer)
            if (touched == no_buffer && cls != no_buffer && cls != joined && acc.scatterer[cls] != no_buffer)
                touched = cls;
        if (touched != no_buffer) {
            buffer = touched;
            statement = acc.scatterer[touched];
            return boundary::view_write;
        }
    }
    if (st.shape->store_index != ir::no_node && joined == no_buffer) {
        // A write at other indices: no statement of this kernel may have touched the vector.
        const std::uint32_t by = acc.writer[st.target] != no_buffer ? acc.writer[st.target] : acc.reader[st.target];
        if (by != no_buffer) {
            buffer = st.target;
            statement = by;
            return boundary::view_write;
        }
    }
    for (std::size_t k = 0; k < slots.size(); ++k) {
        const std::uint32_t cls = st.slot_buffer[k];
        if (slots[k].neighbour && cls != joined && acc.writer[cls] != no_buffer) {
            buffer = cls;
            statement = acc.writer[cls];
            return slots[k].any_length ? boundary::gather_read : boundary::neighbour_read;
        }
    }
    if (acc.neighbour_reader[st.target] != no_buffer && joined == no_buffer) {
        buffer = st.target;
        statement = acc.neighbour_reader[st.target];
        return boundary::neighbour_write;
    }
    return boundary::end_of_flush;
}

// The parameters a group holds, in 8-byte units: each buffer class and scalar value class once.
struct group_parameters {
    std::vector<std::uint32_t> buffer_mark, scalar_mark; // the group that last counted each class
    std::uint32_t group = 1, count = 0;
    bool scalars_free = false; // packable scalars (plan_request::pack_scalars) do not count
    // The parameters statement st adds to the current group (not yet counted).
    std::uint32_t added_by(const planned_statement& st) const {
        std::uint32_t added = buffer_mark[st.target] == group ? 0 : 1;
        for (std::size_t k = 0; k < st.slot_buffer.size(); ++k) {
            if (st.slot_buffer[k] != no_buffer) {
                added += buffer_mark[st.slot_buffer[k]] == group || st.slot_buffer[k] == st.target ? 0 : 1;
                continue;
            }
            if (scalars_free) continue;
            const std::uint32_t cls = k < st.slot_scalar.size() ? st.slot_scalar[k] : no_buffer;
            if (cls == zero_offset) continue; // a literal, no parameter
            added += cls != no_buffer && cls < scalar_mark.size() && scalar_mark[cls] == group
                         ? 0
                         : (st.shape && k < st.shape->slots.size() ? parameter_units(st.shape->slots[k].type) : 1);
        }
        return added; // repeats within st itself counted apart: still an upper bound
    }
    void add(const planned_statement& st) {
        count += added_by(st);
        buffer_mark[st.target] = group;
        for (std::size_t k = 0; k < st.slot_buffer.size(); ++k) {
            if (st.slot_buffer[k] != no_buffer) {
                buffer_mark[st.slot_buffer[k]] = group;
            } else if (k < st.slot_scalar.size() && st.slot_scalar[k] != no_buffer &&
                       st.slot_scalar[k] != zero_offset) {
                if (st.slot_scalar[k] >= scalar_mark.size()) scalar_mark.resize(st.slot_scalar[k] + 1, 0);
                scalar_mark[st.slot_scalar[k]] = group;
            }
        }
    }
    void next_group() {
        ++group;
        count = 0;
    }
};

// Per buffer class, the last statement that reads it (0 when none).
std::vector<std::uint32_t> last_reads(const plan_request& request) {
    std::vector<std::uint32_t> last(request.buffer_types.size(), 0);
    for (std::uint32_t s = 0; s < request.statements.size(); ++s)
        for (std::uint32_t cls : request.statements[s].slot_buffer)
            if (cls != no_buffer) last[cls] = s;
    return last;
}

// Where a group that a limit closes at statement s ends: the cut c in its second half
// (statements first..c-1 form the group) that the fewest temporaries cross, written before c
// and read at c or later: each must be stored (and allocated) where, uncut, it would have
// stayed in a register. A buffer a live vector names is stored either way and does not count.
// The latest of equal cuts, to keep groups long.
std::uint32_t best_cut(const plan_request& request, std::uint32_t first, std::uint32_t s,
                       const std::vector<std::uint32_t>& last_read) {
    const std::vector<planned_statement>& st = request.statements;
    const std::uint32_t lo = first + std::max<std::uint32_t>(1, (s - first + 1) / 2);
    if (lo >= s) return s;
    std::vector<int> crossing(s - first + 2, 0); // by c - first: a difference array
    std::vector<std::uint32_t> first_write(last_read.size(), no_buffer);
    for (std::uint32_t j = first; j < s; ++j)
        if (first_write[st[j].target] == no_buffer) first_write[st[j].target] = j;
    for (std::size_t cls = 0; cls < first_write.size(); ++cls) {
        const std::uint32_t w = first_write[cls];
        if (w == no_buffer || last_read[cls] <= w || (cls < request.buffer_live.size() && request.buffer_live[cls]))
            continue;
        ++crossing[w + 1 - first];
        if (last_read[cls] + 1 < s + 1) --crossing[last_read[cls] + 1 - first];
    }
    std::uint32_t best = s;
    int running = 0, fewest = 0;
    for (std::uint32_t c = first + 1; c <= s; ++c) {
        running += crossing[c - first];
        if (c < lo) continue;
        if (c == lo || running <= fewest) {
            fewest = running;
            best = c;
        }
    }
    return best;
}

bool is_limit(boundary b) {
    return b == boundary::parameter_limit || b == boundary::node_limit || b == boundary::statement_limit;
}

void record_access(const planned_statement& st, std::uint32_t s, group_access& acc) {
    const auto& slots = st.shape->slots;
    const bool disjoint = st.disjoint_write && acc.touched[st.target] != touch::other;
    for (std::size_t k = 0; k < slots.size(); ++k)
        if (st.slot_buffer[k] != no_buffer) {
            if (slots[k].neighbour) acc.neighbour_reader[st.slot_buffer[k]] = s;
            acc.reader[st.slot_buffer[k]] = s;
            if (!(disjoint && st.slot_buffer[k] == st.target)) acc.touched[st.slot_buffer[k]] = touch::other;
        }
    acc.touched[st.target] = disjoint ? touch::disjoint_writes : touch::other;
    acc.writer[st.target] = s;
    if (st.shape->store_index != ir::no_node) {
        acc.scatterer[st.target] = s;
        acc.any_scattered = true;
    }
}

} // namespace

std::vector<group_bounds> group_statements(const plan_request& request) {
    std::vector<group_bounds> groups;
    const auto& st = request.statements;
    const plan_limits& lim = request.limits;
    group_access acc;
    acc.writer.assign(request.buffer_types.size(), no_buffer);
    acc.neighbour_reader.assign(request.buffer_types.size(), no_buffer);
    acc.scatterer.assign(request.buffer_types.size(), no_buffer);
    acc.reader.assign(request.buffer_types.size(), no_buffer);
    acc.touched.assign(request.buffer_types.size(), touch::none);
    group_parameters params;
    params.buffer_mark.assign(request.buffer_types.size(), 0);
    params.scalars_free = request.pack_scalars;
    // With packing, one parameter is the packed-scalar buffer.
    const std::uint32_t max_parameters = lim.max_parameters - (request.pack_scalars ? 1 : 0);
    const std::vector<std::uint32_t> last_read = last_reads(request);
    std::uint32_t first = 0, nodes = 0;
    for (std::uint32_t s = 0; s < st.size(); ++s) {
        const std::uint32_t s_nodes = std::uint32_t(st[s].shape->nodes.size());
        if (s > first) {
            std::uint32_t buffer = no_buffer, statement = 0;
            boundary reason = boundary::end_of_flush;
            if (!request.fuse)
                reason = boundary::fusion_off;
            else if (st[s].length_class != st[first].length_class)
                reason = boundary::length_change;
            else if (params.count + params.added_by(st[s]) > max_parameters)
                reason = boundary::parameter_limit;
            else if (nodes + s_nodes > lim.max_nodes)
                reason = boundary::node_limit;
            else if (s - first >= lim.max_statements)
                reason = boundary::statement_limit;
            else
                reason = stencil_conflict(st[s], acc, buffer, statement);
            if (reason != boundary::end_of_flush) {
                const std::uint32_t cut = is_limit(reason) ? best_cut(request, first, s, last_read) : s;
                groups.push_back({first, cut - 1, reason, buffer, statement});
                first = cut;
                nodes = 0;
                params.next_group();
                acc.reset();
                if (cut < s) { // the statements after the cut start the next group
                    s = cut - 1;
                    continue;
                }
            }
        }
        params.add(st[s]);
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
    case boundary::view_write: return "view_write";
    case boundary::gather_read: return "gather_read";
    }
    return "?";
}

} // namespace loom::fusion
