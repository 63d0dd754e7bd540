// A sparse matrix-vector product at run time: the pending statements run, the plan found or
// made (skeleton::plan_spmv), and the executor's allocate, bind and launch of its pass.
// docs/sparse.md.
#include <array>
#include <mutex>
#include <string>

#include "loom/detail/spmv_call.hpp"
#include "loom/error.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/plan_cache.hpp"
#include "skeleton/plan_spmv.hpp"

namespace loom::detail {

void run_pending(context_impl& ctx); // runtime/run_reduce.cpp

void run_spmv(context_impl& ctx, const spmv_call& call, const buffer_ptr& y) {
    std::unique_lock<std::recursive_mutex> lock(context_mutex(ctx));
    const dtype value = (*call.val)->type;
    if (value == dtype::f64 && !ctx.info().fp64)
        throw error("loom: sparse matrix-vector product in double, which the device " + ctx.info().name +
                    " does not support; use float, or pick a device with fp64");
    run_pending(ctx);
    const launch::spmv_geometry g =
        launch::spmv_geometry_for(ctx.info(), ctx.settings().form, call.rows, call.nonzeros);
    skeleton::spmv_request request;
    request.value = value;
    request.index = (*call.col)->type;
    request.guarded = ctx.guard() != nullptr;
    request.lanes = g.lanes;
    request.group = g.lanes > 1 ? g.group : 1;
    request.balanced = g.lanes == 1 && g.balanced;
    spmv_key& key = ctx.plans().key<spmv_key>();
    key.value_type = std::uint32_t(request.value);
    key.index_type = std::uint32_t(request.index);
    key.guarded = request.guarded;
    key.lanes = request.lanes;
    key.group = request.group;
    key.balanced = request.balanced;
    cached_plan* cached =
        &ctx.plans().find_or_plan<spmv_key>([&] { return skeleton::plan_spmv(request, ctx.device().dialect()); });
    const plan::launch_sizes sizes = skeleton::spmv_launch(g, call.rows, call.nonzeros);

    std::array<fusion::bound_slot, 4> slots;
    slots[0].buffer = *call.row_ptr;
    slots[1].buffer = *call.col;
    slots[2].buffer = *call.val;
    slots[3].buffer = *call.x;
    call_values values;
    values.slots = slots.data();
    values.slot_count = slots.size();
    values.guard = ctx.guard();
    values.results = &y;
    values.result_count = 1;
    ctx.execution().run_passes(cached->plan, cached->scratch, cached->kernels.data(), sizes, values,
                               ctx.call_scratch().args);
}

} // namespace loom::detail
