// The scan pass emitter; see scan_kernel.hpp.
#include "skeleton/scan_kernel.hpp"

#include <functional>

#include "codegen/emit.hpp"

namespace loom::skeleton {

namespace {

using combine_text = std::function<std::string(const std::string&, const std::string&)>;

std::string lane(int l) { return "e" + std::to_string(l); } // the eight values of a step
std::string lane_total(int l) { return "t" + std::to_string(l); } // pass 1's per-lane totals

// The inclusive step of pass 3 over the eight loaded values e0..e7, written as the
// handwritten float8 scan is: every statement group is the same operation on all eight
// lanes (lanes below a shift combine with the identity), so the compiler's SLP
// vectorizer turns each group into one vector operation plus a lane shuffle, and the
// eight stores into one. Scalar statements that skip lanes (the natural form) came out
// as ~40 mixed scalar/shuffle instructions per eight elements on PoCL/LLVM 15.
std::string inclusive_block_prefix(const std::string& out, const combine_text& call) {
    std::string s;
    for (int step = 1; step < 8; step *= 2) // descending, so each lane reads its left neighbour's old value
        for (int l = 7; l >= 0; --l) s += "        " + lane(l) + " = " + call(l >= step ? lane(l - step) : "id", lane(l)) + ";\n";
    for (int l = 0; l < 8; ++l) s += "        " + lane(l) + " = " + call("carry", lane(l)) + ";\n";
    for (int l = 0; l < 8; ++l) s += "        " + out + "[i + " + std::to_string(l) + "] = " + lane(l) + ";\n";
    return s + "        carry = e7;\n";
}

// The exclusive step, for an in-place pass 3 only (see chunked_scan_body): the prefix of
// e0..e7 on the lanes that have a left neighbour, then each output is the carry combined
// with the prefix one lane to its left.
std::string exclusive_block_prefix(const std::string& out, const combine_text& call) {
    std::string s;
    for (int step = 1; step < 8; step *= 2)
        for (int l = 7; l >= step; --l) s += "        " + lane(l) + " = " + call(lane(l - step), lane(l)) + ";\n";
    s += "        " + out + "[i + 0] = carry;\n";
    for (int l = 1; l < 8; ++l) s += "        " + out + "[i + " + std::to_string(l) + "] = " + call("carry", lane(l - 1)) + ";\n";
    return s + "        carry = " + call("carry", "e7") + ";\n";
}

// The chunked layout's body (see scan_kernel.hpp), after the signature. An exclusive
// pass 3 that does not write over its input is shifted: it writes the chunk's first
// output (the carry alone), then scans inclusively with output j reading input j - 1,
// so it runs the inclusive step. In place it cannot (a step would overwrite the input
// the next step reads), and keeps the exclusive step.
std::string chunked_scan_body(const input_kernel& input, const combine_op& op, scan_pass pass, bool exclusive,
                              bool in_place, const std::string& out, const std::string& t, unsigned group,
                              const codegen::dialect& d, const codegen::skeleton_dialect& sd, const combine_text& call) {
    const std::string index = d.index_type, w = std::to_string(group) + "u";
    const std::string root = codegen::value_name(input.root);
    std::string s;
    if (pass == scan_pass::scan_totals) { // one work-item, in order
        s += "    if (" + std::string(sd.group_id) + " != 0u || " + sd.local_id + " != 0u) return;\n";
        s += "    " + t + " carry = init;\n";
        s += "    for (" + index + " i = 0; i < n; ++i) {\n";
        s += codegen::emit_values(input.kernel, d, {input.root}, "        ");
        s += "        " + out + "[i] = carry;\n        carry = " + call("carry", root) + ";\n    }\n";
        return s;
    }
    const bool shifted = pass == scan_pass::scan_output && exclusive && !in_place;
    // Pass 1 of a commutative operation folds lane l's values (elements l, l + 8, ... of the
    // chunk) into t<l>, eight independent chains the compiler turns into one vector
    // operation a step, as a handwritten float8 sum is; the tree keeps the operands' order
    // but stays scalar, and was markedly slower on PoCL.
    const bool lanes = pass == scan_pass::chunk_totals && commutative(op);
    const std::string from = shifted ? " - 1" : ""; // where output i + l reads its input: i + l + from
    s += "    const " + index + " gid = (" + index + ")" + sd.group_id + " * " + w + " + " + sd.local_id + ";\n";
    s += "    " + index + " i = gid * chunk < n ? gid * chunk : n;\n";
    s += "    const " + index + " last = n - i < chunk ? n : i + chunk;\n";
    s += "    " + t + " carry = " + (pass == scan_pass::scan_output ? call("init", "offsets[gid]") : "id") + ";\n";
    if (shifted) s += "    if (i < last) {\n        " + out + "[i] = carry;\n        ++i;\n    }\n";
    if (lanes) s += "    " + t + " t0 = id, t1 = id, t2 = id, t3 = id, t4 = id, t5 = id, t6 = id, t7 = id;\n";
    s += "    for (; i + 8 <= last; i += 8) {\n        " + t + " e0, e1, e2, e3, e4, e5, e6, e7;\n";
    for (int l = 0; l < 8; ++l) {
        s += "        {\n" +
             codegen::emit_values(input.kernel, d, {input.root}, "            ", "(i + " + std::to_string(l) + from + ")");
        s += "            " + lane(l) + " = " + root + ";\n        }\n";
    }
    if (pass == scan_pass::chunk_totals && lanes) // each value into its lane's total
        for (int l = 0; l < 8; ++l) s += "        " + lane_total(l) + " = " + call(lane_total(l), lane(l)) + ";\n";
    else if (pass == scan_pass::chunk_totals) // the eight in order, as a tree: one step of the chain
        s += "        carry = " + call("carry", call(call(call("e0", "e1"), call("e2", "e3")), call(call("e4", "e5"), call("e6", "e7")))) + ";\n";
    else if (exclusive && !shifted)
        s += exclusive_block_prefix(out, call);
    else
        s += inclusive_block_prefix(out, call);
    s += "    }\n";
    if (lanes) { // in order: the form LLVM's SLP vectorizer keeps in one vector (see reduce_kernel.cpp)
        std::string folded = lane_total(0);
        for (int l = 1; l < 8; ++l) folded = call(folded, lane_total(l));
        s += "    carry = " + folded + ";\n";
    }
    s += "    for (; i < last; ++i) {\n";
    s += codegen::emit_values(input.kernel, d, {input.root}, "        ", shifted ? "(i - 1)" : "i");
    if (pass == scan_pass::chunk_totals) s += "        carry = " + call("carry", root) + ";\n";
    else if (exclusive && !shifted) s += "        " + out + "[i] = carry;\n        carry = " + call("carry", root) + ";\n";
    else s += "        carry = " + call("carry", root) + ";\n        " + out + "[i] = carry;\n";
    s += "    }\n";
    if (pass == scan_pass::chunk_totals) s += "    totals[gid] = carry;\n";
    return s;
}

} // namespace

std::string emit_scan_pass(const input_kernel& in, const combine_op& op, scan_pass pass, bool exclusive,
                           std::uint32_t out_param, unsigned group, bool chunked, const codegen::dialect& d) {
    const codegen::skeleton_dialect& sd = codegen::skeleton_dialect_for(d);
    input_kernel input = in;
    if (out_param != no_class) input.kernel.params[out_param].written = true;
    const std::string t = codegen::type_name(d, op.type);
    const std::string w = std::to_string(group);
    auto call = [&](const std::string& a, const std::string& b) { return combine_call(op, "loom_combine", a, b, "c"); };
    auto buffer = [&](const std::string& name, bool written) {
        return std::string(d.global_prefix) + (written ? "" : "const ") + t + " *" + d.restrict_keyword + name + ", ";
    };

    std::string s = skeleton_prologue(input, {&op}, d);
    s += emit_combine(op, "loom_combine", d, sd);
    s += std::string(d.kernel_prefix) + " " + codegen::kernel_name + "(" + codegen::emit_parameters(input.kernel, d);
    std::string out = "out";
    if (pass != scan_pass::chunk_totals) {
        if (out_param == no_class) s += buffer("out", true);
        else out = "p" + std::to_string(out_param);
    }
    if (pass == scan_pass::scan_output) s += buffer("offsets", false);
    if (pass == scan_pass::chunk_totals) s += buffer("totals", true);
    s += t + " id, " + t + " init, ";
    const std::vector<dtype> captures = capture_types(op);
    for (std::size_t j = 0; j < captures.size(); ++j)
        s += std::string(codegen::type_name(d, captures[j])) + " c" + std::to_string(j) + ", ";
    const std::string index = d.index_type;
    s += index + " chunk, " + index + " n) {\n" + codegen::emit_guard(input.kernel, d);
    if (chunked)
        return s + chunked_scan_body(input, op, pass, exclusive, out_param != no_class, out, t, group, d, sd, call) + "}\n";
    s += "    " + std::string(sd.local_array) + " " + t + " s[" + w + "];\n";
    s += "    const unsigned int lid = " + std::string(sd.local_id) + ";\n";
    s += "    const unsigned int g = " + std::string(sd.group_id) + ";\n";
    s += "    const " + index + " first = (" + index + ")g * chunk;\n";
    s += "    " + index + " last = first + chunk;\n    if (last > n) last = n;\n";
    if (pass == scan_pass::scan_output) s += "    " + t + " carry = " + call("init", "offsets[g]") + ";\n";
    else if (pass == scan_pass::scan_totals) s += "    " + t + " carry = init;\n";
    else s += "    " + t + " carry = id;\n";
    s += "    for (" + index + " base = first; base < last; base += " + w + "u) {\n";
    s += "        const " + index + " i = base + lid;\n";
    s += "        " + t + " x = id;\n";
    s += "        if (i < last) {\n";
    s += codegen::emit_values(input.kernel, d, {input.root}, "            ");
    s += "            x = " + codegen::value_name(input.root) + ";\n        }\n";
    s += "        s[lid] = x;\n        " + std::string(sd.barrier) + "\n";
    s += "        for (unsigned int offset = 1u; offset < " + w + "u; offset <<= 1) {\n";
    s += "            const " + t + " left = lid >= offset ? s[lid - offset] : id;\n";
    s += "            " + std::string(sd.barrier) + "\n";
    s += "            if (lid >= offset) s[lid] = " + call("left", "s[lid]") + ";\n";
    s += "            " + std::string(sd.barrier) + "\n        }\n";
    if (pass != scan_pass::chunk_totals) {
        s += "        if (i < last) " + out + "[i] = ";
        if (exclusive || pass == scan_pass::scan_totals) s += "lid == 0u ? carry : " + call("carry", "s[lid - 1u]") + ";\n";
        else s += call("carry", "s[lid]") + ";\n";
    }
    s += "        carry = " + call("carry", "s[" + std::to_string(group - 1) + "]") + ";\n";
    s += "        " + std::string(sd.barrier) + "\n    }\n";
    if (pass == scan_pass::chunk_totals) s += "    if (lid == 0u) totals[g] = carry;\n";
    s += "}\n";
    return s;
}

} // namespace loom::skeleton
