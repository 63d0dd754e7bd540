// The keyed scan pass emitter; see segmented_scan_pass.hpp.
#include "codegen/segmented_scan_pass.hpp"

#include "codegen/emit_core.hpp"
#include "codegen/lower_neighbour_reads.hpp"
#include "codegen/source_builder.hpp"

namespace loom::codegen {
namespace {

struct pass_text {
    const segmented_scan_kernel& s;
    ir::kernel lowered;
    std::uint32_t key, value;
    std::string t; // the operation's type

    std::string call(const std::string& a, const std::string& b) const {
        return combine_call(*s.op, "loom_combine", a, b, "c");
    }
    // The key and the value of element `index`, as kv and vv.
    void element(source_builder& b, const std::string& index, const std::string& key_type) const {
        write_values(b, lowered, {key, value}, index);
        b.declare_const(key_type, "kv", value_name(key));
        b.declare_const(t, "vv", value_name(value));
    }
};

// The chunk's bounds and the key before it (prev), for the totals and scan passes.
void chunk_start(source_builder& b, const pass_text& p, const std::string& key_type) {
    const dialect& d = b.dialect();
    const std::string index = d.index_type;
    b.declare_const(index, "gid", "(" + index + ")" + d.global_id);
    b.line("if (gid * chunk >= n) return; // past the last chunk: a whole group's padding");
    b.declare(index, "i", "gid * chunk");
    b.declare_const(index, "last", "n - i < chunk ? n : i + chunk");
    b.line(key_type + " prev;");
    b.open("if (i > 0)");
    write_values(b, p.lowered, {p.key}, "(i - 1)");
    b.line("prev = " + value_name(p.key) + ";");
    b.close();
}

void totals_body(source_builder& b, const pass_text& p, const std::string& key_type, const std::string& start) {
    chunk_start(b, p, key_type);
    b.declare(p.t, "carry", "id");
    b.declare("unsigned int", "head_seen", "0u");
    if (p.s.reduce) b.declare(b.dialect().index_type, "heads", "0");
    b.open_for("", "i < last", "++i");
    b.open();
    p.element(b, "i", key_type);
    b.open("if (i == 0 || !(kv == prev))");
    b.line("carry = " + start + ";");
    b.line("head_seen = 1u;");
    if (p.s.reduce) b.line("++heads;");
    b.close();
    b.line("carry = " + p.call("carry", "vv") + ";");
    b.line("prev = kv;");
    b.close();
    b.close();
    b.line("totals[gid] = carry;");
    b.line("flags[gid] = head_seen;");
    if (p.s.reduce) b.line("chunk_heads[gid] = heads;");
}

// reduce_by_key's last pass: each segment's key at its head, its value where it ends; nothing
// where the segments outnumber the room (segmented_scan_pass.hpp).
void reduce_body(source_builder& b, const pass_text& p, const std::string& key_type) {
    const std::string index = b.dialect().index_type;
    b.line("if (count[0] > room) return; // too many segments: the host throws, nothing written");
    chunk_start(b, p, key_type);
    b.declare(p.t, "carry", "offsets[gid]");
    b.declare(index, "o", "before[gid]");
    b.open_for("", "i < last", "++i");
    b.open();
    p.element(b, "i", key_type);
    b.open("if (i == 0 || !(kv == prev))");
    b.line("if (o > 0) values_out[o - 1] = carry; // the segment before ends at i - 1");
    b.line("keys_out[o] = kv;");
    b.line("++o;");
    b.line("carry = id;");
    b.close();
    b.line("carry = " + p.call("carry", "vv") + ";");
    b.line("prev = kv;");
    b.close();
    b.close();
    b.line("if (last == n) values_out[o - 1] = carry; // the last segment");
}

void scan_body(source_builder& b, const pass_text& p, const std::string& key_type, const std::string& start) {
    chunk_start(b, p, key_type);
    b.declare(p.t, "carry", "offsets[gid]");
    b.open_for("", "i < last", "++i");
    b.open();
    p.element(b, "i", key_type);
    b.line("if (i == 0 || !(kv == prev)) carry = " + start + ";");
    if (p.s.exclusive) {
        b.line("out[i] = carry;");
        b.line("carry = " + p.call("carry", "vv") + ";");
    } else {
        b.line("carry = " + p.call("carry", "vv") + ";");
        b.line("out[i] = carry;");
    }
    b.line("prev = kv;");
    b.close();
    b.close();
}

// One group over the totals: a slice per work-item folded (a flagged total replaces the fold),
// the slices' folds scanned across the group the same way in work-group memory, then each slice
// written as the running value before each of its totals.
void offsets_body(source_builder& b, const pass_text& p) {
    const dialect& d = b.dialect();
    const std::string index = d.index_type, w = std::to_string(p.s.group) + "u", q = d.group.array_qualifier;
    b.line(q + " " + p.t + " sv[" + std::to_string(p.s.group) + "];");
    b.line(q + " unsigned int sf[" + std::to_string(p.s.group) + "];");
    b.declare_const("unsigned int", "lid", d.group.local_id);
    b.declare_const(index, "first", "(" + index + ")lid * chunk < n ? (" + index + ")lid * chunk : n");
    b.declare_const(index, "last", "n - first < chunk ? n : first + chunk");
    const bool reduce = p.s.reduce;
    if (reduce) b.line(q + " " + index + " sh[" + std::to_string(p.s.group) + "];");
    b.declare(p.t, "fold", "id");
    b.declare("unsigned int", "flag", "0u");
    if (reduce) b.declare(index, "heads", "0");
    b.open_for(index + " i = first", "i < last", "++i");
    b.line("fold = p1[i] != 0u ? p0[i] : " + p.call("fold", "p0[i]") + ";");
    b.line("flag |= p1[i];");
    if (reduce) b.line("heads += p2[i];");
    b.close();
    b.line("sv[lid] = fold;");
    b.line("sf[lid] = flag;");
    if (reduce) b.line("sh[lid] = heads;");
    b.line(d.group.barrier);
    b.open_for("unsigned int o = 1u", "o < " + w, "o <<= 1");
    b.declare_const(p.t, "left", "lid >= o ? sv[lid - o] : id");
    b.declare_const("unsigned int", "left_flag", "lid >= o ? sf[lid - o] : 0u");
    if (reduce) b.declare_const(index, "left_heads", "lid >= o ? sh[lid - o] : 0");
    b.line(d.group.barrier);
    b.open("if (lid >= o && sf[lid] == 0u)");
    b.line("sv[lid] = " + p.call("left", "sv[lid]") + ";");
    b.line("sf[lid] = left_flag;");
    b.close();
    if (reduce) b.line("sh[lid] += left_heads;");
    b.line(d.group.barrier);
    b.close();
    if (reduce) {
        // The heads before each total, and the segments' count.
        b.declare(index, "before_heads", "lid == 0u ? 0 : sh[lid - 1u]");
        b.open_for(index + " i = first", "i < last", "++i");
        b.line("before[i] = before_heads;");
        b.line("before_heads += p2[i];");
        b.close();
        b.line("if (lid == " + std::to_string(p.s.group - 1) + "u) count[0] = sh[lid];");
    }
    b.declare(p.t, "carry", "lid == 0u ? id : sv[lid - 1u]");
    b.open_for(index + " i = first", "i < last", "++i");
    b.declare_const(p.t, "v", "p0[i]");
    b.declare_const("unsigned int", "f", "p1[i]");
    b.line("out[i] = carry;");
    b.line("carry = f != 0u ? v : " + p.call("carry", "v") + ";");
    b.close();
}

} // namespace

kernel_source emit_segmented_scan_pass(const segmented_scan_kernel& s, const dialect& d) {
    const ir::kernel& input = *s.input;
    std::vector<std::uint32_t> roots;
    if (s.pass != segmented_pass::offsets) roots = {s.key, s.value};
    const std::string index = d.index_type;
    lowered_kernel lowered = lower_neighbour_reads(input, roots, neighbour_form::checked);
    pass_text p{s, std::move(lowered.kernel), s.pass == segmented_pass::offsets ? ir::no_node : lowered.node[s.key],
                s.pass == segmented_pass::offsets ? ir::no_node : lowered.node[s.value], type_name(d, s.op->type)};
    source_builder b(d);
    b.append(pass_prologue(input, {s.op}, d));
    write_combine(b, *s.op, "loom_combine");
    std::string signature = std::string(d.kernel_prefix) + " " + unnamed_kernel + "(" + emit_parameters(input, d);
    parameter_layout layout;
    input_layout(input, layout);
    auto buffer = [&](const std::string& type, const std::string& name, bool written, parameter role) {
        signature += buffer_parameter(d, type, written, true) + name + ", ";
        layout.push_back(role);
    };
    switch (s.pass) {
    case segmented_pass::totals:
        buffer(p.t, "totals", true, {parameter_role::output, 0});
        buffer("unsigned int", "flags", true, {parameter_role::output, 1});
        if (s.reduce) buffer(index, "chunk_heads", true, {parameter_role::output, 2});
        break;
    case segmented_pass::offsets:
        buffer(p.t, "out", true, {parameter_role::output, 0});
        if (s.reduce) {
            buffer(index, "before", true, {parameter_role::output, 1});
            buffer(index, "count", true, {parameter_role::output, 2});
        }
        break;
    case segmented_pass::scan:
        buffer(p.t, "offsets", false, {parameter_role::offsets});
        buffer(p.t, "out", true, {parameter_role::output, 0});
        break;
    case segmented_pass::reduce:
        buffer(p.t, "offsets", false, {parameter_role::offsets});
        buffer(index, "before", false, {parameter_role::totals});
        buffer(type_name(d, s.key_out), "keys_out", true, {parameter_role::output, 0});
        buffer(p.t, "values_out", true, {parameter_role::output, 1});
        buffer(index, "count", false, {parameter_role::output, 2});
        break;
    }
    signature += p.t + " id, " + p.t + " init, ";
    layout.push_back({parameter_role::identity});
    layout.push_back({parameter_role::initial});
    declare_captures(*s.op, 0, "c", d, signature, layout);
    const bool room = s.pass == segmented_pass::reduce;
    b.open(signature + index + " n, " + index + " chunk" + (room ? ", " + index + " room)" : std::string(")")));
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::n)});
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::chunk)});
    if (room) layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::room)});
    write_guard(b, input);
    const std::string start = s.exclusive ? "init" : "id";
    if (s.pass == segmented_pass::offsets) {
        offsets_body(b, p);
    } else {
        const std::string key_type = type_name(d, input.body[s.key].type);
        if (s.pass == segmented_pass::totals)
            totals_body(b, p, key_type, start);
        else if (s.pass == segmented_pass::reduce)
            reduce_body(b, p, key_type);
        else
            scan_body(b, p, key_type, start);
    }
    b.close();
    kernel_source source = name_kernel(b.text(), d);
    source.layout = std::move(layout);
    return source;
}

} // namespace loom::codegen
