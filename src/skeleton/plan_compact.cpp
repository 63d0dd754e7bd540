// The stream compaction planner; see plan_compact.hpp.
#include "skeleton/plan_compact.hpp"

#include <string>

#include "codegen/compact_pass.hpp"
#include "codegen/scan_pass.hpp"
#include "skeleton/scan_kernel.hpp"
#include "skeleton/pass_arguments.hpp"

namespace loom::skeleton {

plan::plan plan_compact(const compact_request& r, const codegen::dialect& d) {
    using plan::source;
    input_kernel input = build_input(*r.input, *r.slot_class, {r.value, dtype::u32});
    input_kernel counts = partials_input({dtype::u64});
    input.kernel.guarded = counts.kernel.guarded = r.guarded;

    plan::plan p;
    p.scratch = {dtype::u64, dtype::u64, dtype::u64, dtype::u32};
    codegen::compact_kernel k;
    k.group = r.geometry.chunks.offsets_group;
    auto add = [&](const input_kernel& in, codegen::compact_pass which, const pass_binding& b, std::string summary) {
        k.input = &in.kernel;
        k.value = in.root;
        k.keep = in.more_roots.empty() ? ir::no_node : in.more_roots[0];
        k.pass = which;
        plan::pass pass;
        pass.kernel = codegen::emit_compact_pass(k, d);
        pass.summary = std::move(summary);
        pass.arguments = pass_arguments(pass.kernel.layout, in, {}, b);
        pass.kind = plan::pass_kind::scan;
        p.passes.push_back(std::move(pass));
    };
    const std::string shape = " (input shape " + std::to_string(r.input->id) + ")";
    if (r.geometry.single_pass) {
        pass_binding single;
        single.outputs = {{source::result, 0}, {source::scratch, 2}};
        single.totals = 0;
        single.offsets = 1;
        single.status = 3;
        p.passes.push_back(status_clear_pass(single, d));
        k.group = r.geometry.tile_group;
        add(input, codegen::compact_pass::single_pass, single, "compaction single pass" + shape);
        return p;
    }
    pass_binding count;
    count.outputs = {{source::scratch, 0}};
    add(input, codegen::compact_pass::count, count, "compaction pass 1" + shape);
    pass_binding offsets;
    offsets.input = pass_binding::input_from::scratch;
    offsets.partials = {0};
    offsets.outputs = {{source::scratch, 1}, {source::scratch, 2}};
    add(counts, codegen::compact_pass::offsets, offsets, "compaction pass 2");
    pass_binding write;
    write.offsets = 1;
    write.outputs = {{source::result, 0}, {source::scratch, 2}};
    add(input, codegen::compact_pass::write, write, "compaction pass 3" + shape);
    return p;
}

plan::launch_sizes compact_launch(const launch::compact_geometry& geometry, std::uint64_t n, std::uint64_t room,
                                  std::uint64_t start) {
    plan::launch_sizes s;
    const auto extent = [](codegen::pass_extent e) { return std::size_t(e); };
    if (geometry.single_pass) { // the tiles' status and the ticket counter after it; then a group a tile
        const std::uint64_t group = geometry.tile_group;
        status_clear_sizes(s, 0, geometry.tiles, geometry.tile_group);
        s.geometry[1] = {geometry.tiles * group, std::uint32_t(group)};
        s.extents[1][extent(codegen::pass_extent::n)] = n;
        s.extents[1][extent(codegen::pass_extent::chunk)] = group * codegen::tile_items;
        s.extents[1][extent(codegen::pass_extent::start)] = start;
        s.elements[1] = n;
        s.scratch_elements[0] = s.scratch_elements[1] = geometry.tiles;
        s.scratch_elements[2] = 1;
        s.scratch_elements[3] = geometry.tiles + 1;
        return s;
    }
    const launch::keyed_scan_geometry& g = geometry.chunks;
    const std::uint64_t launched = (g.items + g.group - 1) / g.group * g.group;
    s.geometry[0] = s.geometry[2] = {launched, g.group};
    s.geometry[1] = {g.offsets_group, g.offsets_group};
    for (std::size_t c : {0, 2}) {
        s.extents[c][extent(codegen::pass_extent::n)] = n;
        s.extents[c][extent(codegen::pass_extent::chunk)] = g.chunk;
        s.elements[c] = n;
    }
    s.extents[1][extent(codegen::pass_extent::n)] = g.items;
    s.extents[1][extent(codegen::pass_extent::chunk)] = g.offsets_chunk;
    s.elements[1] = g.items;
    s.extents[2][extent(codegen::pass_extent::parts)] = g.items;
    s.extents[2][extent(codegen::pass_extent::room)] = room;
    s.extents[2][extent(codegen::pass_extent::start)] = start;
    s.scratch_elements[0] = s.scratch_elements[1] = g.items;
    s.scratch_elements[2] = 1;
    return s;
}

} // namespace loom::skeleton
