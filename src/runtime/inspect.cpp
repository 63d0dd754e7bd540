// loom::last_flush: the last plan, in public terms.
#include "loom/inspect.hpp"

#include "runtime/context_impl.hpp"

namespace loom {

flush_report last_flush(const context& ctx) {
    flush_report r;
    const detail::compiled_plan* p = ctx.impl()->last_plan();
    if (!p) return r;
    for (std::size_t n = 0; n < p->groups.size(); ++n) {
        const fusion::kernel_group& g = p->groups[n].group;
        // A plan made by flush_into_reduction ends in the reduction's input, which is no statement.
        const bool input_group = p->ends_in_reduction() && n + 1 == p->groups.size();
        if (input_group && !p->last_group_fused) break;
        kernel_report k;
        k.first_statement = g.first;
        k.last_statement = input_group ? g.last - 1 : g.last;
        k.ends = input_group ? "reduction" : fusion::name_of(g.reason);
        k.loads = std::uint32_t(g.loaded.size());
        k.stores = std::uint32_t(g.stored.size());
        k.elided = std::uint32_t(g.elided.size() - (input_group ? 1 : 0)); // not the input's own value
        k.parameters = std::uint32_t(g.kernel.params.size());
        k.in_reduction = input_group || p->in_held_pass;
        if (p->in_held_pass) k.ends = "reduction"; // run at the end of a held reduction pass (loop_while)
        r.kernels.push_back(k);
        r.statements = k.last_statement + 1;
    }
    return r;
}

} // namespace loom
