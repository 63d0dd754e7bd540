// loom::last_flush: the last plan, in public terms.
#include "loom/inspect.hpp"

#include "runtime/context_impl.hpp"

namespace loom {

flush_report last_flush(const context& ctx) {
    flush_report r;
    const detail::compiled_plan* p = ctx.impl()->last_plan();
    if (!p) return r;
    for (const fusion::kernel_group& g : p->plan.groups) {
        kernel_report k;
        k.first_statement = g.first;
        k.last_statement = g.last;
        k.ends = fusion::name_of(g.reason);
        k.loads = std::uint32_t(g.loaded.size());
        k.stores = std::uint32_t(g.stored.size());
        k.elided = std::uint32_t(g.elided.size());
        k.parameters = std::uint32_t(g.kernel.params.size());
        r.kernels.push_back(k);
        r.statements = g.last + 1;
    }
    return r;
}

} // namespace loom
