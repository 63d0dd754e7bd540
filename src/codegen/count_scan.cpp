// The one-group scan of counts; see count_scan.hpp.
#include "codegen/count_scan.hpp"

namespace loom::codegen {

void write_count_scan(source_builder& b, unsigned group, const std::string& out, const std::string& total) {
    const dialect& d = b.dialect();
    const std::string index = d.index_type, w = std::to_string(group) + "u";
    b.line(std::string(d.group.array_qualifier) + " " + index + " s[" + std::to_string(group) + "];");
    b.declare_const("unsigned int", "lid", d.group.local_id);
    b.declare_const(index, "first", "(" + index + ")lid * chunk < n ? (" + index + ")lid * chunk : n");
    b.declare_const(index, "last", "n - first < chunk ? n : first + chunk");
    b.declare(index, "sum", "0");
    b.line("for (" + index + " i = first; i < last; ++i) sum += p0[i];");
    b.line("s[lid] = sum;");
    b.line(d.group.barrier);
    b.open_for("unsigned int o = 1u", "o < " + w, "o <<= 1");
    b.declare_const(index, "left", "lid >= o ? s[lid - o] : 0");
    b.line(d.group.barrier);
    b.line("s[lid] += left;");
    b.line(d.group.barrier);
    b.close();
    b.declare(index, "carry", "lid == 0u ? 0 : s[lid - 1u]");
    b.open_for(index + " i = first", "i < last", "++i");
    b.declare_const(index, "c", "p0[i]");
    b.line(out + "[i] = carry;");
    b.line("carry += c;");
    b.close();
    if (!total.empty()) b.line("if (lid == " + std::to_string(group - 1) + "u) " + total + "[0] = s[lid];");
}

} // namespace loom::codegen
