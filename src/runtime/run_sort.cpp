// A sort at run time: the call checked, its plan found or made (skeleton::plan_sort, or
// plan_merge_sort for a comparator), and the executor's allocate, bind and launch of its passes.
// docs/sorting.md.
#include <string>

#include "codegen/radix_pass.hpp"
#include "loom/sort.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/statements_across_parts.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/skeleton_input.hpp"
#include "skeleton/plan_sort.hpp"

namespace loom::detail {
namespace {

// Throws unless every output is the keys' length, in the keys' context, and named once.
void check_outputs(context_impl& ctx, std::uint64_t length, const buffer_ptr* outputs, std::size_t count) {
    for (std::size_t k = 0; k < count; ++k) {
        if (outputs[k]->ctx != &ctx)
            throw error("loom: sort: the " + std::string(k == 0 ? "output" : "values") +
                        " vector belongs to another context than the keys");
        if (outputs[k]->length != length)
            throw length_error("loom: sort: length mismatch: the keys have " + std::to_string(length) +
                               " elements and the " + (k == 0 ? std::string("output ") : "values ") +
                               std::to_string(outputs[k]->length));
        for (std::size_t j = 0; j < k; ++j)
            if (outputs[j].get() == outputs[k].get())
                throw error(j == 0 ? "loom: sort_by_key: the keys and the values are one vector; pass the values in a "
                                     "vector of their own"
                                   : "loom: sort_by_key: a value vector is named twice; name each once");
    }
}

} // namespace

void run_sort(context_impl& ctx, const sort_call& written, const buffer_ptr* outputs, std::size_t count) {
    sort_call call = written;
    call.input = ctx.statement_form(written.input);
    bound_input in = bind_input(ctx, *call.input, call.view_length, "sort");
    const buffer_ptr& keys = outputs[0];
    if (!in.has_length) in.length = keys->length;
    check_outputs(ctx, in.length, outputs, count);
    if (!call.less && !codegen::radix_key(keys->type))
        throw error("loom: sort: the keys must be integers or floating point (complex numbers, short vectors and "
                    "booleans have no order to sort by; give a comparator)");
    if (ctx.several()) return sort_across_parts(ctx, call, in.slots, in.length, outputs, count);
    const std::uint64_t n = in.length;
    if (n == 0) return; // one key still runs: the output of sort(expr, out) takes its value

    skeleton::sort_request request;
    request.input = call.input;
    request.slot_class = &in.slot_class;
    request.key = keys->type;
    request.less = call.less;
    request.descending = call.descending;
    request.guarded = ctx.guard() != nullptr;

    sort_key& key = ctx.plans().key<sort_key>();
    key.input_shape = call.input->id;
    key.key_type = std::uint32_t(request.key);
    key.guarded = request.guarded;
    key.carried.clear();
    for (std::size_t k = 1; k < count; ++k) key.carried.push_back(std::uint32_t(outputs[k]->type));
    key.bindings.assign(in.slot_class.begin(), in.slot_class.end());
    if (call.less) {
        request.merge = launch::merge_geometry_for(ctx.info(), ctx.settings().form, n);
        key.descending = false;
        key.chunked = request.merge.chunked;
        key.whole = false;
        key.group = request.merge.group;
        key.offsets_group = key.radix_bits = 0;
        key.op_shape = call.less->op->body->id;
        key.merges = request.merge.merges;
    } else {
        request.geometry = launch::sort_geometry_for(ctx.info(), ctx.settings().form, size_of(keys->type), n);
        key.descending = call.descending;
        key.chunked = request.geometry.chunked;
        key.whole = request.geometry.whole;
        key.group = request.geometry.group;
        key.offsets_group = request.geometry.offsets_group;
        key.radix_bits = request.geometry.radix_bits;
        key.op_shape = key.merges = 0;
    }
    cached_plan* cached = &ctx.plans().find_or_plan<sort_key>([&] {
        // The value vectors' types, listed only for a new plan: a repeated call allocates nothing.
        for (std::size_t k = 1; k < count; ++k) request.carried.push_back(outputs[k]->type);
        return call.less ? skeleton::plan_merge_sort(request, ctx.device().dialect())
                         : skeleton::plan_sort(request, ctx.device().dialect());
    });
    const plan::plan& p = cached->plan;
    const plan::launch_sizes sizes = call.less ? skeleton::merge_sort_launch(request.merge, n, count - 1)
                                               : skeleton::sort_launch(request.geometry, n, count - 1);

    call_values values;
    values.slots = in.slots;
    values.slot_count = call.input->slots.size();
    values.guard = ctx.guard();
    values.results = outputs;
    values.result_count = count;
    values.ops = call.less;
    ctx.execution().run_passes(p, cached->scratch, cached->kernels.data(), sizes, values, ctx.call_scratch().args);
}

} // namespace loom::detail
