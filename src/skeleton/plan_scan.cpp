// The scan planner; see plan_scan.hpp.
#include "skeleton/plan_scan.hpp"

#include <string>

#include "skeleton/pass_arguments.hpp"
#include "skeleton/scan_kernel.hpp"

namespace loom::skeleton {

plan::plan plan_scan(const scan_request& r, const codegen::dialect& d) {
    const detail::skeleton_operation& sop = *r.op;
    input_kernel input = build_input(*r.input, *r.slot_class, sop.type);
    input.kernel.guarded = r.guarded;
    const std::vector<combine_op> ops{combine_of(sop)};
    // The input parameter the output is written through (an in-place scan), or none.
    std::uint32_t out_param = no_class;
    for (std::uint32_t p = 0; p < input.kernel.params.size(); ++p)
        if (input.kernel.params[p].kind == ir::param_kind::buffer && r.output_class != no_class &&
            (*r.slot_class)[input.param_slot[p]] == r.output_class)
            out_param = p;
    input_kernel totals = partials_input({sop.type});
    totals.kernel.guarded = r.guarded;

    plan::plan p;
    p.scratch = {sop.type, sop.type, dtype::u32};
    pass_binding binding;
    binding.totals = 0;
    binding.offsets = 1;
    binding.status = 2;
    binding.outputs = {{plan::source::result, 0}};
    const launch::scan_geometry& g = r.geometry;
    const std::string shape = " (input shape " + std::to_string(r.input->id) + ")";
    if (!g.chunked) {
        p.passes.push_back(status_clear_pass(binding, d));
        plan::pass scan;
        scan.kernel = emit_scan_pass(input, ops[0], scan_pass::single_pass, r.exclusive, out_param, g.group, false, d);
        scan.summary = "scan single pass" + shape;
        scan.arguments = pass_arguments(scan.kernel.layout, input, ops, binding);
        scan.kind = plan::pass_kind::scan;
        p.passes.push_back(std::move(scan));
        return p;
    }
    auto add = [&](const input_kernel& in, scan_pass which, bool exclusive, std::uint32_t out, std::string summary,
                   const pass_binding& b) {
        plan::pass pass;
        pass.kernel = emit_scan_pass(in, ops[0], which, exclusive, out, g.group, g.chunked, d);
        pass.summary = std::move(summary);
        pass.arguments = pass_arguments(pass.kernel.layout, in, ops, b);
        pass.kind = plan::pass_kind::scan;
        p.passes.push_back(std::move(pass));
    };
    pass_binding totals_only = binding; // pass 1 starts each chunk from the identity
    totals_only.initial_from_call = false;
    add(input, scan_pass::chunk_totals, r.exclusive, no_class, "scan pass 1" + shape, totals_only);
    pass_binding of_totals = totals_only; // pass 2 reads the totals and writes the offsets
    of_totals.input = pass_binding::input_from::scratch;
    of_totals.partials = {0};
    of_totals.outputs = {{plan::source::scratch, 1}};
    add(totals, scan_pass::scan_totals, true, no_class, "scan pass 2", of_totals);
    add(input, scan_pass::scan_output, r.exclusive, out_param, "scan pass 3" + shape, binding);
    return p;
}

plan::launch_sizes scan_launch(const launch::scan_geometry& g, std::uint64_t n) {
    plan::launch_sizes s;
    const auto n_extent = std::size_t(codegen::pass_extent::n), chunk = std::size_t(codegen::pass_extent::chunk);
    if (!g.chunked) { // the tiles' status and the ticket counter after it; then a group a tile
        status_clear_sizes(s, 0, g.groups, g.group);
        s.geometry[1] = {g.groups * g.group, g.group};
        s.extents[1][chunk] = g.chunk;
        s.extents[1][n_extent] = n;
        s.elements[1] = n;
        s.scratch_elements[0] = s.scratch_elements[1] = g.groups;
        s.scratch_elements[2] = g.groups + 1;
        return s;
    }
    s.geometry[0] = s.geometry[2] = {g.groups * g.group, g.group};
    s.geometry[1] = {g.group, g.group};
    s.extents[0][chunk] = s.extents[2][chunk] = g.chunk;
    s.extents[0][n_extent] = s.extents[2][n_extent] = n;
    s.extents[1][chunk] = s.extents[1][n_extent] = g.parts;
    s.elements = {n, g.parts, n};
    s.scratch_elements[0] = s.scratch_elements[1] = g.parts;
    return s;
}

} // namespace loom::skeleton
