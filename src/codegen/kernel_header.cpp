// The comment header of a map kernel (kernel_header.hpp): each statement's expression printed
// from its shape, cut short past a line's length (a shape is a DAG: printed as a tree, shared
// nodes repeat, so the cut also bounds the work).
#include "codegen/kernel_header.hpp"

#include <cctype>

#include "ir/op_table.hpp"
#include "ir/source_function.hpp"

namespace loom::codegen {
namespace {

constexpr std::size_t line_budget = 160; // characters of one statement's expression

// A user's buffer name inside a // comment: nothing that could end the comment (a newline, or
// a backslash continuing it over the next line) or make an odd character sequence.
std::string comment_safe(const std::string& name) {
    std::string out = name;
    for (char& c : out)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-' && c != ':' && c != ' ')
            c = '_';
    return out;
}

class statement_printer {
public:
    statement_printer(const ir::kernel& k, const ir::statement_note& note) : k_(k), note_(note), sh_(*note.shape) {}

    std::string line() {
        out_ = buffer(note_.target);
        if (sh_.store_index != ir::no_node) {
            out_ += "[";
            value(sh_.store_index, true);
            out_ += "]";
        }
        out_ += " = ";
        value(sh_.root, true);
        if (out_.size() > line_budget) out_ = out_.substr(0, line_budget) + " ...";
        return out_;
    }

private:
    std::string buffer(std::uint32_t cls) const {
        if (cls == ir::no_node) return "?";
        if (cls < k_.buffer_names.size() && !k_.buffer_names[cls].empty()) return comment_safe(k_.buffer_names[cls]);
        return "b" + std::to_string(cls);
    }
    std::string slot(std::uint32_t s) const {
        if (s >= note_.slots.size()) return "?";
        if (sh_.slots[s].kind == detail::slot_kind::scalar) {
            if (note_.slots[s] == ir::literal_zero) return "0";
            return note_.slots[s] == ir::no_node ? "?" : "p" + std::to_string(note_.slots[s]);
        }
        return buffer(note_.slots[s]);
    }
    void call(const char* function, const ir::node& n, unsigned first, unsigned count) {
        out_ += function;
        out_ += "(";
        for (unsigned a = first; a < first + count && n.arg[a] != ir::no_node; ++a) {
            if (a > first) out_ += ", ";
            value(n.arg[a], true);
        }
        out_ += ")";
    }

    // Node i as an expression; `whole`: no parentheses needed around an operator.
    void value(std::uint32_t i, bool whole) {
        if (out_.size() > line_budget) return;
        const ir::node& n = sh_.nodes[i];
        const ir::op_info& op = ir::info(n.op);
        switch (n.op) {
        case opcode::load:
        case opcode::load_first: out_ += slot(n.slot); return;
        case opcode::scalar: out_ += slot(n.slot); return;
        case opcode::index: // the element; other positions are lowered before a statement is planned
            out_ += n.slot == std::uint32_t(ir::index_value::element) ? "i"
                    : n.slot == std::uint32_t(ir::index_value::entry)  ? "j"
                                                                        : "index" + std::to_string(n.slot);
            return;
        case opcode::row_sum: // the sum over a row's entries j
            out_ += "sum_j(";
            value(n.arg[3], true);
            out_ += ")";
            return;
        case opcode::load_neighbour: {
            const bool two_d = n.arg[ir::grid_width] != ir::no_node;
            out_ += two_d ? "at(" : "shift(";
            out_ += slot(n.slot) + ", ";
            value(n.arg[ir::offset_i], true);
            for (unsigned axis : {ir::offset_j, ir::offset_k}) {
                if (n.arg[axis] == ir::no_node) continue;
                out_ += ", ";
                value(n.arg[axis], true);
            }
            out_ += ")";
            return;
        }
        case opcode::load_at:
            out_ += slot(n.slot) + "[";
            value(n.arg[0], true);
            out_ += "]";
            return;
        case opcode::call: return call(ir::source_function_of(n.slot).name.c_str(), n, 0, ir::max_call_arguments);
        case opcode::component:
            out_ += "get<" + std::to_string(n.slot) + ">(";
            value(n.arg[0], true);
            out_ += ")";
            return;
        case opcode::cast:
            out_ += std::string("cast<") + name_of(n.type) + ">(";
            value(n.arg[0], true);
            out_ += ")";
            return;
        default: break;
        }
        if (!op.infix) return call(op.name, n, 0, op.arity);
        if (!whole) out_ += "(";
        if (op.arity == 1) {
            out_ += op.infix;
            value(n.arg[0], false);
        } else {
            value(n.arg[0], false);
            out_ += std::string(" ") + op.infix + " ";
            value(n.arg[1], false);
        }
        if (!whole) out_ += ")";
    }

    const ir::kernel& k_;
    const ir::statement_note& note_;
    const detail::shape& sh_;
    std::string out_;
};

} // namespace

std::string kernel_header(const ir::kernel& k) {
    if (k.statements.empty()) return {};
    const std::uint32_t first = k.statements.front().statement, last = k.statements.back().statement;
    std::string s = "// Loom: statement" + std::string(first == last ? " " : "s ") + std::to_string(first) +
                    (first == last ? "" : "-" + std::to_string(last)) + " of a flush\n";
    for (const ir::statement_note& note : k.statements)
        s += "//   " + std::to_string(note.statement) + ": " + statement_printer(k, note).line() + "\n";
    return s;
}

} // namespace loom::codegen
