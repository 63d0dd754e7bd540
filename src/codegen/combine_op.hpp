// A binary operation traced from a lambda (a reduction's or a scan's combine), and how the
// pass kernels write it: a device function of its own, called by name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/parameter_layout.hpp"
#include "codegen/source_builder.hpp"
#include "ir/kernel.hpp"
#include "ir/shape.hpp"
#include "loom/detail/operand_role.hpp"

namespace loom::codegen {

// Its shape's scalar slots are the left operand, the right operand and captured host scalars
// (in slot order), as role says.
struct combine_op {
    const detail::shape* shape = nullptr;
    std::vector<detail::operand_role> role;
    dtype type = dtype::f32;     // the operands' and the result's type
    std::vector<dtype> captures; // capture_types(*this), kept by a plan for its launches
};

std::vector<dtype> capture_types(const combine_op& op);

// Whether op(a, b) == op(b, a) is evident from its body: one commutative operator (+, *,
// the bitwise and logical ones, fmin, fmax; min and max on integers, as Loom's float
// min/max keep their left operand when one is NaN) applied to the two operands, casts
// aside. False does not mean the operation is not commutative, only that Loom cannot
// tell; a pass then keeps the operands' order.
bool commutative(const combine_op& op);

// Whether op(a, b) is a + b on a real floating-point type, nothing else (loom::sum's): a fold
// of a product may then be a fused multiply-add where contraction is on (axis_pass.hpp).
bool is_float_sum(const combine_op& op);

// "<prefix> T name(T p0, T p1, C p2, ...) { ...; return vK; }" with p2... the captures.
// Throws loom::error when the operation reads a vector, a device scalar or the index.
void write_combine(source_builder& b, const combine_op& op, const std::string& name);

// Whether op can be written lane by lane over vectors of `lanes` operands (lane_vectors.hpp),
// and that function: "<prefix> T16 name(T16 p0, T16 p1, C p2, ...)", lane l of the result
// op(lane l of p0, lane l of p1), the captures scalars as in write_combine.
bool combines_lanes(const combine_op& op, const dialect& d, unsigned lanes);
void write_lane_combine(source_builder& b, const combine_op& op, const std::string& name, unsigned lanes);

// Operation k's captures as kernel parameters: "<type> <prefix>0, <type> <prefix>1, ..., "
// appended to `signature`, and their roles to `layout`.
void declare_captures(const combine_op& op, std::uint32_t k, const std::string& prefix, const dialect& d,
                      std::string& signature, parameter_layout& layout);

// "name(a, b, c0, c1...)" where captures are named <capture_prefix>0, 1, ...
std::string combine_call(const combine_op& op, const std::string& name, const std::string& a, const std::string& b,
                         const std::string& capture_prefix);

// Passes that fold several operations at once name operation k's function loom_combine<k> and
// its captures c<k>_0, c<k>_1, ...: write_accumulator_combine writes that function, and
// accumulator_call calls it.
void write_accumulator_combine(source_builder& b, const combine_op& op, std::size_t k);
std::string accumulator_call(const combine_op& op, std::size_t k, const std::string& a, const std::string& b);
// The same for write_lane_combine's function of operation k (loom_combine<k>_lanes).
void write_accumulator_lane_combine(source_builder& b, const combine_op& op, std::size_t k, unsigned lanes);
std::string accumulator_lane_call(const combine_op& op, std::size_t k, const std::string& a, const std::string& b);

// The pragmas a pass kernel over `input` with these operations needs (fp64 when anything in
// it is double).
std::string pass_prologue(const ir::kernel& input, const std::vector<const combine_op*>& ops, const dialect& d);

} // namespace loom::codegen
