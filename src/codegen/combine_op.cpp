// Traced combine operations as device functions; see combine_op.hpp.
#include "codegen/combine_op.hpp"

#include "codegen/emit_core.hpp"
#include "codegen/lane_vectors.hpp"
#include "loom/error.hpp"

namespace loom::codegen {

std::vector<dtype> capture_types(const combine_op& op) {
    std::vector<dtype> types;
    for (std::size_t s = 0; s < op.role.size(); ++s)
        if (op.role[s] == detail::operand_role::capture) types.push_back(op.shape->slots[s].type);
    return types;
}

bool commutative(const combine_op& op) {
    const std::vector<ir::node>& nodes = op.shape->nodes;
    std::uint32_t root = op.shape->root; // a conversion of the result keeps the symmetry
    while (nodes[root].op == opcode::cast) root = nodes[root].arg[0];
    const ir::node& top = nodes[root];
    switch (top.op) {
    case opcode::add:
    case opcode::mul:
    case opcode::bit_and:
    case opcode::bit_or:
    case opcode::bit_xor:
    case opcode::logical_and:
    case opcode::logical_or:
    case opcode::fmin:
    case opcode::fmax: break;
    case opcode::min:
    case opcode::max:
        if (component_dtype(top.type) == dtype::f32 || component_dtype(top.type) == dtype::f64) return false;
        break;
    default: return false;
    }
    // The two operands, each through the same conversions (a cast on one side only, as in
    // `(short)a + b`, is not symmetric).
    std::uint32_t a = top.arg[0], b = top.arg[1];
    while (nodes[a].op == opcode::cast && nodes[b].op == opcode::cast && nodes[a].type == nodes[b].type) {
        a = nodes[a].arg[0];
        b = nodes[b].arg[0];
    }
    if (nodes[a].op != opcode::scalar || nodes[b].op != opcode::scalar) return false;
    using detail::operand_role;
    const operand_role left = op.role[nodes[a].slot], right = op.role[nodes[b].slot];
    return (left == operand_role::left && right == operand_role::right) ||
           (left == operand_role::right && right == operand_role::left);
}

bool is_float_sum(const combine_op& op) {
    if (op.type != dtype::f32 && op.type != dtype::f64) return false;
    const std::vector<ir::node>& nodes = op.shape->nodes;
    const ir::node& top = nodes[op.shape->root];
    if (top.op != opcode::add || top.type != op.type) return false;
    const ir::node &a = nodes[top.arg[0]], &b = nodes[top.arg[1]];
    if (a.op != opcode::scalar || b.op != opcode::scalar || a.type != op.type || b.type != op.type) return false;
    using detail::operand_role;
    return op.role[a.slot] == operand_role::left && op.role[b.slot] == operand_role::right;
}

namespace {

// The operation's body as a kernel: operand slots become scalar parameters p0 and p1, captures
// p2, p3, ... (the core names a scalar p<slot>).
ir::kernel combine_kernel(const combine_op& op) {
    std::vector<std::uint32_t> param_of_slot(op.role.size());
    std::uint32_t next_capture = 2;
    for (std::size_t s = 0; s < op.role.size(); ++s)
        param_of_slot[s] = op.role[s] == detail::operand_role::left    ? 0
                           : op.role[s] == detail::operand_role::right ? 1
                                                                       : next_capture++;
    ir::kernel k;
    for (ir::node n : op.shape->nodes) {
        if (n.op == opcode::load || n.op == opcode::load_first || n.op == opcode::load_neighbour)
            throw error("loom: a reduction or scan operation cannot read a loom::vector or a loom::scalar; it "
                        "combines two values (and captured host scalars) only");
        if (n.op == opcode::index)
            throw error("loom: a reduction or scan operation cannot use loom::index(); compute the index in the "
                        "input expression instead");
        if (n.op == opcode::scalar) n.slot = param_of_slot[n.slot];
        k.body.push_back(n);
    }
    return k;
}

// "<prefix> R name(T p0, T p1, C p2, ...)" with T and R `operand` and the captures' own types.
std::string combine_signature(const source_builder& b, const combine_op& op, const std::string& name,
                              const std::string& operand) {
    std::string signature = std::string(b.dialect().function_prefix) + " " + operand + " " + name + "(" + operand +
                            " p0, " + operand + " p1";
    for (std::size_t slot = 0, c = 2; slot < op.role.size(); ++slot)
        if (op.role[slot] == detail::operand_role::capture)
            signature += ", " + std::string(b.type(op.shape->slots[slot].type)) + " p" + std::to_string(c++);
    return signature + ")";
}

// The nodes that differ between lanes: the two operands and what is computed from them.
std::vector<bool> operand_lanes(const ir::kernel& k) {
    std::vector<bool> seeds(k.body.size(), false);
    for (std::size_t j = 0; j < k.body.size(); ++j) seeds[j] = k.body[j].op == opcode::scalar && k.body[j].slot < 2;
    return lanes_varying(k, std::move(seeds));
}

std::string lane_name(std::size_t k) { return "loom_combine" + std::to_string(k) + "_lanes"; }

} // namespace

void write_combine(source_builder& b, const combine_op& op, const std::string& name) {
    const ir::kernel k = combine_kernel(op);
    b.open(combine_signature(b, op, name, b.type(op.type)));
    write_values(b, k, {op.shape->root});
    b.line("return " + value_name(op.shape->root) + ";");
    b.close();
}

bool combines_lanes(const combine_op& op, const dialect& d, unsigned lanes) {
    const ir::kernel k = combine_kernel(op);
    return lanes_vectorise(k, live_nodes(k, {op.shape->root}), operand_lanes(k), d, lanes);
}

void write_lane_combine(source_builder& b, const combine_op& op, const std::string& name, unsigned lanes) {
    const ir::kernel k = combine_kernel(op);
    const std::vector<bool> varying = operand_lanes(k);
    b.open(combine_signature(b, op, name, lane_type(b.dialect(), op.type, lanes)));
    write_lane_values(b, k, live_nodes(k, {op.shape->root}), varying, {lanes, "", ""});
    b.line("return " + lane_operand(k, op.shape->root, varying, b.dialect(), lanes) + ";");
    b.close();
}

void declare_captures(const combine_op& op, std::uint32_t k, const std::string& prefix, const dialect& d,
                      std::string& signature, parameter_layout& layout) {
    const std::vector<dtype> captures = capture_types(op);
    for (std::uint32_t j = 0; j < captures.size(); ++j) {
        signature += std::string(type_name(d, captures[j])) + " " + prefix + std::to_string(j) + ", ";
        layout.push_back({parameter_role::capture, k, j});
    }
}

std::string combine_call(const combine_op& op, const std::string& name, const std::string& a, const std::string& b,
                         const std::string& capture_prefix) {
    std::string s = name + "(" + a + ", " + b;
    std::size_t c = 0;
    for (detail::operand_role r : op.role)
        if (r == detail::operand_role::capture) s += ", " + capture_prefix + std::to_string(c++);
    return s + ")";
}

void write_accumulator_combine(source_builder& b, const combine_op& op, std::size_t k) {
    write_combine(b, op, "loom_combine" + std::to_string(k));
}

std::string accumulator_call(const combine_op& op, std::size_t k, const std::string& a, const std::string& b) {
    return combine_call(op, "loom_combine" + std::to_string(k), a, b, "c" + std::to_string(k) + "_");
}

void write_accumulator_lane_combine(source_builder& b, const combine_op& op, std::size_t k, unsigned lanes) {
    write_lane_combine(b, op, lane_name(k), lanes);
}

std::string accumulator_lane_call(const combine_op& op, std::size_t k, const std::string& a, const std::string& b) {
    return combine_call(op, lane_name(k), a, b, "c" + std::to_string(k) + "_");
}

std::string pass_prologue(const ir::kernel& input, const std::vector<const combine_op*>& ops, const dialect& d) {
    ir::kernel probe = input;
    for (const combine_op* op : ops) {
        probe.params.push_back({ir::param_kind::scalar, op->type, false});
        // Children renumbered to the probe's positions: the prologue reads operand types.
        const std::uint32_t base = std::uint32_t(probe.body.size());
        for (ir::node n : op->shape->nodes) {
            for (std::uint32_t& a : n.arg)
                if (a != ir::no_node) a += base;
            probe.body.push_back(n);
        }
    }
    return emit_prologue(probe, d);
}

} // namespace loom::codegen
