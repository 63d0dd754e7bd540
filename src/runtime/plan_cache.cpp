// The context's plan cache; see plan_cache.hpp.
#include "runtime/plan_cache.hpp"

namespace loom::detail {

void plan_cache::compile(cached_plan& p) {
    p.kernels.clear();
    for (const plan::pass& pass : p.plan.passes) p.kernels.push_back(&programs_.get(pass.kernel, pass.summary));
}

} // namespace loom::detail
