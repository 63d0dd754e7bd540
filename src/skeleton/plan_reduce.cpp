// The reduction planner; see plan_reduce.hpp.
#include "skeleton/plan_reduce.hpp"

#include "loom/error.hpp"
#include "skeleton/pass_arguments.hpp"
#include "skeleton/reduce_kernel.hpp"

namespace loom::skeleton {
namespace {

// The input pass 1 folds: the fused group's last value, or the input expression alone, as the
// accumulator's type (a truth value first where the reduction folds truths).
input_kernel input_of(const reduce_request& r) {
    const dtype type = r.ops[0].type;
    const dtype value_type = r.truth ? dtype::boolean : type;
    input_kernel in;
    if (r.fused) {
        in.kernel = r.fused->kernel; // guarded and laid out by the flush that planned it
        in.root = r.fused->last_value;
        if (in.kernel.body[in.root].type != value_type) {
            ir::node cast{opcode::cast, value_type};
            cast.arg[0] = in.root;
            in.root = std::uint32_t(in.kernel.body.size());
            in.kernel.body.push_back(cast);
        }
    } else {
        in = build_input(*r.input, *r.slot_class, value_type);
        in.kernel.guarded = r.guarded;
    }
    if (r.truth && type != dtype::boolean) {
        // (value != 0), then the accumulator type: count, any and all fold truth values.
        ir::node cast{opcode::cast, type};
        cast.arg[0] = in.root;
        in.root = std::uint32_t(in.kernel.body.size());
        in.kernel.body.push_back(cast);
    }
    return in;
}

input_kernel partials_of(const reduce_recipe& r) {
    std::vector<dtype> types;
    for (const combine_op& op : r.ops) types.push_back(op.type);
    input_kernel partials = partials_input(types);
    partials.kernel.guarded = r.input.kernel.guarded;
    return partials;
}

// Pass `pass`'s accumulators: the input's value (pass 1) or partial k (pass 2), per operation.
std::vector<accumulator> accumulators_of(const reduce_recipe& r, std::uint32_t pass) {
    std::vector<accumulator> acc;
    for (std::uint32_t k = 0; k < r.ops.size(); ++k) acc.push_back({pass == 0 ? r.input.root : k, &r.ops[k]});
    return acc;
}

} // namespace

reduce_plan plan_reduce(const reduce_request& r, const codegen::dialect& d) {
    if (r.op_count == 0 || r.op_count > max_reduce_ops)
        throw error("loom: internal error: a reduction of " + std::to_string(r.op_count) + " operations");
    reduce_plan out;
    reduce_recipe& recipe = out.recipe;
    recipe.input = input_of(r);
    for (std::size_t k = 0; k < r.op_count; ++k) recipe.ops.push_back(combine_of(r.ops[k]));
    recipe.group = r.geometry.group;
    recipe.chunked = r.geometry.chunked;

    const bool one_pass = r.geometry.groups == 1; // pass 1's one partial is the result
    plan::plan& p = out.plan;
    pass_binding result; // the last pass's outputs
    for (std::uint32_t k = 0; k < r.op_count; ++k) {
        if (r.into_device) {
            // A device result is written by the last pass straight into the scalar: no copy, no wait.
            result.outputs.push_back({plan::source::result, k});
        } else {
            result.outputs.push_back({plan::source::scratch, 2 * k + 1});
            p.read_back.push_back(2 * k + 1);
        }
    }
    for (std::uint32_t k = 0; k < r.op_count; ++k) {
        p.scratch.push_back(r.ops[k].type); // 2k: partials
        p.scratch.push_back(r.ops[k].type); // 2k + 1: the host's result
    }

    pass_binding first = result;
    if (r.fused) first.input = pass_binding::input_from::fused;
    if (!one_pass) {
        first.outputs.clear();
        for (std::uint32_t k = 0; k < r.op_count; ++k) first.outputs.push_back({plan::source::scratch, 2 * k});
    }
    plan::pass pass1;
    pass1.kernel = emit_reduce_pass(recipe.input, accumulators_of(recipe, 0), recipe.group, recipe.chunked, d);
    pass1.summary = "reduce pass 1 (input shape " + std::to_string(r.input->id) +
                    (r.fused ? ", with " + std::to_string(r.fused->last - r.fused->first) + " statements fused" : "") +
                    ")";
    pass1.arguments = pass_arguments(pass1.kernel.layout, recipe.input, recipe.ops, first);
    p.passes.push_back(std::move(pass1));
    if (one_pass) return out;

    const input_kernel partials = partials_of(recipe);
    pass_binding second = result;
    second.input = pass_binding::input_from::scratch;
    for (std::uint32_t k = 0; k < r.op_count; ++k) second.partials.push_back(2 * k);
    plan::pass pass2;
    pass2.kernel = emit_reduce_pass(partials, accumulators_of(recipe, 1), recipe.group, recipe.chunked, d);
    pass2.summary = "reduce pass 2";
    pass2.arguments = pass_arguments(pass2.kernel.layout, partials, recipe.ops, second);
    p.passes.push_back(std::move(pass2));
    return out;
}

plan::launch_sizes reduce_launch(const launch::reduce_geometry& g, std::uint64_t n, std::size_t op_count) {
    plan::launch_sizes s;
    const auto n_extent = std::size_t(codegen::pass_extent::n);
    s.geometry[0] = {g.groups * g.group, g.group};
    s.extents[0][n_extent] = n;
    s.elements[0] = n;
    s.geometry[1] = {g.group, g.group};
    s.extents[1][n_extent] = g.groups;
    s.elements[1] = g.groups;
    for (std::size_t k = 0; k < op_count; ++k) {
        s.scratch_elements[2 * k] = g.groups;
        s.scratch_elements[2 * k + 1] = 1;
    }
    return s;
}

codegen::kernel_source reduce_pass_with_epilogue(const reduce_recipe& r, std::uint32_t pass,
                                                 const ir::kernel& bookkeeping,
                                                 const std::vector<std::uint32_t>* rotation,
                                                 const codegen::dialect& d) {
    const input_kernel partials = partials_of(r);
    const input_kernel& in = pass == 0 ? r.input : partials;
    return emit_reduce_pass(in, accumulators_of(r, pass), r.group, r.chunked, d, &bookkeeping, rotation);
}

} // namespace loom::skeleton
