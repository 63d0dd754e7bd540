// The block map planner; see plan_block_map.hpp.
#include "skeleton/plan_block_map.hpp"

#include "codegen/emit.hpp"
#include "codegen/emit_core.hpp"
#include "skeleton/pass_arguments.hpp"
#include "skeleton/skeleton_kernel.hpp"

namespace loom::skeleton {

plan::plan plan_block_map(const block_map_request& r, const codegen::dialect& d) {
    using plan::source;
    const detail::shape& body = *r.body;
    const std::size_t values = (body.more_roots.size() + 1) / 2; // then as many places
    std::vector<dtype> types(values, r.output);
    types.resize(2 * values, dtype::u64);
    input_kernel in = build_input(body, *r.slot_class, types);
    ir::kernel& k = in.kernel;
    k.guarded = r.guarded;
    k.form = r.form;
    std::uint32_t output = std::uint32_t(k.params.size());
    if (r.in_place != block_map_request::not_in_place) {
        // The parameter of the input's buffer class, read and written; a new one bound to the
        // input where the body never reads it.
        const std::vector<std::uint32_t>& classes = *r.slot_class;
        for (std::uint32_t p = 0; p < in.param_slot.size(); ++p)
            if (k.params[p].kind == ir::param_kind::buffer && classes[in.param_slot[p]] == classes[r.in_place])
                output = p;
        if (output == k.params.size()) {
            k.params.push_back({ir::param_kind::buffer, r.output, false});
            in.param_slot.push_back(r.in_place);
        }
        k.params[output].written = true;
    } else {
        k.params.push_back({ir::param_kind::buffer, r.output, true});
    }
    for (std::size_t e = 0; e < values; ++e) {
        const std::uint32_t value = e == 0 ? in.root : in.more_roots[e - 1];
        k.stores.push_back({output, value, in.more_roots[values + e - 1]});
    }

    plan::pass pass;
    pass.kernel = codegen::emit(k, d);
    // A map kernel's signature: its parameters (emit_core's input_layout), then n.
    codegen::parameter_layout& layout = pass.kernel.layout;
    codegen::input_layout(k, layout);
    if (r.in_place == block_map_request::not_in_place)
        for (codegen::parameter& p : layout)
            if (p.role == codegen::parameter_role::input && p.index == output) p = {codegen::parameter_role::output, 0};
    layout.push_back({codegen::parameter_role::extent, std::uint32_t(codegen::pass_extent::n)});
    pass_binding b;
    b.outputs = {plan::argument{source::result, 0}};
    pass.arguments = pass_arguments(layout, in, {}, b);
    pass.summary = "block map (body shape " + std::to_string(body.id) + ")";
    pass.kind = plan::pass_kind::block_map;
    plan::plan p;
    p.passes.push_back(std::move(pass));
    return p;
}

} // namespace loom::skeleton
