// The scan pass emitter; see scan_kernel.hpp.
#include "skeleton/scan_kernel.hpp"

#include "codegen/emit.hpp"

namespace loom::skeleton {

std::string emit_scan_pass(const input_kernel& in, const combine_op& op, scan_pass pass, bool exclusive,
                           std::uint32_t out_param, unsigned group, const codegen::dialect& d) {
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
    s += index + " chunk, " + index + " n) {\n" + codegen::emit_guard(input.kernel);
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
