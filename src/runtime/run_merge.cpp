// A merge at run time (loom/merge.hpp): the call checked, then merge_on_device, or the merge
// across a context's parts. docs/sorting.md, "Merging".
#include "runtime/run_merge.hpp"

#include <array>
#include <string>

#include "codegen/radix_pass.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/statements_across_parts.hpp"
#include "runtime/plan_cache.hpp"
#include "skeleton/plan_merge.hpp"

namespace loom::detail {
namespace {

const char* const buffer_names[] = {"output",           "values' output",       "first input (a)",
                                    "second input (b)", "first input's values", "second input's values"};

// Throws unless every buffer is on ctx, the outputs hold the inputs' elements, each value vector
// its keys' count, and no output is an input or the other output.
void check_merge(context_impl& ctx, const buffer_ptr* buffers, bool with_values) {
    const std::size_t count = with_values ? 6 : 3;
    const auto length = [&](std::size_t k) { return buffers[k] ? buffers[k]->length : 0; };
    for (std::size_t k = 0; k < count; ++k)
        if (buffers[k] && buffers[k]->ctx != &ctx)
            throw error(std::string("loom::merge: the ") + buffer_names[k] +
                        " belongs to another context than the output");
    const std::size_t a = with_values ? 2 : 1, b = a + 1;
    const std::uint64_t n = length(a) + length(b);
    for (std::size_t k = 0; k < a; ++k)
        if (length(k) != n)
            throw length_error(std::string("loom::merge: length mismatch: the ") + buffer_names[k] + " has " +
                               std::to_string(length(k)) + " elements and the inputs " + std::to_string(length(a)) +
                               " + " + std::to_string(length(b)));
    if (with_values)
        for (std::size_t k : {a, b})
            if (length(k + 2) != length(k))
                throw length_error(std::string("loom::merge_by_key: length mismatch: the ") +
                                   buffer_names[k == a ? 4 : 5] + " has " + std::to_string(length(k + 2)) +
                                   " elements and its keys " + std::to_string(length(k)));
    for (std::size_t k = 0; k < a; ++k)
        for (std::size_t j = 0; j < count; ++j)
            if (j != k && buffers[j].get() == buffers[k].get())
                throw error(std::string("loom::merge: the ") + buffer_names[k] + " is also the " + buffer_names[j] +
                            "; merge into a vector of its own");
}

} // namespace

void merge_on_device(context_impl& ctx, const merge_call& call, const merge_operands& m) {
    const std::uint64_t n = m.a_length + m.b_length;
    if (n == 0) return;
    skeleton::merge_request request;
    request.less = call.less;
    request.key = m.outputs[0]->type;
    request.descending = call.descending;
    request.guarded = ctx.guard() != nullptr;

    merge_key& key = ctx.plans().key<merge_key>();
    key.key_type = std::uint32_t(request.key);
    key.op_shape = call.less ? call.less->op->body->id : 0;
    key.descending = call.descending;
    key.guarded = request.guarded;
    key.carried.clear();
    for (std::size_t k = 0; k < m.values; ++k) key.carried.push_back(std::uint32_t(m.outputs[1 + k]->type));
    cached_plan& cached = ctx.plans().find_or_plan<merge_key>([&] {
        for (std::size_t k = 0; k < m.values; ++k) request.carried.push_back(m.outputs[1 + k]->type);
        return skeleton::plan_merge(request, ctx.device().dialect());
    });
    const launch::merge_geometry g = launch::merge_geometry_for(ctx.info(), ctx.settings().form, n);
    const plan::launch_sizes sizes = skeleton::merge_launch(g, m.a_length, m.b_length);

    // The results as plan_merge numbers them; an empty input is bound to the other (never read).
    std::array<buffer_ptr, 1 + max_merged_values + 2 * (1 + max_merged_values)> results;
    const buffer_ptr* a = m.a_length ? m.a : m.b;
    const buffer_ptr* b = m.b_length ? m.b : m.a;
    for (std::size_t k = 0; k <= m.values; ++k) {
        results[k] = m.outputs[k];
        results[skeleton::merge_input(m.values, std::uint32_t(2 * k))] = a[k];
        results[skeleton::merge_input(m.values, std::uint32_t(2 * k + 1))] = b[k];
    }
    call_values values;
    values.guard = ctx.guard();
    values.results = results.data();
    values.result_count = 3 * (1 + m.values);
    values.ops = call.less;
    ctx.execution().run_passes(cached.plan, cached.scratch, cached.kernels.data(), sizes, values,
                               ctx.call_scratch().args);
}

void run_merge(context_impl& ctx, const merge_call& call, const buffer_ptr* buffers, bool with_values) {
    check_merge(ctx, buffers, with_values);
    const std::size_t outputs = with_values ? 2 : 1;
    if (!call.less && !codegen::radix_key(buffers[0]->type))
        throw error("loom::merge: the keys must be integers or floating point (give a comparator to merge others)");
    // The inputs as merge_operands takes them: keys, then values, per input.
    const std::array<buffer_ptr, 2> a{buffers[outputs], with_values ? buffers[4] : nullptr};
    const std::array<buffer_ptr, 2> b{buffers[outputs + 1], with_values ? buffers[5] : nullptr};
    merge_operands m;
    m.outputs = buffers;
    m.a = a.data();
    m.b = b.data();
    m.a_length = a[0] ? a[0]->length : 0;
    m.b_length = b[0] ? b[0]->length : 0;
    m.values = outputs - 1;
    if (ctx.several()) return merge_across_parts(ctx, call, m);
    merge_on_device(ctx, call, m);
}

} // namespace loom::detail
