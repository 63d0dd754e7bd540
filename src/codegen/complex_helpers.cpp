// Complex helpers as device functions; see complex_helpers.hpp. The formulas are the textbook
// ones, in the component type: docs/complex.md says where they differ from libstdc++'s.
#include "codegen/complex_helpers.hpp"

#include "ir/op_table.hpp"
#include "ir/promotion.hpp"

namespace loom::codegen {
namespace {

// The ops a helper computes, in the order their definitions are written: abs and arg first,
// because log and sqrt call them.
constexpr opcode helper_ops[] = {opcode::abs, opcode::arg,    opcode::add,   opcode::sub,       opcode::mul,
                                 opcode::div, opcode::negate, opcode::equal, opcode::not_equal, opcode::conj,
                                 opcode::exp, opcode::log,    opcode::sqrt,  opcode::polar};
constexpr std::size_t helper_count = sizeof helper_ops / sizeof helper_ops[0];

// What a helper of `op` in complex type t is made of, given its dialect.
struct helper_text {
    const dialect& d;
    dtype t;

    std::string real() const { return type_name(d, ir::component_of(t)); }
    std::string complex() const { return type_name(d, t); }
    std::string make(const std::string& re, const std::string& im) const { return complex_value(d, t, re, im); }
    std::string math(opcode op) const { return d.math_name(op, ir::component_of(t)); }
    std::string call(opcode op) const { return complex_helper_name({op, t}); }
    std::string head(const std::string& result, opcode op, const std::string& params) const {
        return std::string(d.function_prefix) + " " + result + " " + call(op) + "(" + params + ") {\n";
    }

    std::string define(opcode op) const {
        const std::string C = complex(), R = real();
        const std::string unary = C + " a", binary = C + " a, " + C + " b";
        switch (op) {
        case opcode::abs: return head(R, op, unary) + "    return " + math(opcode::hypot) + "(a.x, a.y);\n}\n";
        case opcode::arg: return head(R, op, unary) + "    return " + math(opcode::atan2) + "(a.y, a.x);\n}\n";
        case opcode::add: return head(C, op, binary) + "    return " + make("a.x + b.x", "a.y + b.y") + ";\n}\n";
        case opcode::sub: return head(C, op, binary) + "    return " + make("a.x - b.x", "a.y - b.y") + ";\n}\n";
        case opcode::negate: return head(C, op, unary) + "    return " + make("-a.x", "-a.y") + ";\n}\n";
        case opcode::conj: return head(C, op, unary) + "    return " + make("a.x", "-a.y") + ";\n}\n";
        case opcode::mul:
            return head(C, op, binary) + "    return " + make("a.x * b.x - a.y * b.y", "a.x * b.y + a.y * b.x") +
                   ";\n}\n";
        case opcode::div: {
            // Smith's algorithm: dividing by the larger component first keeps |b|^2 from
            // overflowing or underflowing where the quotient itself is representable.
            const std::string f = math(opcode::fabs);
            return head(C, op, binary) + "    if (" + f + "(b.x) >= " + f + "(b.y)) {\n        const " + R +
                   " r = b.y / b.x, s = b.x + b.y * r;\n        return " +
                   make("(a.x + a.y * r) / s", "(a.y - a.x * r) / s") + ";\n    }\n    const " + R +
                   " r = b.x / b.y, s = b.x * r + b.y;\n    return " +
                   make("(a.x * r + a.y) / s", "(a.y * r - a.x) / s") + ";\n}\n";
        }
        case opcode::equal: return head("bool", op, binary) + "    return a.x == b.x && a.y == b.y;\n}\n";
        case opcode::not_equal: return head("bool", op, binary) + "    return a.x != b.x || a.y != b.y;\n}\n";
        case opcode::exp:
            return head(C, op, unary) + "    const " + R + " m = " + math(opcode::exp) + "(a.x);\n    return " +
                   make("m * " + math(opcode::cos) + "(a.y)", "m * " + math(opcode::sin) + "(a.y)") + ";\n}\n";
        case opcode::log:
            return head(C, op, unary) + "    return " +
                   make(math(opcode::log) + "(" + call(opcode::abs) + "(a))", call(opcode::arg) + "(a)") + ";\n}\n";
        case opcode::sqrt: {
            // The principal root, from the magnitude without cancellation: t = sqrt((|a| + |a.x|) / 2)
            // is one component and a.y / (2t) the other.
            const std::string s = math(opcode::sqrt), f = math(opcode::fabs);
            return head(C, op, unary) + "    const " + R + " m = " + call(opcode::abs) + "(a);\n" + "    if (m == (" +
                   R + ")0) return " + make("(" + R + ")0", "a.y") + ";\n" + "    const " + R + " t = " + s + "((m + " +
                   f + "(a.x)) * (" + R + ")0.5);\n" + "    if (a.x >= (" + R + ")0) return " +
                   make("t", "a.y / (t + t)") + ";\n" + "    return " +
                   make(f + "(a.y) / (t + t)", "a.y < (" + R + ")0 ? -t : t") + ";\n}\n";
        }
        case opcode::polar:
            return head(C, op, R + " r, " + R + " theta") + "    return " +
                   make("r * " + math(opcode::cos) + "(theta)", "r * " + math(opcode::sin) + "(theta)") + ";\n}\n";
        default: return {};
        }
    }
};

std::size_t helper_index(opcode op) {
    for (std::size_t h = 0; h < helper_count; ++h)
        if (helper_ops[h] == op) return h;
    return helper_count;
}

} // namespace

complex_call complex_call_of(const std::vector<ir::node>& nodes, const ir::node& n) {
    switch (n.op) {
    case opcode::add:
    case opcode::sub:
    case opcode::mul:
    case opcode::div:
    case opcode::negate:
    case opcode::conj:
    case opcode::exp:
    case opcode::log:
    case opcode::sqrt:
    case opcode::polar:
        if (ir::is_complex(n.type)) return {n.op, n.type};
        break;
    case opcode::equal:
    case opcode::not_equal:
    case opcode::abs:
    case opcode::arg: {
        const dtype operand = nodes[n.arg[0]].type;
        if (ir::is_complex(operand)) return {n.op, operand};
        break;
    }
    default: break;
    }
    return {};
}

std::string complex_helper_name(const complex_call& call) {
    return std::string("loom_c") + ir::info(call.op).name + (call.type == dtype::c64 ? "f" : "");
}

std::string complex_value(const dialect& d, dtype t, const std::string& re, const std::string& im) {
    return std::string(d.complex_make[t == dtype::c128 ? 1 : 0]) + "(" + re + ", " + im + ")";
}

std::string complex_helpers(const std::vector<ir::node>& nodes, const dialect& d) {
    bool used[2][helper_count] = {};
    for (const ir::node& n : nodes) {
        const complex_call call = complex_call_of(nodes, n);
        if (call.op == opcode::count_) continue;
        bool* of_type = used[call.type == dtype::c128 ? 1 : 0];
        of_type[helper_index(call.op)] = true;
        if (call.op == opcode::log || call.op == opcode::sqrt) of_type[helper_index(opcode::abs)] = true;
        if (call.op == opcode::log) of_type[helper_index(opcode::arg)] = true;
    }
    std::string text;
    for (dtype t : {dtype::c64, dtype::c128})
        for (std::size_t h = 0; h < helper_count; ++h)
            if (used[t == dtype::c128 ? 1 : 0][h]) {
                // Guarded, so that kernels compiled together in one program define each helper once.
                const std::string guard = complex_helper_name({helper_ops[h], t}) + "_defined";
                text += "#ifndef " + guard + "\n#define " + guard + "\n" + helper_text{d, t}.define(helper_ops[h]) +
                        "#endif\n";
            }
    return text;
}

} // namespace loom::codegen
