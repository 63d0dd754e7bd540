// The scan passes as codegen writes them; see scan_kernel.hpp.
#include "skeleton/scan_kernel.hpp"

namespace loom::skeleton {

codegen::kernel_source emit_scan_pass(const input_kernel& in, const combine_op& op, scan_pass pass, bool exclusive,
                                      std::uint32_t out_param, unsigned group, bool chunked,
                                      const codegen::dialect& d) {
    codegen::scan_pass_kernel s;
    s.input = &in.kernel;
    s.root = in.root;
    s.op = &op;
    s.pass = pass;
    s.exclusive = exclusive;
    s.out_param = out_param == no_class ? codegen::no_output_param : out_param;
    s.group = group;
    s.chunked = chunked;
    return codegen::emit_scan_pass(s, d);
}

} // namespace loom::skeleton
