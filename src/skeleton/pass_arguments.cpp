// Codegen's parameter roles translated into plan arguments; see pass_arguments.hpp.
#include "skeleton/pass_arguments.hpp"

#include "loom/error.hpp"

namespace loom::skeleton {

std::vector<plan::argument> pass_arguments(const codegen::parameter_layout& layout, const input_kernel& in,
                                           const std::vector<combine_op>& ops, const pass_binding& binding) {
    using codegen::parameter_role;
    using plan::source;
    std::vector<plan::argument> args;
    bool fused_bound = false;
    for (const codegen::parameter& p : layout) {
        switch (p.role) {
        case parameter_role::input:
        case parameter_role::packed_scalars:
            if (binding.input == pass_binding::input_from::fused) {
                // The flush binds every parameter of its group's kernel, packed scalars too.
                if (!fused_bound) args.push_back({source::fused});
                fused_bound = true;
            } else if (p.role == parameter_role::packed_scalars) {
                throw error("loom: internal error: a skeleton's own input has packed scalars");
            } else if (binding.input == pass_binding::input_from::scratch) {
                args.push_back({source::scratch, binding.partials.at(p.index)});
            } else if (binding.input == pass_binding::input_from::given) {
                args.push_back(binding.given.at(p.index));
            } else {
                const ir::kernel_param& param = in.kernel.params[p.index];
                if (param.kind == ir::param_kind::buffer)
                    args.push_back({source::slot_buffer, in.param_slot[p.index]});
                else
                    args.push_back({source::slot_value, in.param_slot[p.index], 0, param.type});
            }
            break;
        case parameter_role::guard: args.push_back({source::guard}); break;
        case parameter_role::output: args.push_back(binding.outputs.at(p.index)); break;
        case parameter_role::totals: args.push_back({source::scratch, binding.totals}); break;
        case parameter_role::offsets: args.push_back({source::scratch, binding.offsets}); break;
        case parameter_role::tile_status: args.push_back({source::scratch, binding.status}); break;
        case parameter_role::identity: args.push_back({source::identity, p.index, 0, ops.at(p.index).type}); break;
        case parameter_role::initial:
            args.push_back({binding.initial_from_call ? source::initial : source::identity, 0, 0, ops.at(0).type});
            break;
        case parameter_role::capture:
            args.push_back({source::capture, p.index, p.item, ops.at(p.index).captures.at(p.item)});
            break;
        case parameter_role::extent: args.push_back({source::extent, p.index}); break;
        case parameter_role::carried: args.push_back(binding.carried.at(p.index)); break;
        case parameter_role::pass_constant: args.push_back({source::constant, binding.pass_constant}); break;
        case parameter_role::key_order: args.push_back({source::constant, binding.descending}); break;
        case parameter_role::epilogue:
        case parameter_role::iterations:
            // A loop's held pass binds these itself (runtime/loop), after the planned arguments.
            break;
        }
    }
    return args;
}

} // namespace loom::skeleton
