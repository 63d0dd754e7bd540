// Packing scalars beyond the parameter limit; see pack_scalars.hpp.
#include "fusion/pack_scalars.hpp"

namespace loom::fusion {

void pack_scalars(kernel_group& g, std::uint32_t max_parameters) {
    // In 8-byte units (plan_limits::max_parameters): a double4 scalar takes four.
    auto units = [](const ir::kernel_param& p) {
        return p.kind == ir::param_kind::scalar ? parameter_units(p.type) : std::uint32_t(1);
    };
    std::uint32_t arguments = 0;
    for (const ir::kernel_param& p : g.kernel.params) arguments += units(p);
    if (arguments <= max_parameters) return;
    ++arguments; // the packed buffer itself
    for (std::size_t p = g.kernel.params.size(); p-- > 0 && arguments > max_parameters;) {
        ir::kernel_param& param = g.kernel.params[p];
        if (param.kind != ir::param_kind::scalar) continue;
        param.packed = true;
        arguments -= units(param);
    }
}

} // namespace loom::fusion
