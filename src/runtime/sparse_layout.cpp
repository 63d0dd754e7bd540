// The default layout of loom::sparse_matrix on a context's device; see loom/detail/sparse_layout.hpp.
#include "loom/detail/sparse_layout.hpp"

#include "launch/policy.hpp"
#include "runtime/context_impl.hpp"

namespace loom::detail {

std::uint32_t default_slice_height(context_impl& ctx) {
    const ir::map_form form = ctx.settings().form ? *ctx.settings().form : launch::map_form_for(ctx.info());
    return launch::sparse_slice_height(ctx.info(), form);
}

} // namespace loom::detail
