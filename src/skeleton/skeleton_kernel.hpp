// The IR pieces every multi-pass skeleton (reduce, scan) emits from: the input
// expression as a kernel body (loads deduplicated per buffer, scalars as parameters, as
// the fusion pass builds a statement), and a traced binary operation as a device function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/dialect.hpp"
#include "codegen/skeleton_dialect.hpp"
#include "ir/kernel.hpp"
#include "ir/shape.hpp"

namespace loom::skeleton {

constexpr std::uint32_t no_class = 0xFFFFFFFFu;

// An input expression as a kernel body. Parameters: one read-only buffer per buffer
// class, in order of first use, and one scalar per scalar slot; `root` is the value,
// converted to the requested type. param_slot[p] is the slot whose value parameter p takes.
struct input_kernel {
    ir::kernel kernel;
    std::uint32_t root = ir::no_node;
    std::vector<std::uint32_t> param_slot;
};

// slot_class[s]: the buffer class of vector slot s (equal for slots naming one buffer),
// no_class for a scalar slot.
input_kernel build_input(const detail::shape& s, const std::vector<std::uint32_t>& slot_class, dtype value_type);

// The body of a kernel that loads element i of each of `buffers` (the partials of an
// earlier pass); roots are the loads, in order.
input_kernel partials_input(const std::vector<dtype>& buffers);

// A binary operation traced from a lambda: its shape's scalar slots are the left operand
// (role 0), the right operand (role 1) and captured host scalars (role 2, in slot order).
struct combine_op {
    const detail::shape* shape = nullptr;
    std::vector<std::uint8_t> role;
    dtype type = dtype::f32; // the operands' and the result's type
    std::vector<dtype> captures; // capture_types(*this), kept by a plan for its launches
};

std::vector<dtype> capture_types(const combine_op& op);

// Whether op(a, b) == op(b, a) is evident from its body: one commutative operator (+, *,
// the bitwise and logical ones, fmin, fmax; min and max on integers, as Loom's float
// min/max keep their left operand when one is NaN) applied to the two operands, casts
// aside. False does not mean the operation is not commutative, only that Loom cannot
// tell; a skeleton then keeps the operands' order.
bool commutative(const combine_op& op);

// "<prefix> T name(T p0, T p1, C p2, ...) { ...; return vK; }" with p2... the captures.
std::string emit_combine(const combine_op& op, const std::string& name, const codegen::dialect& d,
                         const codegen::skeleton_dialect& sd);

// "name(a, b, c0, c1...)" where captures are named <capture_prefix>0, 1, ...
std::string combine_call(const combine_op& op, const std::string& name, const std::string& a, const std::string& b,
                         const std::string& capture_prefix);

// The "#pragma"s a skeleton kernel needs (fp64 when anything in it is double).
std::string skeleton_prologue(const input_kernel& in, const std::vector<const combine_op*>& ops,
                              const codegen::dialect& d);

} // namespace loom::skeleton
