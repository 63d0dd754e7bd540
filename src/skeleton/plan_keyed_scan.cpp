// The keyed scan planner; see plan_keyed_scan.hpp.
#include "skeleton/plan_keyed_scan.hpp"

#include <string>

#include "codegen/segmented_scan_pass.hpp"
#include "loom/reduce.hpp"
#include "skeleton/pass_arguments.hpp"

namespace loom::skeleton {

namespace {

// The scan's three passes, or reduce_by_key's (r.reduce): see plan_keyed_scan.hpp.
plan::plan plan_segmented(const keyed_scan_request& r, bool reduce, const codegen::dialect& d) {
    using plan::source;
    const detail::skeleton_operation& sop = *r.op;
    input_kernel input = build_input(*r.input, *r.slot_class, {r.key, sop.type});
    input_kernel totals = reduce ? partials_input({sop.type, dtype::u32, dtype::u64})
                                 : partials_input({sop.type, dtype::u32});
    input.kernel.guarded = totals.kernel.guarded = r.guarded;
    const std::vector<combine_op> ops{combine_of(sop)};

    plan::plan p;
    for (dtype t : {sop.type, dtype::u32, sop.type}) p.scratch.push_back(t);
    if (reduce) // the chunks' heads, the heads before them
        for (int k = 0; k < 2; ++k) p.scratch.push_back(dtype::u64);
    codegen::segmented_scan_kernel k;
    k.op = &ops[0];
    k.exclusive = r.exclusive;
    k.reduce = reduce;
    k.key_out = r.key_out;
    k.group = r.geometry.offsets_group;
    auto add = [&](const input_kernel& in, codegen::segmented_pass which, const pass_binding& b, std::string summary) {
        k.input = &in.kernel;
        k.key = in.root;
        k.value = in.more_roots.empty() ? ir::no_node : in.more_roots[0];
        k.pass = which;
        plan::pass pass;
        pass.kernel = codegen::emit_segmented_scan_pass(k, d);
        pass.summary = std::move(summary);
        pass.arguments = pass_arguments(pass.kernel.layout, in, ops, b);
        pass.kind = plan::pass_kind::scan;
        p.passes.push_back(std::move(pass));
    };
    const std::string what = reduce ? "reduce by key pass " : "keyed scan pass ";
    const std::string shape = " (input shape " + std::to_string(r.input->id) + ")";
    pass_binding chunk_totals;
    chunk_totals.outputs = {{source::scratch, 0}, {source::scratch, 1}};
    if (reduce) chunk_totals.outputs.push_back({source::scratch, 3});
    add(input, codegen::segmented_pass::totals, chunk_totals, what + "1" + shape);
    pass_binding offsets;
    offsets.input = pass_binding::input_from::scratch;
    offsets.partials = {0, 1};
    offsets.outputs = {{source::scratch, 2}};
    if (reduce) {
        offsets.partials.push_back(3);
        offsets.outputs.push_back({source::scratch, 4});
        offsets.outputs.push_back({source::result, 2});
    }
    add(totals, codegen::segmented_pass::offsets, offsets, what + "2");
    pass_binding last;
    last.offsets = 2;
    if (reduce) {
        last.totals = 4;
        last.outputs = {{source::result, 0}, {source::result, 1}, {source::result, 2}};
        add(input, codegen::segmented_pass::reduce, last, what + "3" + shape);
    } else {
        last.outputs = {{source::result, 0}};
        add(input, codegen::segmented_pass::scan, last, what + "3" + shape);
    }
    return p;
}

} // namespace

plan::plan plan_keyed_scan(const keyed_scan_request& r, const codegen::dialect& d) { return plan_segmented(r, false, d); }

plan::plan plan_reduce_by_key(const keyed_scan_request& r, const codegen::dialect& d) {
    return plan_segmented(r, true, d);
}

plan::launch_sizes keyed_scan_launch(const launch::keyed_scan_geometry& g, std::uint64_t n, std::uint64_t room) {
    plan::launch_sizes s;
    const auto n_extent = std::size_t(codegen::pass_extent::n), chunk = std::size_t(codegen::pass_extent::chunk);
    const std::uint64_t launched = (g.items + g.group - 1) / g.group * g.group;
    s.geometry[0] = s.geometry[2] = {launched, g.group};
    s.geometry[1] = {g.offsets_group, g.offsets_group};
    s.extents[0][n_extent] = s.extents[2][n_extent] = n;
    s.extents[0][chunk] = s.extents[2][chunk] = g.chunk;
    s.extents[1][n_extent] = g.items;
    s.extents[1][chunk] = g.offsets_chunk;
    s.elements = {n, g.items, n};
    s.scratch_elements[0] = s.scratch_elements[1] = s.scratch_elements[2] = g.items;
    s.scratch_elements[3] = s.scratch_elements[4] = g.items; // reduce_by_key's (unused by a scan's plan)
    s.extents[2][std::size_t(codegen::pass_extent::room)] = room;
    return s;
}

} // namespace loom::skeleton
