// The scan pass emitter; see scan_pass.hpp.
#include "codegen/scan_pass.hpp"

#include <algorithm>

#include "codegen/complex_helpers.hpp"
#include "codegen/vector_map.hpp"
#include "codegen/vector_types.hpp"
#include "codegen/emit_core.hpp"
#include "codegen/tile_fold.hpp"
#include "codegen/lower_neighbour_reads.hpp"
#include "codegen/source_builder.hpp"
#include "loom/error.hpp"
#include "ir/promotion.hpp"

namespace loom::codegen {
namespace {

std::string lane(int l) { return "e" + std::to_string(l); }       // the eight values of a step
std::string lane_total(int l) { return "t" + std::to_string(l); } // pass 1's per-lane totals

// What the pass writes and how it names it.
struct pass_text {
    const scan_pass_kernel& s;
    ir::kernel input;   // the output parameter, when there is one, marked written
    ir::kernel lowered; // the input with its neighbour reads lowered: what is printed
    std::uint32_t root; // the value scanned, in `lowered`
    std::string t;      // the operation's type
    std::string out;    // where the outputs go

    // op(a, b), captures passed as c0, c1, ...
    std::string call(const std::string& a, const std::string& b) const {
        return combine_call(*s.op, "loom_combine", a, b, "c");
    }
    std::string root_value() const { return value_name(root); }
    void values(source_builder& b, const std::string& index = "i") const { write_values(b, lowered, {root}, index); }
};

// The inclusive step of pass 3 over the eight loaded values e0..e7, written as the
// handwritten float8 scan is: every statement group is the same operation on all eight
// lanes (lanes below a shift combine with the identity), so the compiler's SLP
// vectorizer turns each group into one vector operation plus a lane shuffle, and the
// eight stores into one. Scalar statements that skip lanes (the natural form) came out
// as a long run of mixed scalar and shuffle instructions on PoCL/LLVM 15.
void inclusive_block_prefix(source_builder& b, const pass_text& p) {
    for (int step = 1; step < 8; step *= 2) // descending, so each lane reads its left neighbour's old value
        for (int l = 7; l >= 0; --l) b.line(lane(l) + " = " + p.call(l >= step ? lane(l - step) : "id", lane(l)) + ";");
    for (int l = 0; l < 8; ++l) b.line(lane(l) + " = " + p.call("carry", lane(l)) + ";");
    for (int l = 0; l < 8; ++l) b.line(p.out + "[i + " + std::to_string(l) + "] = " + lane(l) + ";");
    b.line("carry = e7;");
}

// The exclusive step, for an in-place pass 3 only (see chunked_scan_body): the prefix of
// e0..e7 on the lanes that have a left neighbour, then each output is the carry combined
// with the prefix one lane to its left.
void exclusive_block_prefix(source_builder& b, const pass_text& p) {
    for (int step = 1; step < 8; step *= 2)
        for (int l = 7; l >= step; --l) b.line(lane(l) + " = " + p.call(lane(l - step), lane(l)) + ";");
    b.line(p.out + "[i + 0] = carry;");
    for (int l = 1; l < 8; ++l)
        b.line(p.out + "[i + " + std::to_string(l) + "] = " + p.call("carry", lane(l - 1)) + ";");
    b.line("carry = " + p.call("carry", "e7") + ";");
}

// The chunked layout's body (see scan_pass.hpp), after the signature. An exclusive
// pass 3 that does not write over its input is shifted: it writes the chunk's first
// output (the carry alone), then scans inclusively with output j reading input j - 1,
// so it runs the inclusive step. In place it cannot (a step would overwrite the input
// the next step reads), and keeps the exclusive step.
void chunked_scan_body(source_builder& b, const pass_text& p) {
    const scan_pass_kernel& s = p.s;
    const dialect& d = b.dialect();
    const std::string index = d.index_type, w = std::to_string(s.group) + "u", t = p.t;
    if (s.pass == scan_pass::scan_totals) { // one work-item, in order
        b.line("if (" + std::string(d.group.group_id) + " != 0u || " + d.group.local_id + " != 0u) return;");
        b.declare(t, "carry", "init");
        b.open_for(index + " i = 0", "i < n", "++i");
        p.values(b);
        b.line(p.out + "[i] = carry;");
        b.line("carry = " + p.call("carry", p.root_value()) + ";");
        b.close();
        return;
    }
    const bool in_place = s.out_param != no_output_param;
    const bool shifted = s.pass == scan_pass::scan_output && s.exclusive && !in_place;
    // Pass 1 of a commutative operation folds lane l's values (elements l, l + 8, ... of the
    // chunk) into t<l>, eight independent chains the compiler turns into one vector
    // operation a step, as a handwritten float8 sum is; the tree keeps the operands' order
    // but stays scalar, and was markedly slower on PoCL.
    const bool lanes = s.pass == scan_pass::chunk_totals && commutative(*s.op);
    const std::string from = shifted ? " - 1" : ""; // where output i + l reads its input: i + l + from
    b.declare_const(index, "gid", "(" + index + ")" + d.group.group_id + " * " + w + " + " + d.group.local_id);
    b.declare(index, "i", "gid * chunk < n ? gid * chunk : n");
    b.declare_const(index, "last", "n - i < chunk ? n : i + chunk");
    b.declare(t, "carry", s.pass == scan_pass::scan_output ? p.call("init", "offsets[gid]") : "id");
    if (shifted) {
        b.open("if (i < last)");
        b.line(p.out + "[i] = carry;");
        b.line("++i;");
        b.close();
    }
    if (lanes) b.line(t + " t0 = id, t1 = id, t2 = id, t3 = id, t4 = id, t5 = id, t6 = id, t7 = id;");
    b.open_for("", "i + 8 <= last", "i += 8");
    b.line(t + " e0, e1, e2, e3, e4, e5, e6, e7;");
    for (int l = 0; l < 8; ++l) {
        b.open();
        p.values(b, "(i + " + std::to_string(l) + from + ")");
        b.line(lane(l) + " = " + p.root_value() + ";");
        b.close();
    }
    if (s.pass == scan_pass::chunk_totals && lanes) // each value into its lane's total
        for (int l = 0; l < 8; ++l) b.line(lane_total(l) + " = " + p.call(lane_total(l), lane(l)) + ";");
    else if (s.pass == scan_pass::chunk_totals) // the eight in order, as a tree: one step of the chain
        b.line("carry = " +
               p.call("carry", p.call(p.call(p.call("e0", "e1"), p.call("e2", "e3")),
                                      p.call(p.call("e4", "e5"), p.call("e6", "e7")))) +
               ";");
    else if (s.exclusive && !shifted)
        exclusive_block_prefix(b, p);
    else
        inclusive_block_prefix(b, p);
    b.close();
    if (lanes) { // in order: the form LLVM's SLP vectorizer keeps in one vector (see reduce_pass.cpp)
        std::string folded = lane_total(0);
        for (int l = 1; l < 8; ++l) folded = p.call(folded, lane_total(l));
        b.line("carry = " + folded + ";");
    }
    b.open_for("", "i < last", "++i");
    p.values(b, shifted ? "(i - 1)" : "i");
    if (s.pass == scan_pass::chunk_totals) {
        b.line("carry = " + p.call("carry", p.root_value()) + ";");
    } else if (s.exclusive && !shifted) {
        b.line(p.out + "[i] = carry;");
        b.line("carry = " + p.call("carry", p.root_value()) + ";");
    } else {
        b.line("carry = " + p.call("carry", p.root_value()) + ";");
        b.line(p.out + "[i] = carry;");
    }
    b.close();
    if (s.pass == scan_pass::chunk_totals) b.line("totals[gid] = carry;");
}

// The tile folds' view of this pass: the operation's type and call, the call's init, its identity.
tile_fold fold_of(const pass_text& p) {
    return {p.s.op->type, p.t,    [&p](const std::string& a, const std::string& b) { return p.call(a, b); },
            p.s.group,    "init", "id"};
}

// The single-pass layout's body (see scan_pass.hpp), after the signature. A tile is group *
// tile_items elements: read coalesced (element first + j * group + lid) into work-group memory,
// each work-item scans its tile_items consecutive ones in registers, the work-items' totals are
// scanned across the group (group_exclusive_scan), the look-back finds the tile's carry, each
// work-item writes its prefixed values back, and the tile is written out coalesced. One value
// a work-item (a Hillis-Steele scan of the elements themselves) takes 18 barriers for 256
// elements, and ncu found such passes barrier-bound on a GPU (docs/skeleton-scan.md).
void single_pass_body(source_builder& b, const pass_text& p) {
    const scan_pass_kernel& s = p.s;
    const dialect& d = b.dialect();
    const std::string index = d.index_type, w = std::to_string(s.group) + "u", t = p.t;
    const unsigned tile = s.group * tile_items;
    const std::string k = std::to_string(tile_items) + "u";
    b.line(std::string(d.group.array_qualifier) + " " + t + " s[" + std::to_string(tile + tile / 32) + "];");
    b.line(std::string(d.group.array_qualifier) + " " + t + " ts[" + std::to_string(s.group) + "];");
    take_ticket(b, fold_of(p));
    b.declare_const(index, "first", "(" + index + ")g * chunk");
    b.declare_const(index, "last", "n - first < chunk ? n : first + chunk");
    b.line(t + " before, total, carry;");
    // A whole tile of a plain element-wise input, its buffers and the output aligned, moves as
    // vectors (vector_map.hpp): a GPU reads and writes 16 bytes a thread at close to its copy
    // bandwidth, 4 bytes short of it. Other tiles move element by element.
    const std::vector<bool> live = live_nodes(p.lowered, {p.root});
    const unsigned lanes = vector_lanes(p.lowered, live, s.op->type);
    const std::string vectors = std::to_string(tile_items / std::max(lanes, 1u)) + "u", l = std::to_string(lanes);
    if (lanes) {
        const std::string out_bytes = std::to_string(size_of(s.op->type) * lanes);
        b.declare_const("int", "vector_tile",
                        "last - first == chunk && ((" + misalignment(p.lowered, vector_loads(p.lowered, live), lanes) +
                            ") | ((size_t)" + p.out + " % " + out_bytes + ")) == 0");
        b.open("if (vector_tile)");
        b.open_for("unsigned int j = 0u", "j < " + vectors, "++j");
        b.declare_const("unsigned int", "q", "j * " + w + " + lid"); // the tile's q-th vector
        b.declare_const(index, "loom_first", "first + (" + index + ")q * " + l + "u");
        declare_vector_loads(b, p.lowered, vector_loads(p.lowered, live), lanes);
        for (unsigned lane = 0; lane < lanes; ++lane) {
            b.open();
            b.declare_const(index, "i", "loom_first + " + std::to_string(lane) + "u");
            write_lane_values(b, p.lowered, live, lane);
            b.line(tile_slot("q * " + l + "u + " + std::to_string(lane) + "u") + " = " + p.root_value() + ";");
            b.close();
        }
        b.close();
        b.next("else");
    }
    b.open_for("unsigned int j = 0u", "j < " + k, "++j");
    b.declare_const("unsigned int", "q", "j * " + w + " + lid");
    b.declare_const(index, "i", "first + q");
    b.declare(t, "x", "id");
    b.open("if (i < last)");
    p.values(b);
    b.line("x = " + p.root_value() + ";");
    b.close();
    b.line(tile_slot("q") + " = x;");
    b.close();
    if (lanes) b.close();
    b.line(d.group.barrier);
    b.line(t + " " + lane(0) + " = " + tile_slot("lid * " + k) + ";");
    for (unsigned j = 1; j < tile_items; ++j)
        b.line(t + " " + lane(int(j)) + " = " +
               p.call(lane(int(j) - 1), tile_slot("lid * " + k + " + " + std::to_string(j) + "u")) + ";");
    group_exclusive_scan(b, fold_of(p), lane(int(tile_items) - 1));
    look_back(b, fold_of(p));
    b.declare_const(t, "prefix", p.call("carry", "before"));
    for (unsigned j = 0; j < tile_items; ++j)
        b.line(tile_slot("lid * " + k + " + " + std::to_string(j) + "u") + " = " + p.call("prefix", lane(int(j))) +
               ";");
    b.line(d.group.barrier);
    if (lanes) {
        const dtype vector = vector_dtype(s.op->type, lanes);
        b.open("if (vector_tile)");
        b.open_for("unsigned int j = 0u", "j < " + vectors, "++j");
        b.declare_const("unsigned int", "e", "(j * " + w + " + lid) * " + l + "u"); // its first element
        std::vector<std::string> parts;
        for (unsigned lane = 0; lane < lanes; ++lane) {
            const std::string at = "e + " + std::to_string(lane) + "u";
            parts.push_back(!s.exclusive ? tile_slot(at)
                            : lane == 0  ? "(e == 0u ? carry : " + tile_slot("e - 1u") + ")"
                                         : tile_slot("e + " + std::to_string(lane - 1) + "u"));
        }
        b.line("*(" + buffer_parameter(d, type_name(d, vector), true, false) + ")(" + p.out +
               " + first + e) = " + vector_value(d, vector, parts) + ";");
        b.close();
        b.next("else");
    }
    b.open_for("unsigned int j = 0u", "j < " + k, "++j");
    b.declare_const("unsigned int", "q", "j * " + w + " + lid");
    b.line("if (first + q < last) " + p.out +
           "[first + q] = " + (s.exclusive ? "q == 0u ? carry : " + tile_slot("q - 1u") : tile_slot("q")) + ";");
    b.close();
    if (lanes) b.close();
}

} // namespace

kernel_source emit_scan_pass(const scan_pass_kernel& s, const dialect& d) {
    lowered_kernel lowered = lower_neighbour_reads(*s.input, {s.root}, neighbour_form::checked);
    pass_text p{s, *s.input, std::move(lowered.kernel), lowered.node[s.root], type_name(d, s.op->type), "out"};
    if (s.out_param != no_output_param) {
        p.input.params[s.out_param].written = true;
        if (s.pass != scan_pass::chunk_totals) p.out = "p" + std::to_string(s.out_param);
    }
    source_builder b(d);
    b.append(pass_prologue(p.input, {s.op}, d));
    write_combine(b, *s.op, "loom_combine");
    std::string signature = std::string(d.kernel_prefix) + " " + unnamed_kernel + "(" + emit_parameters(p.input, d);
    parameter_layout layout;
    input_layout(p.input, layout);
    auto buffer = [&](const std::string& name, bool written, parameter_role role) {
        signature += buffer_parameter(d, p.t, written, true) + name + ", ";
        layout.push_back({role});
    };
    if (s.pass != scan_pass::chunk_totals && s.out_param == no_output_param)
        buffer("out", true, parameter_role::output);
    if (s.pass == scan_pass::scan_output) buffer("offsets", false, parameter_role::offsets);
    if (s.pass == scan_pass::chunk_totals) buffer("totals", true, parameter_role::totals);
    if (s.pass == scan_pass::single_pass) {
        buffer("totals", true, parameter_role::totals);
        buffer("offsets", true, parameter_role::offsets);
        signature += buffer_parameter(d, type_name(d, dtype::u32), true, true) + "status, ";
        layout.push_back({parameter_role::tile_status});
    }
    signature += p.t + " id, " + p.t + " init, ";
    layout.push_back({parameter_role::identity});
    layout.push_back({parameter_role::initial});
    declare_captures(*s.op, 0, "c", d, signature, layout);
    const std::string index = d.index_type;
    b.open(signature + index + " chunk, " + index + " n)");
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::chunk)});
    layout.push_back({parameter_role::extent, std::uint32_t(pass_extent::n)});
    write_guard(b, p.input);
    if (s.chunked != (s.pass != scan_pass::single_pass))
        throw error("loom: internal error: a scan's three passes are chunked, its single pass tiled");
    if (s.chunked)
        chunked_scan_body(b, p);
    else
        single_pass_body(b, p);
    b.close();
    kernel_source source = name_kernel(b.text(), d);
    source.layout = std::move(layout);
    return source;
}

kernel_source emit_status_clear(const dialect& d) {
    source_builder b(d);
    const std::string index = d.index_type;
    b.open(std::string(d.kernel_prefix) + " " + unnamed_kernel + "(" +
           buffer_parameter(d, type_name(d, dtype::u32), true, true) + "status, " + index + " n)");
    b.open_for(index + " i = " + d.global_id, "i < n", "i += " + std::string(d.global_size));
    b.line("status[i] = 0u;");
    b.close();
    b.close();
    kernel_source source = name_kernel(b.text(), d);
    source.layout = {{parameter_role::tile_status}, {parameter_role::extent, std::uint32_t(pass_extent::n)}};
    return source;
}

} // namespace loom::codegen
