// The keyed scan pass emitter; see segmented_scan_pass.hpp.
#include "codegen/segmented_scan_pass.hpp"

#include "codegen/count_scan.hpp"
#include "codegen/emit_core.hpp"
#include "codegen/lower_neighbour_reads.hpp"
#include "codegen/scan_pass.hpp"
#include "codegen/source_builder.hpp"
#include "codegen/tile_fold.hpp"

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
    b.open_for("", "i < last", "++i");
    b.open();
    p.element(b, "i", key_type);
    b.open("if (i == 0 || !(kv == prev))");
    b.line("carry = " + start + ";");
    b.line("head_seen = 1u;");
    b.close();
    b.line("carry = " + p.call("carry", "vv") + ";");
    b.line("prev = kv;");
    b.close();
    b.close();
    b.line("totals[gid] = carry;");
    b.line("flags[gid] = head_seen;");
}

// reduce_by_key's passes (segmented_scan_pass.hpp).

// heads: each chunk's count of segment starts, from its keys alone.
void heads_body(source_builder& b, const pass_text& p, const std::string& key_type) {
    chunk_start(b, p, key_type);
    b.declare(b.dialect().index_type, "heads", "0");
    b.open_for("", "i < last", "++i");
    b.open();
    write_values(b, p.lowered, {p.key}, "i");
    b.declare_const(key_type, "kv", value_name(p.key));
    b.line("if (i == 0 || !(kv == prev)) ++heads;");
    b.line("prev = kv;");
    b.close();
    b.close();
    b.line("chunk_heads[gid] = heads;");
}

// head_offsets: one group's exclusive scan of the chunks' starts into the starts before each chunk,
// and their total, the segments' count (codegen/count_scan.hpp).
void head_offsets_body(source_builder& b, const pass_text& p) { write_count_scan(b, p.s.group, "before", "count"); }

// reduce: each chunk writes the keys of the segments starting in it and the values of those
// ending in it; the value of its last segment so far, and the fold of its elements before its
// first start (the fragment of a segment started in an earlier chunk: the whole chunk when none
// starts in it), which the fixup pass adds in. Nothing when the segments outnumber the room.
void reduce_body(source_builder& b, const pass_text& p, const std::string& key_type) {
    const std::string index = b.dialect().index_type;
    b.line("if (count[0] > room) return; // too many segments: the host throws, nothing written");
    chunk_start(b, p, key_type);
    b.declare(index, "o", "before[gid]");
    b.declare(p.t, "carry", "id");
    b.declare("unsigned int", "open", "1u");     // before the chunk's first segment start
    b.declare("unsigned int", "fragment", "0u"); // elements before it
    b.open_for("", "i < last", "++i");
    b.open();
    p.element(b, "i", key_type);
    b.open("if (i == 0 || !(kv == prev))");
    b.open("if (open != 0u)");
    b.line("fragments[gid] = carry;");
    b.line("open = 0u;");
    b.next("else");
    b.line("values_out[o - 1] = carry; // the segment before ends at i - 1");
    b.close();
    b.line("keys_out[o] = kv;");
    b.line("++o;");
    b.line("carry = id;");
    b.next("else if (open != 0u)");
    b.line("fragment = 1u;");
    b.close();
    b.line("carry = " + p.call("carry", "vv") + ";");
    b.line("prev = kv;");
    b.close();
    b.close();
    b.line("if (open != 0u) fragments[gid] = carry; // no start in the chunk: all of it continues a segment");
    b.line("else values_out[o - 1] = carry;");
    b.line("has_fragment[gid] = fragment;");
}

// fixup: one work-item adds each chunk's fragment, in order, to the segment it continues.
void fixup_body(source_builder& b, const pass_text& p) {
    const std::string index = b.dialect().index_type;
    b.line("if (count[0] > room) return;");
    b.open_for(index + " c = 1", "c < n", "++c");
    b.open("if (p1[c] != 0u)");
    b.declare_const(index, "s", "p2[c] - 1");
    b.line("values_out[s] = " + p.call("values_out[s]", "p0[c]") + ";");
    b.close();
    b.close();
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

// The group's inclusive scan of its work-items' (flag, value) pairs in work-group memory `values`
// and `flags` (one each a work-item, written by the caller): a flagged value replaces what came
// before it. Hillis-Steele, two barriers a step; a barrier before the first.
void flagged_group_scan(source_builder& b, const pass_text& p, const std::string& values, const std::string& flags) {
    const dialect& d = b.dialect();
    b.line(d.group.barrier);
    b.open_for("unsigned int o = 1u", "o < " + std::to_string(p.s.group) + "u", "o <<= 1");
    b.declare_const(p.t, "left", "lid >= o ? " + values + "[lid - o] : id");
    b.declare_const("unsigned int", "left_flag", "lid >= o ? " + flags + "[lid - o] : 0u");
    b.line(d.group.barrier);
    b.open("if (lid >= o && " + flags + "[lid] == 0u)");
    b.line(values + "[lid] = " + p.call("left", values + "[lid]") + ";");
    b.line(flags + "[lid] = left_flag;");
    b.close();
    b.line(d.group.barrier);
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
    b.declare(p.t, "fold", "id");
    b.declare("unsigned int", "flag", "0u");
    b.open_for(index + " i = first", "i < last", "++i");
    b.line("fold = p1[i] != 0u ? p0[i] : " + p.call("fold", "p0[i]") + ";");
    b.line("flag |= p1[i];");
    b.close();
    b.line("sv[lid] = fold;");
    b.line("sf[lid] = flag;");
    flagged_group_scan(b, p, "sv", "sf");
    b.declare(p.t, "carry", "lid == 0u ? id : sv[lid - 1u]");
    b.open_for(index + " i = first", "i < last", "++i");
    b.declare_const(p.t, "v", "p0[i]");
    b.declare_const("unsigned int", "f", "p1[i]");
    b.line("out[i] = carry;");
    b.line("carry = f != 0u ? v : " + p.call("carry", "v") + ";");
    b.close();
}

// The single pass (segmented_scan_pass.hpp). Each element's value and whether it heads a segment
// go to work-group memory (read coalesced: element first + j * group + lid by work-item lid); each
// work-item runs its tile_items consecutive ones (r<j>: the running value, from `start` at a head,
// or from the work-item's first element before its first head; seen<j>: a head at or before j);
// the group scans the work-items' (seen, running value) pairs as the offsets pass does; the
// look-back gives the running value before the tile, each work-item's outputs are put in place of
// its values, and the tile is written out coalesced.
void single_pass_body(source_builder& b, const pass_text& p, const std::string& key_type, const std::string& start) {
    const segmented_scan_kernel& s = p.s;
    const dialect& d = b.dialect();
    const std::string index = d.index_type, w = std::to_string(s.group) + "u", t = p.t, q = d.group.array_qualifier;
    const unsigned tile = s.group * tile_items;
    const std::string slots = std::to_string(tile + tile / 32);
    b.line(q + " " + t + " s[" + slots + "];");        // values, then outputs
    b.line(q + " unsigned int heads[" + slots + "];"); // 1 where an element heads a segment
    b.line(q + " " + t + " tv[" + w + "];");           // the group's scan of running values
    b.line(q + " unsigned int th[" + w + "];");        // ... and of heads seen
    const tile_fold f{s.op->type, t,    [&p](const std::string& a, const std::string& c) { return p.call(a, c); },
                      s.group,    "id", "id"};
    take_ticket(b, f);
    b.declare_const(index, "first", "(" + index + ")g * chunk");
    b.declare_const(index, "last", "n - first < chunk ? n : first + chunk");
    b.open_for("unsigned int j = 0u", "j < " + std::to_string(tile_items) + "u", "++j");
    b.declare_const("unsigned int", "q", "j * " + w + " + lid");
    b.declare_const(index, "i", "first + q");
    b.declare(t, "x", "id"); // past the last element: the identity, heading nothing
    b.declare("unsigned int", "h", "0u");
    b.open("if (i < last)");
    b.line(key_type + " prev;");
    b.open("if (i > 0)");
    write_values(b, p.lowered, {p.key}, "(i - 1)");
    b.line("prev = " + value_name(p.key) + ";");
    b.close();
    b.open();
    p.element(b, "i", key_type);
    b.line("x = vv;");
    b.line("h = i == 0 || !(kv == prev) ? 1u : 0u;");
    b.close();
    b.close();
    b.line(tile_slot("q") + " = x;");
    b.line(tile_slot("q", "heads") + " = h;");
    b.close();
    b.line(d.group.barrier);
    for (unsigned j = 0; j < tile_items; ++j) {
        const std::string at = "lid * " + std::to_string(tile_items) + "u + " + std::to_string(j) + "u",
                          n = std::to_string(j);
        b.declare_const("unsigned int", "h" + n, tile_slot(at, "heads"));
        const std::string before = j == 0 ? tile_slot(at) : p.call("r" + std::to_string(j - 1), tile_slot(at));
        b.declare_const(t, "r" + n, "h" + n + " ? " + p.call(start, tile_slot(at)) + " : " + before);
        b.declare_const("unsigned int", "seen" + n, j == 0 ? "h0" : "seen" + std::to_string(j - 1) + " | h" + n);
    }
    const std::string last_j = std::to_string(tile_items - 1);
    b.line("tv[lid] = r" + last_j + ";");
    b.line("th[lid] = seen" + last_j + ";");
    flagged_group_scan(b, p, "tv", "th");
    b.declare_const(t, "before", "lid == 0u ? id : tv[lid - 1u]");
    b.declare_const("unsigned int", "head_before", "lid == 0u ? 0u : th[lid - 1u]");
    b.declare_const(t, "total", "tv[" + w + " - 1u]");
    b.declare_const("unsigned int", "tile_head", "th[" + w + " - 1u]");
    b.line(t + " carry;");
    look_back(b, f, "tile_head != 0u");
    // The running value before the work-item's first element.
    b.declare_const(t, "c", "head_before != 0u ? before : lid == 0u ? carry : " + p.call("carry", "before"));
    for (unsigned j = 0; j < tile_items; ++j) {
        const std::string n = std::to_string(j), at = "lid * " + std::to_string(tile_items) + "u + " + n + "u";
        auto inclusive = [&](unsigned k) {
            const std::string m = std::to_string(k);
            return "(seen" + m + " ? r" + m + " : " + p.call("c", "r" + m) + ")";
        };
        const std::string value =
            !s.exclusive ? inclusive(j) : "(h" + n + " ? " + start + " : " + (j == 0 ? "c" : inclusive(j - 1)) + ")";
        b.line(tile_slot(at) + " = " + value + ";");
    }
    b.line(d.group.barrier);
    b.open_for("unsigned int j = 0u", "j < " + std::to_string(tile_items) + "u", "++j");
    b.declare_const("unsigned int", "q", "j * " + w + " + lid");
    b.line("if (first + q < last) out[first + q] = " + tile_slot("q") + ";");
    b.close();
}

} // namespace

kernel_source emit_segmented_scan_pass(const segmented_scan_kernel& s, const dialect& d) {
    const ir::kernel& input = *s.input;
    // The passes over the totals read partials, not the keys and values.
    const bool over_chunks =
        s.pass == segmented_pass::offsets || s.pass == segmented_pass::head_offsets || s.pass == segmented_pass::fixup;
    std::vector<std::uint32_t> roots;
    if (!over_chunks) roots = {s.key, s.value};
    lowered_kernel lowered = lower_neighbour_reads(input, roots, neighbour_form::checked);
    pass_text p{s, std::move(lowered.kernel), over_chunks ? ir::no_node : lowered.node[s.key],
                over_chunks ? ir::no_node : lowered.node[s.value], type_name(d, s.op->type)};
    const std::string index = d.index_type;
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
        break;
    case segmented_pass::offsets: buffer(p.t, "out", true, {parameter_role::output, 0}); break;
    case segmented_pass::scan:
        buffer(p.t, "offsets", false, {parameter_role::offsets});
        buffer(p.t, "out", true, {parameter_role::output, 0});
        break;
    case segmented_pass::heads: buffer(index, "chunk_heads", true, {parameter_role::output, 0}); break;
    case segmented_pass::head_offsets:
        buffer(index, "before", true, {parameter_role::output, 0});
        buffer(index, "count", true, {parameter_role::output, 1});
        break;
    case segmented_pass::reduce:
        buffer(index, "before", false, {parameter_role::offsets});
        buffer(type_name(d, s.key_out), "keys_out", true, {parameter_role::output, 0});
        buffer(p.t, "values_out", true, {parameter_role::output, 1});
        buffer(index, "count", false, {parameter_role::output, 2});
        buffer(p.t, "fragments", true, {parameter_role::output, 3});
        buffer("unsigned int", "has_fragment", true, {parameter_role::output, 4});
        break;
    case segmented_pass::fixup:
        buffer(p.t, "values_out", true, {parameter_role::output, 0});
        buffer(index, "count", false, {parameter_role::output, 1});
        break;
    case segmented_pass::single_pass:
        buffer(p.t, "out", true, {parameter_role::output, 0});
        buffer(p.t, "totals", true, {parameter_role::totals});
        buffer(p.t, "offsets", true, {parameter_role::offsets});
        buffer("unsigned int", "status", true, {parameter_role::tile_status});
        break;
    }
    signature += p.t + " id, " + p.t + " init, ";
    layout.push_back({parameter_role::identity});
    layout.push_back({parameter_role::initial});
    declare_captures(*s.op, 0, "c", d, signature, layout);
    const bool room = s.pass == segmented_pass::reduce || s.pass == segmented_pass::fixup;
    b.open(signature + index + " n, " + index + " chunk" + (room ? ", " + index + " room)" : std::string(")")));
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::n)});
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::chunk)});
    if (room) layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::room)});
    write_guard(b, input);
    const std::string start = s.exclusive ? "init" : "id";
    switch (s.pass) {
    case segmented_pass::offsets: offsets_body(b, p); break;
    case segmented_pass::head_offsets: head_offsets_body(b, p); break;
    case segmented_pass::fixup: fixup_body(b, p); break;
    default: {
        const std::string key_type = type_name(d, input.body[s.key].type);
        if (s.pass == segmented_pass::single_pass)
            single_pass_body(b, p, key_type, start);
        else if (s.pass == segmented_pass::totals)
            totals_body(b, p, key_type, start);
        else if (s.pass == segmented_pass::scan)
            scan_body(b, p, key_type, start);
        else if (s.pass == segmented_pass::heads)
            heads_body(b, p, key_type);
        else
            reduce_body(b, p, key_type);
    }
    }
    b.close();
    kernel_source source = name_kernel(b.text(), d);
    source.layout = std::move(layout);
    return source;
}

} // namespace loom::codegen
