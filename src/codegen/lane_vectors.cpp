// Vector values across a pass's lanes; see lane_vectors.hpp.
#include "codegen/lane_vectors.hpp"

#include "codegen/emit_core.hpp"
#include "ir/op_table.hpp"
#include "ir/promotion.hpp"

namespace loom::codegen {
namespace {

bool is_lane_index(const ir::node& n) {
    return n.op == opcode::index &&
           (ir::index_value(n.slot) == ir::index_value::element || ir::index_value(n.slot) == ir::index_value::column);
}

// Whether every operand of n (the first `count`) has n's own type.
bool operands_of_own_type(const ir::kernel& k, const ir::node& n, unsigned count) {
    for (unsigned a = 0; a < count; ++a)
        if (n.arg[a] == ir::no_node || k.body[n.arg[a]].type != n.type) return false;
    return true;
}

bool vectorisable(const ir::kernel& k, const ir::node& n, const std::vector<bool>& varying) {
    // A complex or short vector element is already a vector type: no vectors of it.
    if (n.type == dtype::boolean || ir::is_complex(n.type) || is_short_vector(n.type)) return false;
    const ir::op_info& op = ir::info(n.op);
    switch (n.op) {
    case opcode::load: return true;
    case opcode::load_at: // contiguous lanes: at the element or the column, with no length to test
        return n.arg[1] == ir::no_node && is_lane_index(k.body[n.arg[0]]);
    case opcode::index: return is_lane_index(n);
    case opcode::scalar: return true;
    case opcode::cast: {
        const dtype from = k.body[n.arg[0]].type;
        return from != dtype::boolean && !ir::is_complex(from) && !is_short_vector(from);
    }
    case opcode::negate:
    case opcode::unary_plus:
    case opcode::bit_not:
    case opcode::abs: return operands_of_own_type(k, n, 1);
    case opcode::add:
    case opcode::sub:
    case opcode::mul:
    case opcode::bit_and:
    case opcode::bit_or:
    case opcode::bit_xor:
    case opcode::min:
    case opcode::max: return operands_of_own_type(k, n, 2);
    case opcode::div: return ir::is_float(n.type) && operands_of_own_type(k, n, 2);
    case opcode::clamp: return operands_of_own_type(k, n, 3);
    case opcode::select: // the lanes take one branch or the other together
        return !varying[n.arg[0]] && k.body[n.arg[1]].type == n.type && k.body[n.arg[2]].type == n.type;
    default: break;
    }
    return op.cls == ir::op_class::float_math && ir::is_float(n.type) && operands_of_own_type(k, n, op.arity);
}

// The lanes' index values: the first lane's, then one more each lane.
std::string lane_indices(const std::string& type, const std::string& first, unsigned lanes) {
    std::string steps;
    for (unsigned l = 0; l < lanes; ++l) steps += (l ? ", " : "") + std::to_string(l);
    return "((" + type + ")(" + first + ") + (" + type + ")(" + steps + "))";
}

// Elements first .. first + lanes - 1 of buffer p as one vector: a literal of the elements, which
// LLVM merges into one vector load, not vload16: PoCL 3.1 split vload16 into 64-bit loads and
// shuffles, which made a matrix-vector product's row loop markedly slower
// (bench/results/history.csv).
std::string lane_loads(const std::string& type, const std::string& p, const std::string& first, unsigned lanes) {
    std::string s = "(" + type + ")(";
    for (unsigned l = 0; l < lanes; ++l) {
        s += l ? ", " : "";
        s += p;
        s += "[" + first;
        s += l ? " + " + std::to_string(l) + "]" : "]";
    }
    return s + ")";
}

std::string vector_expression(const ir::kernel& k, std::uint32_t j, const std::vector<bool>& varying, const dialect& d,
                              const lane_layout& at) {
    const ir::node& n = k.body[j];
    const unsigned lanes = at.lanes;
    auto arg = [&](unsigned a) { return lane_operand(k, n.arg[a], varying, d, lanes); };
    std::string p = "p" + std::to_string(n.slot);
    const std::string type = lane_type(d, n.type, lanes);
    const ir::op_info& op = ir::info(n.op);
    switch (n.op) {
    case opcode::load: return lane_loads(type, p, at.first_element, lanes);
    case opcode::load_at: {
        const bool column = ir::index_value(k.body[n.arg[0]].slot) == ir::index_value::column;
        return lane_loads(type, p, column ? at.first_column : at.first_element, lanes);
    }
    case opcode::index: {
        const bool column = ir::index_value(n.slot) == ir::index_value::column;
        return lane_indices(type, column ? at.first_column : at.first_element, lanes);
    }
    case opcode::scalar: return p; // a combine function's operand, a vector parameter
    case opcode::cast: return "convert_" + type + "(" + arg(0) + ")";
    case opcode::select: return "(" + value_name(n.arg[0]) + " ? " + arg(1) + " : " + arg(2) + ")";
    // As the scalar form spells them (emit_core.cpp); a vector condition selects lane by lane.
    case opcode::min: return "(" + arg(1) + " < " + arg(0) + " ? " + arg(1) + " : " + arg(0) + ")";
    case opcode::max: return "(" + arg(0) + " < " + arg(1) + " ? " + arg(1) + " : " + arg(0) + ")";
    case opcode::clamp:
        return "(" + arg(0) + " < " + arg(1) + " ? " + arg(1) + " : (" + arg(2) + " < " + arg(0) + " ? " + arg(2) +
               " : " + arg(0) + "))";
    case opcode::abs:
        if (!ir::is_float(n.type)) return "(" + arg(0) + " < 0 ? -" + arg(0) + " : " + arg(0) + ")";
        break;
    default: break;
    }
    if (op.infix) {
        if (op.arity == 1) return "(" + std::string(op.infix) + arg(0) + ")";
        return "(" + arg(0) + " " + op.infix + " " + arg(1) + ")";
    }
    std::string call = std::string(d.math_name(n.op, n.type)) + "(" + arg(0);
    for (unsigned a = 1; a < op.arity; ++a) call += ", " + arg(a);
    return call + ")";
}

} // namespace

std::vector<bool> lanes_varying(const ir::kernel& k, std::vector<bool> seeds) {
    seeds.resize(k.body.size(), false);
    for (std::size_t j = 0; j < k.body.size(); ++j) // operands come before their users
        for (std::uint32_t a : k.body[j].arg)
            if (a != ir::no_node && seeds[a]) seeds[j] = true;
    return seeds;
}

std::vector<bool> element_lane_seeds(const ir::kernel& k) {
    std::vector<bool> seeds(k.body.size(), false);
    for (std::size_t j = 0; j < k.body.size(); ++j) seeds[j] = k.body[j].op == opcode::load || is_lane_index(k.body[j]);
    return seeds;
}

bool lanes_vectorise(const ir::kernel& k, const std::vector<bool>& live, const std::vector<bool>& varying,
                     const dialect& d, unsigned lanes) {
    if (!d.lane_vectors || (lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16)) return false;
    for (std::size_t j = 0; j < k.body.size(); ++j)
        if (live[j] && varying[j] && !vectorisable(k, k.body[j], varying)) return false;
    return true;
}

std::string lane_type(const dialect& d, dtype t, unsigned lanes) { return type_name(d, t) + std::to_string(lanes); }

std::string lane_operand(const ir::kernel& k, std::uint32_t n, const std::vector<bool>& varying, const dialect& d,
                         unsigned lanes) {
    if (varying[n]) return value_name(n);
    return "((" + lane_type(d, k.body[n].type, lanes) + ")(" + value_name(n) + "))";
}

std::string lane_of(const std::string& v, unsigned l) { return v + ".s" + "0123456789abcdef"[l % 16]; }

void write_lane_values(source_builder& b, const ir::kernel& k, const std::vector<bool>& live,
                       const std::vector<bool>& varying, const lane_layout& at) {
    const dialect& d = b.dialect();
    for (std::uint32_t j = 0; j < k.body.size(); ++j) {
        if (!live[j]) continue;
        if (varying[j])
            b.declare(lane_type(d, k.body[j].type, at.lanes), value_name(j), vector_expression(k, j, varying, d, at));
        else
            b.declare(k.body[j].type, value_name(j), value_expression(k, j, d, at.first_element));
    }
}

} // namespace loom::codegen
