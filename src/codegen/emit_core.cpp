// Emitter core shared by both dialects. Each IR node becomes one typed local
// (`float v3 = ...;`), so the text mirrors the IR, operand conversions are already
// explicit in the IR, and the device compiler does the register allocation.
#include "codegen/emit_core.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "codegen/complex_helpers.hpp"
#include "codegen/kernel_source.hpp"
#include "codegen/vector_types.hpp"
#include "ir/op_table.hpp"
#include "ir/promotion.hpp"
#include "ir/source_function.hpp"
#include "loom/error.hpp"

namespace loom::codegen {
namespace {

std::string value(std::uint32_t n) { return "v" + std::to_string(n); }

std::vector<std::uint32_t> stored_values(const ir::kernel& k) {
    std::vector<std::uint32_t> roots;
    ir::append_store_nodes(k, roots);
    return roots;
}

// How each index_value other than the element is spelled: names every kernel form declares.
const char* index_spelling(ir::index_value v) {
    switch (v) {
    case ir::index_value::element: break;
    case ir::index_value::count: return "n";
    case ir::index_value::grid_column: return "loom_col";
    case ir::index_value::grid_row: return "loom_row";
    case ir::index_value::grid_height: return "loom_h";
    case ir::index_value::grid_width: return "loom_w";
    case ir::index_value::grid_plane: return "loom_plane";
    case ir::index_value::grid_plane_row: return "loom_y";
    case ir::index_value::grid_plane_rows: return "loom_plane_rows";
    case ir::index_value::grid_planes: return "loom_planes";
    case ir::index_value::zero: return "0";
    case ir::index_value::one: return "1";
    case ir::index_value::row: return "loom_r"; // declared by an axis reduction's pass only
    case ir::index_value::column: return "loom_c";
    case ir::index_value::axis2: break; // lowered to arithmetic on the element before any kernel holds it
    case ir::index_value::entry: return "loom_j"; // declared by its row_sum's loop
    }
    return nullptr;
}

// Whether node j is at least 1 by its form: max(x, 1), as lowered index arithmetic writes the
// extents it divides by.
bool at_least_one(const ir::kernel& k, std::uint32_t j) {
    const ir::node& n = k.body[j];
    if (n.op != opcode::max || ir::is_float(n.type)) return false;
    for (std::uint32_t a : {n.arg[0], n.arg[1]})
        if (k.body[a].op == opcode::index && ir::index_value(k.body[a].slot) == ir::index_value::one) return true;
    return false;
}

// A typed zero: `(float)0`, and for a complex or vector type every component zero.
std::string zero(const dialect& d, dtype t) {
    if (is_short_vector(t))
        return vector_value(
            d, t, std::vector<std::string>(width_of(t), "(" + std::string(type_name(d, component_dtype(t))) + ")0"));
    if (ir::is_complex(t)) {
        const std::string r = "(" + std::string(type_name(d, ir::component_of(t))) + ")0";
        return complex_value(d, t, r, r);
    }
    return "(" + std::string(type_name(d, t)) + ")0";
}

// A conversion to complex type t: of a complex value, component by component; of a real one,
// with a zero imaginary part.
std::string to_complex(const dialect& d, dtype t, dtype from, const std::string& a) {
    const std::string r = "(" + std::string(type_name(d, ir::component_of(t))) + ")";
    if (ir::is_complex(from)) return complex_value(d, t, r + a + ".x", r + a + ".y");
    return complex_value(d, t, r + a, r + "0");
}

// The unsigned type of an integer type's width: i8..i64 -> u8..u64.
dtype unsigned_of(dtype t) { return ir::is_signed_integer(t) ? dtype(std::uint8_t(t) + 4) : t; }

// isnan and the others. An integer (or bool) operand is classified as the double <cmath> converts
// it to, which needs no conversion: never NaN nor infinite, normal unless 0, its sign bit set
// when it is negative.
std::string classification(const ir::kernel& k, const ir::node& n, const dialect& d, const std::string& a) {
    const dtype t = k.body[n.arg[0]].type;
    if (ir::is_float(t)) return d.bit_builtin(n.op, t, a);
    switch (n.op) {
    case opcode::isfinite: return "1";
    case opcode::isnormal: return "(" + a + " != 0)";
    case opcode::signbit: return ir::is_signed_integer(t) ? "(" + a + " < 0)" : "0";
    default: return "0"; // isnan, isinf
    }
}

std::string expression(const ir::kernel& k, const ir::node& n, const dialect& d, const std::string& index,
                       const std::string* operands = nullptr);

// Whether node n works on short vectors component by component (vector_expression): every
// element-wise operation with a vector result. Loads, stores, scalars and calls move whole values.
bool componentwise(const ir::node& n) {
    if (!is_short_vector(n.type)) return false;
    switch (n.op) {
    case opcode::load:
    case opcode::load_first:
    case opcode::load_at:
    case opcode::load_neighbour:
    case opcode::scalar:
    case opcode::call:
    case opcode::make_vector: return false;
    default: return true;
    }
}

// A short vector node: the scalar operation's text once per component, on that component of
// each vector operand (a scalar operand, a where() condition, is the same in every component).
std::string vector_expression(const ir::kernel& k, const ir::node& n, const dialect& d, const std::string& index) {
    ir::node lane = n;
    lane.type = component_dtype(n.type);
    std::vector<std::string> components;
    for (unsigned c = 0; c < width_of(n.type); ++c) {
        std::string operands[3];
        for (unsigned a = 0; a < 3; ++a)
            if (n.arg[a] != ir::no_node)
                operands[a] =
                    value(n.arg[a]) +
                    (is_short_vector(k.body[n.arg[a]].type) ? std::string(".") + component_name(c) : std::string());
        components.push_back(expression(k, lane, d, index, operands));
    }
    return vector_value(d, n.type, components);
}

// dot(a, b) = a.x * b.x + a.y * b.y (+ a.z * b.z + a.w * b.w), left to right.
std::string dot_expression(const std::string& a, const std::string& b, unsigned width) {
    std::string s = "(";
    for (unsigned c = 0; c < width; ++c)
        s += std::string(c ? " + " : "") + a + "." + component_name(c) + " * " + b + "." + component_name(c);
    return s + ")";
}

std::string expression(const ir::kernel& k, const ir::node& n, const dialect& d, const std::string& index,
                       const std::string* operands) {
    if (!operands && componentwise(n)) return vector_expression(k, n, d, index);
    const ir::op_info& op = ir::info(n.op);
    const std::string a = operands ? operands[0] : n.arg[0] != ir::no_node ? value(n.arg[0]) : std::string();
    const std::string b = operands ? operands[1] : n.arg[1] != ir::no_node ? value(n.arg[1]) : std::string();
    const std::string c = operands ? operands[2] : n.arg[2] != ir::no_node ? value(n.arg[2]) : std::string();
    const std::string t = type_name(d, n.type);
    const std::string p = "p" + std::to_string(n.slot);
    const complex_call helper = complex_call_of(k.body, n);
    if (helper.op != opcode::count_)
        return complex_helper_name(helper) + "(" + a + (op.arity > 1 ? ", " + b : "") + ")";
    switch (n.op) {
    case opcode::load: return p + "[" + index + "]";
    case opcode::load_first: return p + "[0]";
    case opcode::load_at: // element a; with a length b, 0 at or past it
        if (n.arg[1] == ir::no_node) return p + "[" + a + "]";
        return "(" + a + " < " + b + " ? " + p + "[" + a + "] : " + zero(d, n.type) + ")";
    case opcode::load_neighbour: throw error("loom: internal error: a neighbour read reached the printer unlowered");
    case opcode::row_sum: throw error("loom: internal error: a row sum reached the printer outside its loop");
    case opcode::scalar: return p;
    case opcode::index: {
        const char* spelled = index_spelling(ir::index_value(n.slot));
        return spelled ? spelled : index;
    }
    case opcode::cast:
        // C's conversion to bool is "!= 0"; spelled out because OpenCL C has no bool cast rule for vectors.
        if (n.type == dtype::boolean) return "(" + a + " != 0)";
        if (ir::is_complex(n.type)) return to_complex(d, n.type, k.body[n.arg[0]].type, a);
        return "(" + t + ")" + a;
    case opcode::select: return "(" + a + " ? " + b + " : " + c + ")";
    case opcode::call: {
        std::string call = ir::source_function_of(n.slot).emitted + "(";
        for (unsigned i = 0; i < ir::max_call_arguments && n.arg[i] != ir::no_node; ++i)
            call += (i ? ", " : "") + value(n.arg[i]);
        return call + ")";
    }
    case opcode::component: return a + "." + component_name(n.slot);
    case opcode::make_vector: {
        std::vector<std::string> components;
        for (unsigned i = 0; i < width_of(n.type); ++i) components.push_back(value(n.arg[i]));
        return vector_value(d, n.type, components);
    }
    case opcode::dot: return dot_expression(a, b, width_of(k.body[n.arg[0]].type));
    case opcode::length:
        return std::string(d.math_name(opcode::sqrt, n.type)) + "(" +
               dot_expression(a, a, width_of(k.body[n.arg[0]].type)) + ")";
    case opcode::real: return a + ".x";
    case opcode::imag: return a + ".y";
    case opcode::unary_plus:
        if (ir::is_complex(n.type)) return a; // CUDA's float2 has no operators
        break;
    // std::min/max/clamp semantics, NaN behaviour included: written out rather than
    // mapped to fmin/fmax, which treat NaN differently.
    case opcode::min: return "(" + b + " < " + a + " ? " + b + " : " + a + ")";
    case opcode::max: return "(" + a + " < " + b + " ? " + b + " : " + a + ")";
    case opcode::clamp: return "(" + a + " < " + b + " ? " + b + " : (" + c + " < " + a + " ? " + c + " : " + a + "))";
    case opcode::abs:
        if (!ir::is_float(n.type)) return "(" + a + " < 0 ? -" + a + " : " + a + ")";
        break;
    // Integer division is defined where C leaves it undefined, the same in both dialects
    // (docs/type-promotion.md): x / 0 == 0 and x % 0 == x; for signed types MIN / -1 == MIN
    // (the negation wraps, done in the unsigned type) and MIN % -1 == 0.
    // A divisor of at least 1 needs neither: C's division is Loom's there.
    case opcode::div:
    case opcode::mod: {
        if (ir::is_float(n.type) || n.type == dtype::boolean) break;
        const bool div = n.op == opcode::div;
        if (at_least_one(k, n.arg[1])) return "(" + a + (div ? " / " : " % ") + b + ")";
        std::string s = "(" + b + " == 0 ? " + (div ? "(" + t + ")0" : a) + " : ";
        if (ir::is_signed_integer(n.type)) {
            const std::string u = type_name(d, dtype(std::uint8_t(n.type) + 4)); // i8..i64 -> u8..u64
            s += "(" + b + " == -1 ? " + (div ? "(" + t + ")((" + u + ")0 - (" + u + ")" + a + ")" : "(" + t + ")0") +
                 " : ";
            return s + "(" + a + (div ? " / " : " % ") + b + ")))";
        }
        return s + "(" + a + (div ? " / " : " % ") + b + "))";
    }
    case opcode::isnan:
    case opcode::isinf:
    case opcode::isfinite:
    case opcode::isnormal:
    case opcode::signbit: return classification(k, n, d, a);
    case opcode::popcount:
    case opcode::clz: return d.bit_builtin(n.op, k.body[n.arg[0]].type, a);
    case opcode::as_bits: { // an integer's are a conversion to its unsigned type; a float's the dialect's
        const dtype from = k.body[n.arg[0]].type;
        return ir::is_float(from) ? d.bit_builtin(n.op, from, a) : "(" + t + ")" + a;
    }
    case opcode::ctz: { // the ones below the lowest set bit (all of them for 0), in either dialect
        const std::string u = type_name(d, unsigned_of(k.body[n.arg[0]].type));
        const std::string x = "(" + u + ")" + a;
        const std::string below = "(" + u + ")((" + x + " & (" + u + ")(0 - " + x + ")) - 1)";
        return d.bit_builtin(opcode::popcount, unsigned_of(k.body[n.arg[0]].type), below);
    }
    default: break;
    }
    if (op.infix) {
        if (op.arity == 1) return "(" + std::string(op.infix) + a + ")";
        return "(" + a + " " + op.infix + " " + b + ")";
    }
    std::string call = std::string(d.math_name(n.op, n.type)) + "(" + a;
    if (op.arity > 1) call += ", " + b;
    if (op.arity > 2) call += ", " + c;
    return call + ")";
}

// Which nodes read a row_sum's entry, directly or through their operands: a loop body's.
std::vector<bool> in_loop_body(const ir::kernel& k) {
    std::vector<bool> body(k.body.size(), false);
    for (std::uint32_t i = 0; i < k.body.size(); ++i) {
        const ir::node& n = k.body[i];
        body[i] = n.op == opcode::index && ir::index_value(n.slot) == ir::index_value::entry;
        for (std::uint32_t a : n.arg)
            if (a != ir::no_node && body[a] && n.op != opcode::row_sum) body[i] = true;
    }
    return body;
}

// Row_sum node r: its sum from zero, then the loop over its entries (a step of 1 << arg[2], which
// the device compiler folds to 1 where the shift is a compiled-in zero), which writes the nodes of
// its body (those reading the entry; the others are written before the loop, as operands of
// nodes before it) and adds the body's value, entry by entry in order. One scope per loop, so
// two loops may write one body node each.
void row_sum(source_builder& b, const ir::kernel& k, std::uint32_t r, const std::vector<bool>& body,
             const std::string& index) {
    const ir::node& n = k.body[r];
    const dialect& d = b.dialect();
    std::vector<bool> needed(k.body.size(), false);
    needed[n.arg[3]] = body[n.arg[3]];
    for (std::uint32_t i = n.arg[3] + 1; i-- > 0;) {
        if (!needed[i]) continue;
        for (std::uint32_t a : k.body[i].arg)
            if (a != ir::no_node && body[a]) needed[a] = true;
    }
    b.declare(n.type, value(r), zero(d, n.type));
    const std::string t = type_name(d, k.body[n.arg[0]].type);
    b.open_for(t + " loom_j = " + value(n.arg[0]), "loom_j < " + value(n.arg[1]),
               "loom_j += (" + t + ")1 << " + value(n.arg[2]));
    for (std::uint32_t i = 0; i <= n.arg[3]; ++i)
        if (needed[i]) b.declare(k.body[i].type, value(i), expression(k, k.body[i], d, index));
    b.line(value(r) + " = " + value(r) + " + " + value(n.arg[3]) + ";");
    b.close();
}

void values(source_builder& b, const ir::kernel& k, const std::vector<bool>& live, const std::string& index) {
    const bool loops = std::any_of(k.body.begin(), k.body.end(), [](const ir::node& n) { return n.op == opcode::row_sum; });
    const std::vector<bool> body = loops ? in_loop_body(k) : std::vector<bool>();
    for (std::uint32_t i = 0; i < k.body.size(); ++i) {
        if (!live[i] || (loops && body[i])) continue;
        if (k.body[i].op == opcode::row_sum)
            row_sum(b, k, i, body, index);
        else
            b.declare(k.body[i].type, value(i), expression(k, k.body[i], b.dialect(), index));
    }
}

} // namespace

std::vector<bool> live_nodes(const ir::kernel& k, const std::vector<std::uint32_t>& roots) {
    std::vector<bool> live(k.body.size(), false);
    for (std::uint32_t r : roots) live[r] = true;
    for (std::size_t i = k.body.size(); i-- > 0;) {
        if (!live[i]) continue;
        for (std::uint32_t a : k.body[i].arg)
            if (a != ir::no_node) live[a] = true;
    }
    return live;
}

std::vector<bool> live_nodes(const ir::kernel& k) { return live_nodes(k, stored_values(k)); }

std::string value_expression(const ir::kernel& k, std::uint32_t n, const dialect& d, const std::string& index) {
    return expression(k, k.body[n], d, index);
}

std::string value_name(std::uint32_t n) { return value(n); }

bool uses_f64(const ir::kernel& k) {
    for (const ir::node& n : k.body) {
        if (ir::is_double_precision(n.type)) return true;
        if (k.double_grid_division && n.op == opcode::load_neighbour && n.arg[ir::grid_width] != ir::no_node)
            return true;
    }
    for (const ir::kernel_param& p : k.params)
        if (ir::is_double_precision(p.type)) return true;
    return false;
}

// In order of first call; the guard macro is the emitted name's, so that kernels concatenated
// into one program (a batch compile) define each function once.
std::string source_function_definitions(const ir::kernel& k, const dialect& d) {
    std::string s;
    std::vector<std::uint32_t> defined;
    for (const ir::node& n : k.body) {
        if (n.op != opcode::call || std::find(defined.begin(), defined.end(), n.slot) != defined.end()) continue;
        defined.push_back(n.slot);
        const ir::source_function& f = ir::source_function_of(n.slot);
        const std::string guard = source_function_guard + f.emitted;
        s += "#ifndef " + guard + "\n#define " + guard + "\n" + d.function_prefix + " " + type_name(d, f.result) + " " +
             f.emitted + "(";
        for (std::size_t p = 0; p < f.params.size(); ++p)
            s += std::string(p ? ", " : "") + type_name(d, f.params[p]) + " " + f.param_names[p];
        s += ") {\n" + f.body + "\n}\n#endif\n";
    }
    return s;
}

std::string emit_prologue(const ir::kernel& k, const dialect& d) {
    std::string s = d.prologue;
    if (uses_f64(k)) s += d.prologue_fp64;
    return s + vector_type_definitions(k, d) + complex_helpers(k.body, d) + source_function_definitions(k, d);
}

std::string emit_parameters(const ir::kernel& k, const dialect& d, bool rebindable) {
    std::string s;
    for (std::size_t p = 0; p < k.params.size(); ++p) {
        const ir::kernel_param& param = k.params[p];
        if (param.packed) continue; // declared from loom_scalars (write_guard)
        if (param.kind == ir::param_kind::buffer)
            s += buffer_parameter(d, type_name(d, param.type), param.written || rebindable, !rebindable);
        else
            s += std::string(type_name(d, param.type)) + " ";
        s += "p" + std::to_string(p) + ", ";
    }
    if (ir::packs_scalars(k)) s += buffer_parameter(d, type_name(d, dtype::u64), false, true) + "loom_scalars, ";
    if (k.guarded) // may alias a written buffer: no restrict
        s += buffer_parameter(d, type_name(d, dtype::i32), rebindable, false) + "loom_guard, ";
    return s;
}

void input_layout(const ir::kernel& k, parameter_layout& layout) {
    for (std::uint32_t p = 0; p < k.params.size(); ++p)
        if (!k.params[p].packed) layout.push_back({parameter_role::input, p});
    if (ir::packs_scalars(k)) layout.push_back({parameter_role::packed_scalars});
    if (k.guarded) layout.push_back({parameter_role::guard});
}

void write_guard(source_builder& b, const ir::kernel& k) {
    // The same value for every work-item, so a kernel with barriers returns as a whole.
    if (k.guarded) b.line("if (loom_guard[0] == 0) return;");
    // Packed scalars: 8 bytes each in parameter order, the value in the first bytes.
    std::size_t slot = 0;
    for (std::size_t p = 0; p < k.params.size(); ++p) {
        if (!k.params[p].packed) continue;
        const dtype type = k.params[p].type;
        const std::string t = b.type(type);
        if (ir::is_complex(type) || is_short_vector(type)) {
            // Read by component: a double2 in two 8-byte slots is not 16-byte aligned, nor is a
            // float4 in two or a double4 in four.
            const dtype component = is_short_vector(type) ? component_dtype(type) : ir::component_of(type);
            const std::string part = "((" + buffer_parameter(b.dialect(), b.type(component), false, false) +
                                     ")(loom_scalars + " + std::to_string(slot) + "))";
            if (ir::is_complex(type)) {
                b.declare_const(t, "p" + std::to_string(p),
                                complex_value(b.dialect(), type, part + "[0]", part + "[1]"));
            } else {
                std::vector<std::string> components;
                for (unsigned c = 0; c < width_of(type); ++c)
                    components.push_back(part + "[" + std::to_string(c) + "]");
                b.declare_const(t, "p" + std::to_string(p), vector_value(b.dialect(), type, components));
            }
            slot += size_of(type) / 8 + (size_of(type) % 8 ? 1 : 0);
            continue;
        }
        b.declare_const(t, "p" + std::to_string(p),
                        "*(" + buffer_parameter(b.dialect(), t, false, false) + ")(loom_scalars + " +
                            std::to_string(slot++) + ")");
    }
}

void write_values(source_builder& b, const ir::kernel& k, const std::vector<std::uint32_t>& roots,
                  const std::string& index) {
    values(b, k, live_nodes(k, roots), index);
}

void write_marked_values(source_builder& b, const ir::kernel& k, const std::vector<bool>& nodes,
                         const std::string& index) {
    values(b, k, nodes, index);
}

void write_body(source_builder& b, const ir::kernel& k, const std::string& index) {
    write_values(b, k, stored_values(k), index);
    write_stores(b, k, index);
}

void write_stores(source_builder& b, const ir::kernel& k, const std::string& index) {
    for (const ir::kernel_store& st : k.stores) {
        const std::string at = st.index == ir::no_node ? index : value(st.index);
        const std::string store = "p" + std::to_string(st.param) + "[" + at + "] = " + value(st.value) + ";";
        b.line(st.limit == ir::no_node ? store : "if (" + at + " < " + value(st.limit) + ") " + store);
    }
}

} // namespace loom::codegen
