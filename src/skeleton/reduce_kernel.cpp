// The reduction passes as codegen writes them; see reduce_kernel.hpp.
#include "skeleton/reduce_kernel.hpp"

#include "launch/skeleton_geometry.hpp"

namespace loom::skeleton {

codegen::kernel_source emit_reduce_pass(const input_kernel& in, const std::vector<accumulator>& acc, unsigned group,
                                        bool chunked, const codegen::dialect& d, const ir::kernel* epilogue,
                                        const std::vector<std::uint32_t>* rotation) {
    codegen::reduce_pass_kernel pass;
    pass.input = &in.kernel;
    pass.accumulators = acc;
    pass.group = group;
    pass.chunked = chunked;
    pass.lanes = launch::chunk_lanes; // reduce_chunk and reduce_depth count this many
    pass.epilogue = epilogue;
    pass.rotation = rotation;
    return codegen::emit_reduce_pass(pass, d);
}

} // namespace loom::skeleton
