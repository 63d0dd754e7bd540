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

plan::pass status_clear_pass(const pass_binding& binding, const codegen::dialect& d) {
    plan::pass clear;
    clear.kernel = codegen::emit_status_clear(d);
    clear.summary = "tile status clear";
    clear.arguments = pass_arguments(clear.kernel.layout, partials_input({}), {}, binding);
    clear.kind = plan::pass_kind::scan;
    return clear;
}

void status_clear_sizes(plan::launch_sizes& sizes, std::size_t column, std::uint64_t tiles, unsigned group) {
    const std::uint64_t words = tiles + 1;
    sizes.geometry[column] = {(words + group - 1) / group * group, group};
    sizes.extents[column][std::size_t(codegen::pass_extent::n)] = words;
    sizes.elements[column] = words;
}

} // namespace loom::skeleton
