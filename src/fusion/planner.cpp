// The fusion planner: groups, then a kernel per group with its stores decided.
#include "fusion/build_kernel.hpp"
#include "fusion/dead_stores.hpp"
#include "fusion/grouping.hpp"
#include "fusion/pack_scalars.hpp"

namespace loom::fusion {

kernel_plan plan_kernels(const plan_request& request) {
    kernel_plan plan;
    for (const group_bounds& bounds : group_statements(request)) {
        plan.groups.push_back(build_kernel(request, bounds, stores_to_keep(request, bounds.last)));
        if (request.pack_scalars) pack_scalars(plan.groups.back(), request.limits.max_parameters);
    }
    return plan;
}

} // namespace loom::fusion
