// The axis reduction planner; see plan_axis_reduce.hpp.
#include "skeleton/plan_axis_reduce.hpp"

#include <string>

#include "codegen/axis_pass.hpp"
#include "loom/error.hpp"
#include "skeleton/pass_arguments.hpp"
#include "skeleton/skeleton_kernel.hpp"

namespace loom::skeleton {

plan::plan plan_axis_reduce(const axis_request& r, const codegen::dialect& d) {
    if (r.values != 1 + r.input->more_roots.size())
        throw error("loom: internal error: an axis reduction has another number of operations than values");
    std::vector<dtype> types;
    for (std::size_t k = 0; k < r.values; ++k) types.push_back(r.ops[k].type);
    input_kernel input = build_input(*r.input, *r.slot_class, types);
    input.kernel.guarded = r.guarded;
    std::vector<combine_op> ops;
    ops.reserve(r.values); // the accumulators point into it
    codegen::axis_pass_kernel pass;
    pass_binding binding;
    for (std::uint32_t k = 0; k < r.values; ++k) {
        ops.push_back(combine_of(r.ops[k]));
        pass.accumulators.push_back({k == 0 ? input.root : input.more_roots[k - 1], &ops[k]});
        binding.outputs.push_back({plan::source::result, k});
    }
    pass.input = &input.kernel;
    pass.axis = r.axis;
    pass.form = r.geometry.form;
    pass.group = r.geometry.group;
    pass.lanes = r.geometry.lanes;
    pass.contract_folds = r.contract_folds;

    plan::plan p;
    plan::pass one;
    one.kernel = codegen::emit_axis_pass(pass, d);
    one.summary = "reduction" + std::string(r.values > 1 ? " of " + std::to_string(r.values) + " values" : "") +
                  " along axis " + std::to_string(r.axis) + " (input shape " + std::to_string(r.input->id) + ")";
    one.arguments = pass_arguments(one.kernel.layout, input, ops, binding);
    p.passes.push_back(std::move(one));
    return p;
}

plan::launch_sizes axis_launch(const launch::axis_geometry& g, std::uint64_t rows, std::uint64_t cols) {
    plan::launch_sizes s;
    s.geometry[0] = {g.items, g.group};
    s.extents[0][std::size_t(codegen::pass_extent::rows)] = rows;
    s.extents[0][std::size_t(codegen::pass_extent::cols)] = cols;
    s.elements[0] = rows * cols;
    return s;
}

} // namespace loom::skeleton
