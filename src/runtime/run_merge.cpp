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

// What buffer k of run_merge's `buffers` (with `values` value vectors) is, for a message.
std::string buffer_name(std::size_t k, std::size_t values) {
    const auto value = [&](std::size_t v) { return values > 1 ? " " + std::to_string(v + 1) : std::string(); };
    if (k == 0) return "output";
    if (k <= values) return "values' output" + value(k - 1);
    if (k == values + 1) return "first input (a)";
    if (k == values + 2) return "second input (b)";
    const std::size_t v = (k - values - 3) / 2;
    return ((k - values - 3) % 2 == 0 ? "first input's values" : "second input's values") + value(v);
}

// Throws unless every buffer is on ctx, the outputs hold the inputs' elements, each value vector
// its keys' count, and no output is an input or another output.
void check_merge(context_impl& ctx, const buffer_ptr* buffers, std::size_t values) {
    const std::size_t count = 3 * (1 + values);
    const auto length = [&](std::size_t k) { return buffers[k] ? buffers[k]->length : 0; };
    for (std::size_t k = 0; k < count; ++k)
        if (buffers[k] && buffers[k]->ctx != &ctx)
            throw error("loom::merge: the " + buffer_name(k, values) + " belongs to another context than the output");
    const std::size_t a = 1 + values, b = a + 1;
    const std::uint64_t n = length(a) + length(b);
    for (std::size_t k = 0; k < a; ++k)
        if (length(k) != n)
            throw length_error("loom::merge: length mismatch: the " + buffer_name(k, values) + " has " +
                               std::to_string(length(k)) + " elements and the inputs " + std::to_string(length(a)) +
                               " + " + std::to_string(length(b)));
    for (std::size_t k = b + 1; k < count; ++k) {
        const std::size_t keys = (k - b - 1) % 2 == 0 ? a : b;
        if (length(k) != length(keys))
            throw length_error("loom::merge_by_key: length mismatch: the " + buffer_name(k, values) + " has " +
                               std::to_string(length(k)) + " elements and its keys " + std::to_string(length(keys)));
    }
    for (std::size_t k = 0; k < a; ++k)
        for (std::size_t j = 0; j < count; ++j)
            if (j != k && buffers[j].get() == buffers[k].get())
                throw error("loom::merge: the " + buffer_name(k, values) + " is also the " + buffer_name(j, values) +
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

void run_merge(context_impl& ctx, const merge_call& call, const buffer_ptr* buffers, std::size_t values) {
    check_merge(ctx, buffers, values);
    if (!call.less && !codegen::radix_key(buffers[0]->type))
        throw error("loom::merge: the keys must be integers or floating point (give a comparator to merge others)");
    // The inputs as merge_operands takes them: keys, then values, per input.
    std::array<buffer_ptr, 1 + max_merged_values> a, b;
    a[0] = buffers[1 + values];
    b[0] = buffers[2 + values];
    for (std::size_t v = 0; v < values; ++v) {
        a[1 + v] = buffers[3 + values + 2 * v];
        b[1 + v] = buffers[4 + values + 2 * v];
    }
    merge_operands m;
    m.outputs = buffers;
    m.a = a.data();
    m.b = b.data();
    m.a_length = a[0] ? a[0]->length : 0;
    m.b_length = b[0] ? b[0]->length : 0;
    m.values = values;
    if (ctx.several()) return merge_across_parts(ctx, call, m);
    merge_on_device(ctx, call, m);
}

} // namespace loom::detail
