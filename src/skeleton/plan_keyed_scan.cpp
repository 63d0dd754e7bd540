// The keyed scan planner; see plan_keyed_scan.hpp.
#include "skeleton/plan_keyed_scan.hpp"

#include <string>

#include "codegen/segmented_scan_pass.hpp"
#include "loom/reduce.hpp"
#include "codegen/scan_pass.hpp"
#include "skeleton/pass_arguments.hpp"
#include "skeleton/scan_kernel.hpp"

namespace loom::skeleton {

namespace {

// Adds passes emitted from one segmented_scan_kernel, each bound by its own pass_binding.
struct pass_adder {
    plan::plan& p;
    const codegen::dialect& d;
    const std::vector<combine_op>& ops;
    codegen::segmented_scan_kernel k;

    void operator()(const input_kernel& in, codegen::segmented_pass which, const pass_binding& b, std::string summary) {
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
    }
};

std::string input_shape_of(const keyed_scan_request& r) { return " (input shape " + std::to_string(r.input->id) + ")"; }

} // namespace

plan::plan plan_keyed_scan(const keyed_scan_request& r, const codegen::dialect& d) {
    using plan::source;
    const detail::skeleton_operation& sop = *r.op;
    input_kernel input = build_input(*r.input, *r.slot_class, {r.key, sop.type});
    input_kernel totals = partials_input({sop.type, dtype::u32});
    input.kernel.guarded = totals.kernel.guarded = r.guarded;
    const std::vector<combine_op> ops{combine_of(sop)};

    plan::plan p;
    pass_adder add{p, d, ops, {}};
    add.k.op = &ops[0];
    add.k.exclusive = r.exclusive;
    add.k.group = r.geometry.offsets_group;
    const std::string shape = input_shape_of(r);
    if (r.geometry.single_pass) { // the tiles' status cleared, then one pass (segmented_scan_pass.hpp)
        p.scratch = {sop.type, sop.type, dtype::u32};
        pass_binding single;
        single.totals = 0;
        single.offsets = 1;
        single.status = 2;
        single.outputs = {{source::result, 0}};
        p.passes.push_back(status_clear_pass(single, d));
        add.k.group = r.geometry.tile_group;
        add(input, codegen::segmented_pass::single_pass, single, "keyed scan single pass" + shape);
        return p;
    }
    for (dtype t : {sop.type, dtype::u32, sop.type}) p.scratch.push_back(t);
    pass_binding chunk_totals;
    chunk_totals.outputs = {{source::scratch, 0}, {source::scratch, 1}};
    add(input, codegen::segmented_pass::totals, chunk_totals, "keyed scan pass 1" + shape);
    pass_binding offsets;
    offsets.input = pass_binding::input_from::scratch;
    offsets.partials = {0, 1};
    offsets.outputs = {{source::scratch, 2}};
    add(totals, codegen::segmented_pass::offsets, offsets, "keyed scan pass 2");
    pass_binding scan;
    scan.offsets = 2;
    scan.outputs = {{source::result, 0}};
    add(input, codegen::segmented_pass::scan, scan, "keyed scan pass 3" + shape);
    return p;
}

plan::plan plan_reduce_by_key(const keyed_scan_request& r, const codegen::dialect& d) {
    using plan::source;
    const detail::skeleton_operation& sop = *r.op;
    input_kernel input = build_input(*r.input, *r.slot_class, {r.key, sop.type});
    input_kernel heads = partials_input({dtype::u64});
    input_kernel fragments = partials_input({sop.type, dtype::u32, dtype::u64});
    input.kernel.guarded = heads.kernel.guarded = fragments.kernel.guarded = r.guarded;
    const std::vector<combine_op> ops{combine_of(sop)};

    plan::plan p;
    for (dtype t : {dtype::u64, dtype::u64, sop.type, dtype::u32, dtype::u64}) p.scratch.push_back(t);
    pass_adder add{p, d, ops, {}};
    add.k.op = &ops[0];
    add.k.key_out = r.key_out;
    add.k.group = r.geometry.offsets_group;
    const std::string shape = input_shape_of(r);
    pass_binding count_heads;
    count_heads.outputs = {{source::scratch, 0}};
    add(input, codegen::segmented_pass::heads, count_heads, "reduce by key pass 1" + shape);
    pass_binding offsets;
    offsets.input = pass_binding::input_from::scratch;
    offsets.partials = {0};
    offsets.outputs = {{source::scratch, 1}, {source::scratch, 4}};
    add(heads, codegen::segmented_pass::head_offsets, offsets, "reduce by key pass 2");
    pass_binding reduce;
    reduce.offsets = 1;
    reduce.outputs = {
        {source::result, 0}, {source::result, 1}, {source::scratch, 4}, {source::scratch, 2}, {source::scratch, 3}};
    add(input, codegen::segmented_pass::reduce, reduce, "reduce by key pass 3" + shape);
    pass_binding fixup;
    fixup.input = pass_binding::input_from::scratch;
    fixup.partials = {2, 3, 1};
    fixup.outputs = {{source::result, 1}, {source::scratch, 4}};
    add(fragments, codegen::segmented_pass::fixup, fixup, "reduce by key pass 4");
    return p;
}

plan::launch_sizes keyed_scan_launch(const launch::keyed_scan_geometry& g, std::uint64_t n) {
    plan::launch_sizes s;
    const auto n_extent = std::size_t(codegen::pass_extent::n), chunk = std::size_t(codegen::pass_extent::chunk);
    if (g.single_pass) {
        status_clear_sizes(s, 0, g.tiles, g.tile_group);
        s.geometry[1] = {g.tiles * g.tile_group, g.tile_group};
        s.extents[1][n_extent] = n;
        s.extents[1][chunk] = std::uint64_t(g.tile_group) * codegen::tile_items;
        s.elements[1] = n;
        s.scratch_elements[0] = s.scratch_elements[1] = g.tiles;
        s.scratch_elements[2] = g.tiles + 1;
        return s;
    }
    const std::uint64_t launched = (g.items + g.group - 1) / g.group * g.group;
    s.geometry[0] = s.geometry[2] = {launched, g.group};
    s.geometry[1] = {g.offsets_group, g.offsets_group};
    s.extents[0][n_extent] = s.extents[2][n_extent] = n;
    s.extents[0][chunk] = s.extents[2][chunk] = g.chunk;
    s.extents[1][n_extent] = g.items;
    s.extents[1][chunk] = g.offsets_chunk;
    s.elements = {n, g.items, n};
    s.scratch_elements[0] = s.scratch_elements[1] = s.scratch_elements[2] = g.items;
    return s;
}

plan::launch_sizes reduce_by_key_launch(const launch::keyed_scan_geometry& g, std::uint64_t n, std::uint64_t room) {
    plan::launch_sizes s = keyed_scan_launch(g, n);
    s.scratch_elements[3] = g.items;
    s.scratch_elements[4] = 1; // the segments' count
    s.geometry[3] = {1, 1};    // the fixup: one work-item over the chunks
    s.extents[3][std::size_t(codegen::pass_extent::n)] = g.items;
    for (std::size_t c : {2, 3}) s.extents[c][std::size_t(codegen::pass_extent::room)] = room;
    s.elements[3] = g.items;
    return s;
}

} // namespace loom::skeleton
