// Packing scalars beyond the parameter limit; see pack_scalars.hpp.
#include "fusion/pack_scalars.hpp"

namespace loom::fusion {

void pack_scalars(kernel_group& g, std::uint32_t max_parameters) {
    std::uint32_t arguments = std::uint32_t(g.kernel.params.size());
    if (arguments <= max_parameters) return;
    ++arguments; // the packed buffer itself
    for (std::size_t p = g.kernel.params.size(); p-- > 0 && arguments > max_parameters;) {
        ir::kernel_param& param = g.kernel.params[p];
        if (param.kind != ir::param_kind::scalar) continue;
        param.packed = true;
        --arguments;
    }
}

} // namespace loom::fusion
