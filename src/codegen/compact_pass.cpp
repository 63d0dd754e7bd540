// The stream compaction pass emitter; see compact_pass.hpp.
#include "codegen/compact_pass.hpp"

#include "codegen/combine_op.hpp"
#include "codegen/count_scan.hpp"
#include "codegen/emit_core.hpp"
#include "codegen/lower_neighbour_reads.hpp"
#include "codegen/source_builder.hpp"

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
    }
    b.open(signature + ")");
    write_guard(b, input);
    switch (k.pass) {
    case compact_pass::count: count_body(b, lowered.kernel, lowered.node[k.keep]); break;
    case compact_pass::offsets: write_count_scan(b, k.group, "before", "count"); break;
    case compact_pass::write: write_body(b, lowered.kernel, lowered.node[k.value], lowered.node[k.keep]); break;
    }
    b.close();
    kernel_source source = name_kernel(b.text(), d);
    source.layout = std::move(layout);
    return source;
}

} // namespace loom::codegen
