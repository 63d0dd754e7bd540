// Lowering support: builds a shape node by node, applying the typing rules of the op
// table. Called once per C++ expression type, so clarity matters more than speed here.
#include "loom/detail/shape_builder.hpp"

#include <atomic>
#include <deque>
#include <iterator>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/contraction.hpp"
#include "ir/lower_positions.hpp"
#include "ir/op_table.hpp"
#include "ir/promotion.hpp"
#include "ir/source_function.hpp"
#include "ir/shape.hpp"
#include "loom/error.hpp"

namespace loom {

const char* name_of(dtype t) {
    static const char* names[] = {
        "bool",    "int8",    "int16",          "int32",           "int64",   "uint8",  "uint16", "uint32", "uint64",
        "float",   "double",  "complex<float>", "complex<double>", "char2",   "short2", "int2",   "long2",  "uchar2",
        "ushort2", "uint2",   "ulong2",         "float2",          "double2", "char4",  "short4", "int4",   "long4",
        "uchar4",  "ushort4", "uint4",          "ulong4",          "float4",  "double4"};
    static_assert(sizeof names / sizeof names[0] == dtype_count, "a dtype without a name");
    return names[std::size_t(t)];
}

} // namespace loom

namespace loom::detail {
namespace {

// Shapes live until the program ends: statements and cached plans point at them. The
// registry is never destroyed, so that a static loom::context's last flush at exit, which
// may run after this file's statics are gone, still finds its shapes.
struct shape_registry {
    std::mutex lock;
    std::deque<shape> shapes;
    // The shapes finish_values made, by their content's bytes (content_of).
    std::unordered_map<std::string, const shape*> by_content;
};

// The bytes of what a shape of these nodes, slots and values (no target) computes, into `key`:
// a shape's identity for finish_values.
void content_of(std::string& key, const std::vector<ir::node>& nodes, const std::vector<slot_info>& slots,
                const node_ref* roots, unsigned count) {
    thread_local std::vector<std::uint64_t> words; // reused: a trace's shape is tens of kilobytes
    words.clear();
    words.push_back(nodes.size());
    for (const ir::node& n : nodes) {
        words.push_back(std::uint64_t(n.op) | std::uint64_t(n.type) << 8 | std::uint64_t(n.boundary) << 16 |
                        std::uint64_t(n.slot) << 32);
        words.insert(words.end(), std::begin(n.arg), std::end(n.arg));
    }
    words.push_back(slots.size());
    for (const slot_info& slot : slots)
        words.push_back(std::uint64_t(slot.kind) | std::uint64_t(slot.type) << 8 | std::uint64_t(slot.neighbour) << 16 |
                        std::uint64_t(slot.broadcast) << 17 | std::uint64_t(slot.neighbour_operand) << 18 |
                        std::uint64_t(slot.any_length) << 19 | std::uint64_t(slot.neighbour_offset) << 20 |
                        std::uint64_t(slot.view_index) << 24);
    words.push_back(count);
    words.insert(words.end(), roots, roots + count);
    key.assign(reinterpret_cast<const char*>(words.data()), words.size() * sizeof(std::uint64_t));
}

shape_registry& registry() {
    static shape_registry& r = *new shape_registry;
    return r;
}

} // namespace

struct shape_builder::impl {
    statement_target target;
    ir::node_list nodes;
    std::vector<slot_info> slots;

    node_ref add(opcode op, dtype t, node_ref a = ir::no_node, node_ref b = ir::no_node, node_ref c = ir::no_node) {
        ir::node n{op, t};
        n.arg[0] = a;
        n.arg[1] = b;
        n.arg[2] = c;
        return nodes.add(n);
    }
    dtype type(node_ref n) const { return nodes[n].type; }
    node_ref convert(node_ref n, dtype t) {
        if (type(n) == t) return n;
        // A short vector converts only to a vector of its width, component by component; a
        // scalar converts to a vector by becoming its component type and filling every component.
        if (is_short_vector(type(n)) || is_short_vector(t)) {
            const dtype from = type(n);
            if (!is_short_vector(t) || ir::is_complex(from) || (is_short_vector(from) && width_of(from) != width_of(t)))
                throw error(std::string("loom: a ") + name_of(from) + " value cannot be converted to " + name_of(t) +
                            (is_short_vector(from) && !is_short_vector(t)
                                 ? ": take a component with loom::get<I>(v) (or loom::x(v) ... loom::w(v))"
                                 : ": short vectors convert only to vectors of their width (loom::cast<loom::float4>"
                                   "(int4_expression)), and a scalar to any vector"));
            if (!is_short_vector(from)) n = convert(n, component_dtype(t));
            return add(opcode::cast, t, n);
        }
        // std::complex has no conversion to a real type: the value would lose its imaginary part.
        if (ir::is_complex(type(n)) && !ir::is_complex(t))
            throw error(std::string("loom: a ") + name_of(type(n)) + " value cannot be converted to " + name_of(t) +
                        ": take its part with loom::real(z) or loom::imag(z), or its magnitude with loom::abs(z)");
        return add(opcode::cast, t, n);
    }
    // The operand made complex, for the functions std::complex defines on real numbers too
    // (std::real(2.0f), std::conj(x)): an integer counts as double, as in <cmath>.
    node_ref as_complex(node_ref n) {
        const dtype t = type(n);
        return convert(n, ir::is_complex(t) ? t : ir::complex_of(ir::math_result(t)));
    }
};

shape_builder::shape_builder(statement_target target) : impl_(std::make_unique<impl>()) { impl_->target = target; }
shape_builder::~shape_builder() = default;

node_ref shape_builder::vector_slot(dtype element) {
    ir::node n{opcode::load, element};
    n.slot = std::uint32_t(impl_->slots.size());
    impl_->slots.push_back({slot_kind::vector, element});
    return impl_->nodes.add(n);
}

node_ref shape_builder::scalar_slot(dtype type) {
    // OpenCL forbids bool kernel arguments: a bool scalar travels as an int32.
    const dtype carried = type == dtype::boolean ? dtype::i32 : type;
    ir::node n{opcode::scalar, carried};
    n.slot = std::uint32_t(impl_->slots.size());
    impl_->slots.push_back({slot_kind::scalar, carried});
    return impl_->convert(impl_->nodes.add(n), type);
}

node_ref shape_builder::device_scalar_slot(dtype element) {
    if (impl_->target == statement_target::scalar) return vector_slot(element); // element 0 is the element's own
    ir::node n{opcode::load_first, element};
    n.slot = std::uint32_t(impl_->slots.size());
    // Read at another index than the element's own: the fusion pass must not put it in a
    // kernel that writes it, exactly as for a stencil read.
    impl_->slots.push_back({slot_kind::vector, element, true, true});
    return impl_->nodes.add(n);
}

node_ref shape_builder::index() { return impl_->add(opcode::index, dtype::u64); }

node_ref shape_builder::count(std::uint64_t value) {
    impl& m = *impl_;
    const auto literal = [&](ir::index_value v) {
        ir::node n{opcode::index, dtype::u64};
        n.slot = std::uint32_t(v);
        return m.nodes.add(n);
    };
    if (value == 0) return literal(ir::index_value::zero);
    // value's bits, most significant first: double, and add one where a bit is set.
    node_ref made = literal(ir::index_value::one);
    int bit = 63;
    while (!(value >> bit & 1)) --bit;
    for (--bit; bit >= 0; --bit) {
        made = m.add(opcode::add, dtype::u64, made, made);
        if (value >> bit & 1) made = m.add(opcode::add, dtype::u64, made, literal(ir::index_value::one));
    }
    return made;
}

node_ref shape_builder::entry(dtype index) {
    if (!ir::is_signed_integer(index) && !ir::is_unsigned_integer(index))
        throw error(std::string("loom: internal error: a row's entries are counted in an integer type, not ") +
                    name_of(index));
    ir::node n{opcode::index, index};
    n.slot = std::uint32_t(ir::index_value::entry);
    return impl_->nodes.add(n);
}

node_ref shape_builder::row_sum(node_ref first, node_ref end, node_ref shift, node_ref body) {
    impl& m = *impl_;
    const dtype t = m.type(first);
    if (m.type(end) != t || m.type(shift) != t)
        throw error("loom: internal error: a row's first entry, end and step differ in type");
    // The body's nodes read the loop's entry; none may be a loop itself (the emitter writes one
    // level of loops).
    std::vector<node_ref> pending{body};
    while (!pending.empty()) {
        const ir::node& n = m.nodes[pending.back()];
        pending.pop_back();
        if (n.op == opcode::row_sum)
            throw error("loom: a sparse product inside another's operand: compute the "
                        "inner one into a loom::vector first");
        for (std::uint32_t a : n.arg)
            if (a != ir::no_node) pending.push_back(a);
    }
    ir::node n{opcode::row_sum, m.type(body)};
    n.arg[0] = first;
    n.arg[1] = end;
    n.arg[2] = shift;
    n.arg[3] = body;
    return m.nodes.add(n);
}

node_ref shape_builder::position(unsigned axis) {
    ir::node n{opcode::index, dtype::u64};
    n.slot = std::uint32_t(axis == 0   ? ir::index_value::row
                           : axis == 1 ? ir::index_value::column
                                       : ir::index_value::axis2);
    return impl_->nodes.add(n);
}

node_ref shape_builder::neighbour_slot(dtype element, boundary_policy policy, unsigned dimensions) {
    impl& m = *impl_;
    ir::node n{opcode::load_neighbour, element};
    n.boundary = std::uint8_t(policy);
    n.slot = std::uint32_t(m.slots.size());
    m.slots.push_back({slot_kind::vector, element, true});
    auto operand = [&](dtype type) { return operand_slot(type); };
    auto offset = [&] {
        const node_ref r = operand_slot(dtype::i64);
        m.slots.back().neighbour_offset = true;
        return r;
    };
    // The order the front end binds them in (loom/stencil.hpp's neighbour_read::bind).
    n.arg[ir::offset_i] = offset();
    if (dimensions >= 2) {
        n.arg[ir::offset_j] = offset();
        n.arg[ir::grid_width] = operand(dtype::i64);
    }
    if (dimensions == 3) {
        n.arg[ir::offset_k] = offset();
        n.arg[ir::grid_height] = operand(dtype::i64);
    }
    if (policy == boundary_policy::constant) n.arg[ir::boundary_value] = operand(element);
    return m.nodes.add(n);
}

std::uint32_t shape_builder::gather_source(dtype element) {
    const std::uint32_t slot = std::uint32_t(impl_->slots.size());
    impl_->slots.push_back({slot_kind::vector, element, true, false, false, true});
    return slot;
}

node_ref shape_builder::gather(std::uint32_t source, node_ref index, bool checked) {
    impl& m = *impl_;
    ir::node n{opcode::load_at, m.slots[source].type};
    n.slot = source;
    n.arg[0] = m.convert(index, dtype::u64); // a negative index becomes one past any length
    if (checked) n.arg[1] = operand_slot(dtype::u64);
    return m.nodes.add(n);
}

node_ref shape_builder::operand_slot(dtype type) {
    const node_ref r = scalar_slot(type);
    impl_->slots.back().neighbour_operand = true;
    return r;
}

node_ref shape_builder::zero_folded_slot(dtype type) {
    const node_ref r = operand_slot(type);
    impl_->slots.back().neighbour_offset = true;
    return r;
}

node_ref shape_builder::view_index_slot(bool stride) {
    const node_ref r = operand_slot(dtype::i64);
    impl_->slots.back().view_index = stride ? slot_info::view_part::stride : slot_info::view_part::start;
    return r;
}

dtype shape_builder::type_of(node_ref n) const { return impl_->type(n); }

node_ref shape_builder::cast(dtype to, node_ref a) { return impl_->convert(a, to); }

static_assert(max_source_function_arguments == ir::max_call_arguments, "a call's arguments are its node's operands");

node_ref shape_builder::component(node_ref v, unsigned index) {
    impl& m = *impl_;
    const dtype t = m.type(v);
    if (!is_short_vector(t))
        throw error(std::string("loom::get<I>: the operand is a ") + name_of(t) +
                    ", not a short vector (loom::float4, loom::int2, ...)");
    if (index >= width_of(t))
        throw error("loom::get<" + std::to_string(index) + ">: a " + name_of(t) + " has " +
                    std::to_string(width_of(t)) + " components");
    ir::node n{opcode::component, component_dtype(t)};
    n.arg[0] = v;
    n.slot = index;
    return m.nodes.add(n);
}

node_ref shape_builder::make_vector(dtype type, const node_ref* components, unsigned count) {
    impl& m = *impl_;
    if (!is_short_vector(type) || count != width_of(type))
        throw error(std::string("loom::make_vec: a ") + name_of(type) + " is made of " +
                    std::to_string(width_of(type)) + " components, not " + std::to_string(count));
    ir::node n{opcode::make_vector, type};
    for (unsigned c = 0; c < count; ++c) {
        if (is_short_vector(m.type(components[c])) || ir::is_complex(m.type(components[c])))
            throw error(std::string("loom::make_vec: a component is a ") + name_of(m.type(components[c])) +
                        "; each must be a real scalar");
        n.arg[c] = m.convert(components[c], component_dtype(type));
    }
    return m.nodes.add(n);
}

node_ref shape_builder::call(std::uint32_t function, const node_ref* args, unsigned count) {
    const ir::source_function& f = ir::source_function_of(function);
    if (count != f.params.size()) // the front end's static_assert makes this unreachable from loom::function
        throw error("loom::function '" + f.name + "' takes " + std::to_string(f.params.size()) + " arguments, not " +
                    std::to_string(count));
    ir::node n{opcode::call, f.result};
    n.slot = function;
    for (unsigned a = 0; a < count; ++a) n.arg[a] = impl_->convert(args[a], f.params[a]);
    return impl_->nodes.add(n);
}

namespace {

[[noreturn]] void reject(opcode op, dtype a, const char* why) {
    const ir::op_info& i = ir::info(op);
    const std::string spelled = i.infix ? std::string("operator ") + i.infix : std::string("loom::") + i.name;
    throw error("loom: " + spelled + " is not defined for " + name_of(a) + " operands: " + why);
}

// The operations std::complex gives meaning to: arithmetic, == and !=, and these functions.
constexpr const char* complex_operations = "complex numbers take + - * /, == and !=, and the functions abs, arg, "
                                           "conj, real, imag, exp, log, sqrt and polar";

void reject_complex(opcode op, dtype a, dtype b = dtype::boolean) {
    if (ir::is_complex(a) || ir::is_complex(b)) reject(op, ir::is_complex(a) ? a : b, complex_operations);
}

bool defined_on_complex(opcode op) { return op == opcode::exp || op == opcode::log || op == opcode::sqrt; }

// Short vectors (docs/vector-types.md) take arithmetic, bitwise operators and shifts (integer
// components), the math functions and min/max/clamp component by component, a scalar operand
// being broadcast; no comparisons or logical operators (OpenCL's give masks, C++'s a bool:
// compare components instead); no mix with complex numbers or with a vector of another width.
constexpr const char* vector_comparisons = "short vectors are not compared as a whole (OpenCL gives a mask per "
                                           "component, C++ no meaning): compare components, loom::get<I>(v)";

void check_vectors(opcode op, dtype a, dtype b = dtype::boolean, dtype c = dtype::boolean) {
    const dtype ts[] = {a, b, c};
    unsigned width = 1;
    bool complex = false;
    for (dtype t : ts) {
        complex = complex || ir::is_complex(t);
        if (!is_short_vector(t)) continue;
        if (width != 1 && width != width_of(t))
            throw error(std::string("loom: ") +
                        (ir::info(op).infix ? std::string("operator ") + ir::info(op).infix
                                            : std::string("loom::") + ir::info(op).name) +
                        ": the operands are short vectors of different widths (" + std::to_string(width) + " and " +
                        std::to_string(width_of(t)) +
                        "); take components with loom::get<I> or make one with "
                        "loom::make_vec");
        width = width_of(t);
    }
    if (width != 1 && complex)
        reject(op,
               is_short_vector(a)   ? a
               : is_short_vector(b) ? b
                                    : c,
               "a short vector does not mix with a complex number");
}

bool any_vector(dtype a, dtype b = dtype::boolean, dtype c = dtype::boolean) {
    return is_short_vector(a) || is_short_vector(b) || is_short_vector(c);
}

// Whether t holds floating-point values: a real, complex or vector type of float or double.
bool is_floating(dtype t) { return ir::is_float(component_dtype(t)); }

} // namespace

node_ref shape_builder::apply(opcode op, node_ref a) {
    impl& m = *impl_;
    const dtype ta = m.type(a);
    if (is_short_vector(ta)) {
        switch (ir::info(op).cls) {
        case ir::op_class::logical: reject(op, ta, vector_comparisons);
        case ir::op_class::classify:
            // Each would be a mask per component, as the comparisons would.
            reject(op, ta, "classify a component instead: loom::isnan(loom::get<I>(v))");
        case ir::op_class::bit_count: reject(op, ta, "count the bits of a component: loom::popcount(loom::get<I>(v))");
        case ir::op_class::bit_pattern: reject(op, ta, "take a component's bits: loom::as_bits(loom::get<I>(v))");
        case ir::op_class::complex_part:
        case ir::op_class::complex_map: reject(op, ta, "it takes a complex number");
        case ir::op_class::unary_integral:
            if (is_floating(ta)) reject(op, ta, "use an integer vector");
            break;
        case ir::op_class::abs:
            if (ir::is_unsigned_integer(component_dtype(ta)) && component_dtype(ta) != dtype::u8 &&
                component_dtype(ta) != dtype::u16)
                reject(op, ta, "std::abs of an unsigned type is ill-formed; the value is already its magnitude");
            break;
        default: break;
        }
    } else if (ir::info(op).cls == ir::op_class::vector_length) {
        reject(op, ta, "loom::length takes a short vector (loom::float4, loom::double2, ...)");
    }
    switch (ir::info(op).cls) {
    case ir::op_class::unary_arith: {
        if (ir::is_complex(ta)) return m.add(op, ta, a);
        const dtype t = ir::integer_promotion(ta);
        return m.add(op, t, m.convert(a, t));
    }
    case ir::op_class::unary_integral: {
        if (ir::is_float(ta) || ir::is_complex(ta)) reject(op, ta, "use an integer vector");
        const dtype t = ir::integer_promotion(ta);
        return m.add(op, t, m.convert(a, t));
    }
    case ir::op_class::logical: reject_complex(op, ta); return m.add(op, dtype::boolean, m.convert(a, dtype::boolean));
    case ir::op_class::float_math: {
        if (ir::is_complex(ta)) {
            if (!defined_on_complex(op)) reject(op, ta, complex_operations);
            return m.add(op, ta, a);
        }
        const dtype t = ir::math_result(ta);
        return m.add(op, t, m.convert(a, t));
    }
    case ir::op_class::abs: {
        if (ir::is_complex(ta)) return m.add(op, ir::component_of(ta), a); // the magnitude
        if (ta == dtype::u32 || ta == dtype::u64)
            reject(op, ta, "std::abs of an unsigned type is ill-formed; the value is already its magnitude");
        const dtype t = is_floating(ta) ? ta : ir::integer_promotion(ta);
        return m.add(op, t, m.convert(a, t));
    }
    case ir::op_class::vector_length: {
        const dtype t = ir::math_result(ta);
        return m.add(op, component_dtype(t), m.convert(a, t));
    }
    case ir::op_class::complex_part: {
        const node_ref z = m.as_complex(a);
        return m.add(op, ir::component_of(m.type(z)), z);
    }
    case ir::op_class::complex_map: {
        const node_ref z = m.as_complex(a);
        return m.add(op, m.type(z), z);
    }
    case ir::op_class::classify:
        // The operand stays as it is: an integer is classified as the double <cmath> converts it
        // to, which the emitter knows without converting (no fp64 needed).
        reject_complex(op, ta);
        return m.add(op, dtype::boolean, a);
    case ir::op_class::bit_count:
        // In the operand's own width, so no promotion: clz of a uint8 1 is 7.
        if (!ir::is_signed_integer(ta) && !ir::is_unsigned_integer(ta))
            reject(op, ta, "popcount, clz and ctz count the bits of an integer of 8 to 64 bits");
        return m.add(op, dtype::i32, a);
    case ir::op_class::bit_pattern: {
        // The bits as they are: no conversion of the operand.
        if (ir::is_complex(ta) || ta == dtype::boolean)
            reject(op, ta,
                   "loom::as_bits takes an integer, float or double (of a complex number, take "
                   "loom::real(z) and loom::imag(z))");
        const dtype u = size_of(ta) == 1   ? dtype::u8
                        : size_of(ta) == 2 ? dtype::u16
                        : size_of(ta) == 4 ? dtype::u32
                                           : dtype::u64;
        return m.add(op, u, a);
    }
    default: break;
    }
    throw error(std::string("loom: internal error: ") + ir::info(op).name + " is not a unary operation");
}

node_ref shape_builder::apply(opcode op, node_ref a, node_ref b) {
    impl& m = *impl_;
    const dtype ta = m.type(a), tb = m.type(b);
    if (any_vector(ta, tb)) {
        check_vectors(op, ta, tb);
        const dtype v = is_short_vector(ta) ? ta : tb;
        switch (ir::info(op).cls) {
        case ir::op_class::comparison:
        case ir::op_class::logical: reject(op, v, vector_comparisons);
        case ir::op_class::complex_build: reject(op, v, "polar takes real operands");
        case ir::op_class::integral:
        case ir::op_class::shift:
            if (is_floating(ta) || is_floating(tb))
                reject(op, is_floating(ta) ? ta : tb,
                       op == opcode::mod ? "use integer operands, or loom::fmod for floating point"
                                         : "use integer operands");
            break;
        default: break;
        }
        if (ir::info(op).cls == ir::op_class::shift) {
            // The promoted left operand, as wide as the vector operand (a scalar is broadcast).
            const unsigned w = width_of(v);
            const dtype t = vector_dtype(ir::integer_promotion(component_dtype(ta)), w);
            return m.add(op, t, m.convert(a, t),
                         m.convert(b, vector_dtype(ir::integer_promotion(component_dtype(tb)), w)));
        }
        if (ir::info(op).cls == ir::op_class::vector_dot) {
            if (!is_short_vector(ta) || !is_short_vector(tb))
                reject(op, is_short_vector(ta) ? tb : ta, "loom::dot takes two short vectors of one width");
            const dtype t = ir::math_result(ta, tb);
            return m.add(op, component_dtype(t), m.convert(a, t), m.convert(b, t));
        }
    } else if (ir::info(op).cls == ir::op_class::vector_dot) {
        reject(op, ta, "loom::dot takes two short vectors of one width (loom::float4, loom::double2, ...)");
    }
    switch (ir::info(op).cls) {
    case ir::op_class::integral:
        reject_complex(op, ta, tb);
        if (ir::is_float(ta) || ir::is_float(tb))
            reject(op, ir::is_float(ta) ? ta : tb,
                   op == opcode::mod ? "use integer operands, or loom::fmod for floating point"
                                     : "use integer operands");
        [[fallthrough]];
    case ir::op_class::min_max: reject_complex(op, ta, tb); [[fallthrough]];
    case ir::op_class::arithmetic: {
        const dtype t = ir::usual_arithmetic(ta, tb);
        return m.add(op, t, m.convert(a, t), m.convert(b, t));
    }
    case ir::op_class::shift: {
        reject_complex(op, ta, tb);
        if (ir::is_float(ta) || ir::is_float(tb)) reject(op, ir::is_float(ta) ? ta : tb, "use integer operands");
        const dtype t = ir::integer_promotion(ta);
        return m.add(op, t, m.convert(a, t), m.convert(b, ir::integer_promotion(tb)));
    }
    case ir::op_class::comparison: {
        if (op != opcode::equal && op != opcode::not_equal)
            reject_complex(op, ta, tb); // complex numbers are not ordered
        const dtype t = ir::usual_arithmetic(ta, tb);
        return m.add(op, dtype::boolean, m.convert(a, t), m.convert(b, t));
    }
    case ir::op_class::logical:
        reject_complex(op, ta, tb);
        return m.add(op, dtype::boolean, m.convert(a, dtype::boolean), m.convert(b, dtype::boolean));
    case ir::op_class::float_math: {
        reject_complex(op, ta, tb);
        const dtype t = ir::math_result(ta, tb);
        return m.add(op, t, m.convert(a, t), m.convert(b, t));
    }
    case ir::op_class::scale: {
        reject_complex(op, ta, tb);
        if (ir::is_float(tb)) reject(op, tb, "the exponent e of loom::ldexp(x, e) is an integer");
        const dtype t = ir::math_result(ta);
        return m.add(op, t, m.convert(a, t), m.convert(b, dtype::i32)); // as std::ldexp's int parameter
    }
    case ir::op_class::complex_build: {
        reject_complex(op, ta, tb); // polar takes a real magnitude and phase
        const dtype t = ir::math_result(ta, tb);
        return m.add(op, ir::complex_of(t), m.convert(a, t), m.convert(b, t));
    }
    default: break;
    }
    throw error(std::string("loom: internal error: ") + ir::info(op).name + " is not a binary operation");
}

node_ref shape_builder::apply(opcode op, node_ref a, node_ref b, node_ref c) {
    impl& m = *impl_;
    const dtype ta = m.type(a), tb = m.type(b), tc = m.type(c);
    if (any_vector(ta, tb, tc)) {
        if (ir::info(op).cls == ir::op_class::select) {
            if (is_short_vector(ta))
                reject(op, ta, "the condition of loom::where is one truth value per element, not a vector");
            check_vectors(op, tb, tc);
        } else {
            check_vectors(op, ta, tb, tc);
        }
    }
    switch (ir::info(op).cls) {
    case ir::op_class::select: {
        reject_complex(op, ta);
        // Like c ? a : b: equal types stay (bool too), otherwise the usual conversions.
        const dtype t = tb == tc ? tb : ir::usual_arithmetic(tb, tc);
        return m.add(op, t, m.convert(a, dtype::boolean), m.convert(b, t), m.convert(c, t));
    }
    case ir::op_class::min_max: {
        reject_complex(op, ta, tb);
        reject_complex(op, tc);
        const dtype t = ir::usual_arithmetic(ir::usual_arithmetic(ta, tb), tc);
        return m.add(op, t, m.convert(a, t), m.convert(b, t), m.convert(c, t));
    }
    case ir::op_class::float_math: {
        reject_complex(op, ta, tb);
        reject_complex(op, tc);
        const dtype t = ir::math_result(ir::math_result(ta, tb), tc);
        return m.add(op, t, m.convert(a, t), m.convert(b, t), m.convert(c, t));
    }
    default: break;
    }
    throw error(std::string("loom: internal error: ") + ir::info(op).name + " is not a ternary operation");
}

const shape* register_shape(shape s) {
    for (const ir::node& n : s.nodes) s.uses_f64 = s.uses_f64 || ir::is_double_precision(n.type);
    shape contracted = s;
    const bool has_contracted_form = ir::contract(contracted);
    shape_registry& r = registry();
    std::lock_guard<std::mutex> guard(r.lock);
    s.id = std::uint32_t(r.shapes.size());
    shape& registered = r.shapes.emplace_back(std::move(s));
    registered.contracted = &registered;
    if (has_contracted_form) {
        contracted.id = std::uint32_t(r.shapes.size());
        shape& form = r.shapes.emplace_back(std::move(contracted));
        form.contracted = &form;
        registered.contracted = &form;
    }
    return &registered;
}

namespace {

// Positions have a meaning only over a matrix's elements (loom/matrix.hpp).
void reject_positions(const std::vector<ir::node>& nodes) {
    if (ir::uses_positions(nodes))
        throw error("loom: loom::index<0>(), loom::index<1>(), loom::as_row, loom::as_column, loom::transpose and "
                    "matrix blocks make a 2-D "
                    "expression: assign it to a loom::matrix, or reduce it along a dimension "
                    "(loom::sum(e, loom::axis<1>))");
}

} // namespace

const shape* shape_builder::finish_assignment(node_ref root, dtype target) {
    reject_positions(impl_->nodes.nodes());
    shape s;
    s.root = impl_->convert(root, target);
    s.has_target = true;
    s.target_type = target;
    s.nodes = impl_->nodes.nodes();
    s.slots = impl_->slots;
    return register_shape(std::move(s));
}

const shape* shape_builder::finish_view_assignment(node_ref root, dtype target, node_ref index, bool checked) {
    reject_positions(impl_->nodes.nodes());
    return register_shape(view_assignment(root, target, index, checked));
}

const shape* shape_builder::finish_block_assignment(node_ref root, dtype target, node_ref index) {
    shape s = view_assignment(root, target, index, false);
    ir::lower_positions(s, 2);
    return register_shape(std::move(s));
}

shape shape_builder::view_assignment(node_ref root, dtype target, node_ref index, bool checked) {
    impl& m = *impl_;
    shape s;
    s.root = m.convert(root, target);
    s.store_index = m.convert(index, dtype::u64);
    if (checked) s.store_limit = operand_slot(dtype::u64);
    s.has_target = true;
    s.target_type = target;
    // The target, read at other indices: the fusion pass keeps what earlier statements stored
    // in it, and ends a kernel that writes it before this statement.
    s.target_slot = std::uint32_t(m.slots.size());
    m.slots.push_back({slot_kind::vector, target, true, false, false, true});
    s.nodes = m.nodes.nodes();
    s.slots = m.slots;
    return s;
}

const shape* shape_builder::finish_expression(node_ref root) {
    reject_positions(impl_->nodes.nodes());
    return finish_axis_input(root);
}

const shape* shape_builder::finish_axis_input(node_ref root) { return finish_axis_input(&root, 1); }

const shape* shape_builder::finish_values(const node_ref* roots, unsigned count) {
    reject_positions(impl_->nodes.nodes());
    thread_local std::string key; // reused, as content_of's words
    content_of(key, impl_->nodes.nodes(), impl_->slots, roots, count);
    shape_registry& r = registry();
    {
        std::lock_guard<std::mutex> guard(r.lock);
        if (auto it = r.by_content.find(key); it != r.by_content.end()) return it->second;
    }
    shape s;
    s.root = roots[0];
    s.more_roots.assign(roots + 1, roots + count);
    s.nodes = impl_->nodes.nodes();
    s.slots = impl_->slots;
    const shape* made = register_shape(std::move(s));
    std::lock_guard<std::mutex> guard(r.lock);
    return r.by_content.emplace(key, made).first->second; // a racing twin is left unused
}

const shape* shape_builder::finish_axis_input(const node_ref* roots, unsigned count) {
    if (ir::uses_positions(impl_->nodes.nodes(), 2))
        throw error("loom: loom::index<2>() names the third axis of a 3-D array, and a reduction along an axis "
                    "folds a 2-D expression (rows and columns: loom::index<0>() and index<1>())");
    shape s;
    s.root = roots[0];
    s.more_roots.assign(roots + 1, roots + count);
    s.nodes = impl_->nodes.nodes();
    s.slots = impl_->slots;
    return register_shape(std::move(s));
}

const shape* shape_builder::finish_axis_input3(const node_ref* roots, unsigned count, unsigned folded_axis,
                                               unsigned& extents) {
    shape s;
    s.root = roots[0];
    s.more_roots.assign(roots + 1, roots + count);
    s.nodes = impl_->nodes.nodes();
    s.slots = impl_->slots;
    extents = ir::lower_positions_for_axis(s, folded_axis);
    return register_shape(std::move(s));
}

const shape* shape_builder::finish_matrix_assignment(node_ref root, dtype target, bool& takes_columns) {
    return finish_array_assignment(root, target, 2, takes_columns);
}

const shape* shape_builder::finish_array_assignment(node_ref root, dtype target, unsigned rank, bool& takes_extents) {
    if (ir::uses_positions(impl_->nodes.nodes(), rank))
        throw error("loom: loom::index<2>() names the third axis of a 3-D array (loom::array3), and this statement "
                    "assigns a matrix, which has two");
    shape s;
    s.root = impl_->convert(root, target);
    s.has_target = true;
    s.target_type = target;
    s.nodes = impl_->nodes.nodes();
    s.slots = impl_->slots;
    takes_extents = ir::lower_positions(s, rank);
    return register_shape(std::move(s));
}

} // namespace loom::detail
