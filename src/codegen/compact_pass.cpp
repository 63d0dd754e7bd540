// The stream compaction pass emitter; see compact_pass.hpp.
#include "codegen/compact_pass.hpp"

#include "codegen/combine_op.hpp"
#include "codegen/count_scan.hpp"
#include "codegen/emit_core.hpp"
#include "codegen/lower_neighbour_reads.hpp"
#include "codegen/scan_pass.hpp"
#include "codegen/source_builder.hpp"
#include "codegen/tile_fold.hpp"

namespace loom::codegen {
namespace {

// The chunk's bounds: gid, i (its first element) and last.
void chunk_bounds(source_builder& b) {
    const dialect& d = b.dialect();
    const std::string index = d.index_type;
    b.declare_const(index, "gid", "(" + index + ")" + d.global_id);
    b.line("if (gid * chunk >= n) return; // past the last chunk: a whole group's padding");
    b.declare(index, "i", "gid * chunk");
    b.declare_const(index, "last", "n - i < chunk ? n : i + chunk");
}

void count_body(source_builder& b, const ir::kernel& k, std::uint32_t keep) {
    chunk_bounds(b);
    b.declare(b.dialect().index_type, "kept", "0");
    b.open_for("", "i < last", "++i");
    b.open();
    write_values(b, k, {keep}, "i");
    b.line("kept += " + value_name(keep) + ";");
    b.close();
    b.close();
    b.line("counts[gid] = kept;");
}

void write_body(source_builder& b, const ir::kernel& k, std::uint32_t value, std::uint32_t keep) {
    const std::string index = b.dialect().index_type;
    b.line("if (count[0] > room) return; // too many kept: the host throws, nothing written");
    chunk_bounds(b);
    b.declare(index, "o", "start + before[gid]");
    b.declare_const(index, "end", "start + (gid + 1 < parts ? before[gid + 1] : count[0])");
    b.open_for("", "i < last", "++i");
    b.open();
    write_values(b, k, {value, keep}, "i");
    b.line("if (o < end) out[o] = " + value_name(value) + "; // overwritten by the next kept value unless kept");
    b.line("o += " + value_name(keep) + ";");
    b.close();
    b.close();
}

// The single pass's body (see compact_pass.hpp). The tile's elements are read coalesced (element
// first + j * group + lid by work-item lid), their values kept in registers and their predicates
// put in work-group memory, where each work-item counts its tile_items consecutive ones; the
// group scan of those counts and the look-back give each kept element its place, written back
// over its predicate, and each work-item writes its kept values there.
void single_pass_body(source_builder& b, const ir::kernel& k, std::uint32_t value, std::uint32_t keep, unsigned group) {
    const dialect& d = b.dialect();
    const std::string index = d.index_type, w = std::to_string(group) + "u";
    const unsigned tile = group * tile_items;
    const tile_fold f{
        dtype::u64, index, [](const std::string& a, const std::string& c) { return "(" + a + " + " + c + ")"; },
        group,      "0",   "0"};
    b.line(std::string(d.group.array_qualifier) + " unsigned int s[" + std::to_string(tile + tile / 32) + "];");
    b.line(std::string(d.group.array_qualifier) + " " + index + " ts[" + w + "];");
    take_ticket(b, f);
    b.declare_const(index, "first", "(" + index + ")g * chunk");
    b.declare_const(index, "last", "n - first < chunk ? n : first + chunk");
    const std::string t = type_name(d, k.body[value].type);
    for (unsigned j = 0; j < tile_items; ++j) {
        const std::string at = std::to_string(j);
        b.line(t + " x" + at + ";");
        b.declare("unsigned int", "k" + at, "0u");
        b.open();
        b.declare_const("unsigned int", "q", at + "u * " + w + " + lid");
        b.declare_const(index, "i", "first + q");
        b.open("if (i < last)");
        write_values(b, k, {value, keep}, "i");
        b.line("x" + at + " = " + value_name(value) + ";");
        b.line("k" + at + " = " + value_name(keep) + ";");
        b.close();
        b.line(tile_slot("q") + " = k" + at + ";");
        b.close();
    }
    b.line(d.group.barrier);
    b.line(index + " before, total, carry;");
    b.declare("unsigned int", "kept", "0u"); // this work-item's consecutive elements kept so far
    for (unsigned j = 0; j < tile_items; ++j) {
        b.declare_const("unsigned int", "r" + std::to_string(j), "kept");
        b.line("kept += " + tile_slot("lid * " + std::to_string(tile_items) + "u + " + std::to_string(j) + "u") + ";");
    }
    group_exclusive_scan(b, f, "(" + index + ")kept");
    look_back(b, f);
    for (unsigned j = 0; j < tile_items; ++j)
        b.line(tile_slot("lid * " + std::to_string(tile_items) + "u + " + std::to_string(j) + "u") +
               " = (unsigned int)before + r" + std::to_string(j) + ";");
    b.line(d.group.barrier);
    for (unsigned j = 0; j < tile_items; ++j) {
        const std::string at = std::to_string(j);
        b.line("if (k" + at + ") out[start + carry + " + tile_slot(at + "u * " + w + " + lid") + "] = x" + at + ";");
    }
    b.line("if (lid == 0u && g + 1u == tiles) count[0] = carry + total;");
}

} // namespace

kernel_source emit_compact_pass(const compact_kernel& k, const dialect& d) {
    const ir::kernel& input = *k.input;
    const bool over_chunks = k.pass == compact_pass::offsets;
    std::vector<std::uint32_t> roots;
    if (!over_chunks) roots = {k.value, k.keep};
    lowered_kernel lowered = lower_neighbour_reads(input, roots, neighbour_form::checked);
    source_builder b(d);
    b.append(pass_prologue(input, {}, d));
    std::string signature = std::string(d.kernel_prefix) + " " + unnamed_kernel + "(" + emit_parameters(input, d);
    parameter_layout layout;
    input_layout(input, layout);
    const std::string index = d.index_type;
    auto buffer = [&](const std::string& type, const std::string& name, bool written, parameter role) {
        signature += buffer_parameter(d, type, written, true) + name + ", ";
        layout.push_back(role);
    };
    switch (k.pass) {
    case compact_pass::count: buffer(index, "counts", true, {parameter_role::output, 0}); break;
    case compact_pass::offsets:
        buffer(index, "before", true, {parameter_role::output, 0});
        buffer(index, "count", true, {parameter_role::output, 1});
        break;
    case compact_pass::write:
        buffer(index, "before", false, {parameter_role::offsets});
        buffer(type_name(d, input.body[k.value].type), "out", true, {parameter_role::output, 0});
        buffer(index, "count", false, {parameter_role::output, 1});
        break;
    case compact_pass::single_pass:
        buffer(type_name(d, input.body[k.value].type), "out", true, {parameter_role::output, 0});
        buffer(index, "totals", true, {parameter_role::totals});
        buffer(index, "offsets", true, {parameter_role::offsets});
        buffer(type_name(d, dtype::u32), "status", true, {parameter_role::tile_status});
        buffer(index, "count", true, {parameter_role::output, 1});
        break;
    }
    const bool write = k.pass == compact_pass::write;
    signature += index + " n, " + index + " chunk";
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::n)});
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::chunk)});
    if (write) {
        signature += ", " + index + " parts, " + index + " room, " + index + " start";
        layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::parts)});
        layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::room)});
        layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::start)});
    } else if (k.pass == compact_pass::single_pass) {
        signature += ", " + index + " start";
        layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::start)});
    }
    b.open(signature + ")");
    write_guard(b, input);
    switch (k.pass) {
    case compact_pass::count: count_body(b, lowered.kernel, lowered.node[k.keep]); break;
    case compact_pass::offsets: write_count_scan(b, k.group, "before", "count"); break;
    case compact_pass::write: write_body(b, lowered.kernel, lowered.node[k.value], lowered.node[k.keep]); break;
    case compact_pass::single_pass:
        single_pass_body(b, lowered.kernel, lowered.node[k.value], lowered.node[k.keep], k.group);
        break;
    }
    b.close();
    kernel_source source = name_kernel(b.text(), d);
    source.layout = std::move(layout);
    return source;
}

} // namespace loom::codegen
