// Binary searches at run time (loom/binary_search.hpp): the call checked, its plan found or made
// (skeleton::plan_search), and the executor's run of its one pass.
#include <string>

#include "launch/policy.hpp"
#include "loom/binary_search.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/partition.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/skeleton_input.hpp"
#include "skeleton/plan_search.hpp"

namespace loom::detail {
namespace {

// The values' shape with the sorted vector as one more slot (read by no node, at any length).
const shape* with_sorted_slot(const shape* values, dtype key) {
    return derived_shape(std::pair{values, key}, [&] {
        shape s = *values;
        s.slots.push_back({slot_kind::vector, key, true, false, false, true});
        return register_shape(std::move(s));
    });
}

const char* name_of(search_kind k) {
    return k == search_kind::lower   ? "loom::lower_bound"
           : k == search_kind::upper ? "loom::upper_bound"
                                     : "loom::binary_search";
}

} // namespace

void run_search(context_impl& ctx, const search_call& call, const buffer_ptr& sorted, const buffer_ptr& output) {
    const char* what = name_of(call.kind);
    ctx.require_one_device(what);
    if (!sorted) throw error(std::string(what) + ": the sorted vector is empty and has no context; make it with one");
    if (sorted->ctx != &ctx)
        throw error(std::string(what) + ": the sorted vector belongs to another context than the output");
    const shape* input = ctx.statement_form(with_sorted_slot(call.input, sorted->type));
    const bound_input in = bind_input(ctx, *input, call.view_length, what);
    const std::uint64_t n = in.has_length ? in.length : output->length;
    if (n != output->length)
        throw length_error(std::string(what) + ": length mismatch: " + std::to_string(n) + " values and an output of " +
                           std::to_string(output->length) + "; give the output the values' length");
    for (std::size_t s = 0; s < input->slots.size(); ++s)
        if (in.slots[s].buffer.get() == output.get())
            throw error(std::string(what) + ": the output is also " +
                        (s + 1 == input->slots.size() ? "the sorted vector" : "one of the values' vectors") +
                        "; write the places into another vector");
    if (n == 0) return;

    skeleton::search_request request;
    request.input = input;
    request.slot_class = &in.slot_class;
    request.key = sorted->type;
    request.result = output->type;
    request.bound = call.kind == search_kind::lower   ? codegen::search_bound::lower
                    : call.kind == search_kind::upper ? codegen::search_bound::upper
                                                      : codegen::search_bound::found;
    request.descending = call.descending;
    request.guarded = ctx.guard() != nullptr;
    search_key& key = ctx.plans().key<search_key>();
    key.input_shape = input->id;
    key.key_type = std::uint32_t(request.key);
    key.result_type = std::uint32_t(request.result);
    key.bound = std::uint32_t(request.bound);
    key.descending = request.descending;
    key.guarded = request.guarded;
    key.bindings.assign(in.slot_class.begin(), in.slot_class.end());
    cached_plan& cached =
        ctx.plans().find_or_plan<search_key>([&] { return skeleton::plan_search(request, ctx.device().dialect()); });

    plan::launch_sizes sizes;
    sizes.geometry[0] = launch::map_geometry(ctx.info(), ir::map_form::grid_stride, n);
    sizes.extents[0][std::size_t(codegen::pass_extent::n)] = n;
    sizes.extents[0][std::size_t(codegen::pass_extent::chunk)] = sorted->length;
    sizes.elements[0] = n;
    run_into(ctx, cached, sizes, in, *input, output);
}

} // namespace loom::detail
