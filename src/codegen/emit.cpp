// Emitter core shared by both dialects. Each IR node becomes one typed local
// (`float v3 = ...;`), so the text mirrors the IR, operand conversions are already
// explicit in the IR, and the device compiler does the register allocation.
#include "codegen/emit.hpp"

#include <string>
#include <vector>

#include "ir/op_table.hpp"
#include "ir/promotion.hpp"

namespace loom::codegen {
namespace {

std::string value(std::uint32_t n) { return "v" + std::to_string(n); }

// Nodes reachable from a store: only those are emitted (dead code never reaches the text).
std::vector<bool> live_nodes(const ir::kernel& k) {
    std::vector<bool> live(k.body.size(), false);
    for (const ir::kernel_store& s : k.stores) live[s.value] = true;
    for (std::size_t i = k.body.size(); i-- > 0;) {
        if (!live[i]) continue;
        for (std::uint32_t a : k.body[i].arg)
            if (a != ir::no_node) live[a] = true;
    }
    return live;
}

std::string expression(const ir::kernel& k, const ir::node& n, const dialect& d) {
    const ir::op_info& op = ir::info(n.op);
    const std::string a = n.arg[0] != ir::no_node ? value(n.arg[0]) : std::string();
    const std::string b = n.arg[1] != ir::no_node ? value(n.arg[1]) : std::string();
    const std::string c = n.arg[2] != ir::no_node ? value(n.arg[2]) : std::string();
    const std::string t = type_name(d, n.type);
    switch (n.op) {
    case opcode::load: return "p" + std::to_string(n.slot) + "[i]";
    case opcode::scalar: return "p" + std::to_string(n.slot);
    case opcode::index: return "i";
    case opcode::cast:
        // C's conversion to bool is "!= 0"; spelled out because OpenCL C has no bool cast rule for vectors.
        if (n.type == dtype::boolean) return "(" + a + " != 0)";
        return "(" + t + ")" + a;
    case opcode::select: return "(" + a + " ? " + b + " : " + c + ")";
    // std::min/max/clamp semantics, NaN behaviour included: written out rather than
    // mapped to fmin/fmax, which treat NaN differently.
    case opcode::min: return "(" + b + " < " + a + " ? " + b + " : " + a + ")";
    case opcode::max: return "(" + a + " < " + b + " ? " + b + " : " + a + ")";
    case opcode::clamp: return "(" + a + " < " + b + " ? " + b + " : (" + c + " < " + a + " ? " + c + " : " + a + "))";
    case opcode::abs:
        if (!ir::is_float(n.type)) return "(" + a + " < 0 ? -" + a + " : " + a + ")";
        break;
    default: break;
    }
    if (op.infix) {
        if (op.arity == 1) return "(" + std::string(op.infix) + a + ")";
        return "(" + a + " " + op.infix + " " + b + ")";
    }
    std::string call = std::string(d.math_name(n.op, n.type)) + "(" + a;
    if (op.arity > 1) call += ", " + b;
    if (op.arity > 2) call += ", " + c;
    (void)k;
    return call + ")";
}

} // namespace

std::string emit(const ir::kernel& k, const dialect& d) {
    bool uses_f64 = false;
    for (const ir::node& n : k.body) uses_f64 = uses_f64 || n.type == dtype::f64;
    for (const ir::kernel_param& p : k.params) uses_f64 = uses_f64 || p.type == dtype::f64;

    std::string s = d.prologue;
    if (uses_f64) s += d.prologue_fp64;
    s += d.kernel_prefix;
    s += " ";
    s += kernel_name;
    s += "(";
    for (std::size_t p = 0; p < k.params.size(); ++p) {
        const ir::kernel_param& param = k.params[p];
        if (param.kind == ir::param_kind::buffer) {
            s += d.global_prefix;
            if (!param.written) s += "const ";
            s += type_name(d, param.type);
            s += " *";
            s += d.restrict_keyword;
        } else {
            s += type_name(d, param.type);
            s += " ";
        }
        s += "p" + std::to_string(p) + ", ";
    }
    s += d.index_type;
    s += " n) {\n    ";
    s += d.loop_head;
    s += "\n";
    const std::vector<bool> live = live_nodes(k);
    for (std::uint32_t i = 0; i < k.body.size(); ++i) {
        if (!live[i]) continue;
        const ir::node& n = k.body[i];
        s += "        ";
        s += type_name(d, n.type);
        s += " " + value(i) + " = " + expression(k, n, d) + ";\n";
    }
    for (const ir::kernel_store& st : k.stores)
        s += "        p" + std::to_string(st.param) + "[i] = " + value(st.value) + ";\n";
    s += "    }\n}\n";
    return s;
}

} // namespace loom::codegen
