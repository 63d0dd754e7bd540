// The IR every multi-pass skeleton (reduce, scan) hands to codegen's pass emitters: the
// input expression as a kernel body (loads deduplicated per buffer, scalars as parameters,
// as the fusion pass builds a statement), and the partials of an earlier pass.
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/combine_op.hpp"
#include <utility>
#include <vector>

#include "ir/kernel.hpp"
#include "loom/detail/scalar_bits.hpp"
#include "ir/shape.hpp"

namespace loom::detail {
struct skeleton_operation; // loom/reduce.hpp
} // namespace loom::detail

namespace loom::skeleton {

constexpr std::uint32_t no_class = 0xFFFFFFFFu;

// An input expression as a kernel body. Parameters: one read-only buffer per buffer
// class, in order of first use, and one scalar per scalar slot; `root` is the value,
// converted to the requested type. param_slot[p] is the slot whose value parameter p takes.
struct input_kernel {
    ir::kernel kernel;
    std::uint32_t root = ir::no_node;
    std::vector<std::uint32_t> more_roots; // the values after root's (shape::more_roots), converted
    std::vector<std::uint32_t> param_slot;
};

// The class of a scalar slot whose value is `bits`: equal values (type and bits) share one, so
// the input passes them as one parameter and the expressions over them merge (N-Body's
// `rsqrt(r2 + eps2)` written three times then computes one square root, not three). Values
// are numbered by first appearance in `seen`; neighbour operands (but view starts and strides,
// detail::shares_equal_values), and values past the 32nd, get no_class (a parameter of their
// own), so that a new offset never changes a plan. A zero offset stays a parameter here: the
// skeletons' inputs do not compile offsets in (fusion::zero_offset is the statements' own).
std::uint32_t scalar_value_class(const detail::slot_info& slot, detail::scalar_bits bits,
                                 std::vector<detail::scalar_value>& seen);
constexpr std::uint32_t scalar_class_base = 0x80000000u; // scalar classes start here

// slot_class[s]: the buffer class of vector slot s (equal for slots naming one buffer), the
// scalar_value_class of a scalar slot (no_class, or no entry past the end: its own parameter).
input_kernel build_input(const detail::shape& s, const std::vector<std::uint32_t>& slot_class, dtype value_type);
// The same for a shape of several values (shape::more_roots): value k converted to value_types[k].
input_kernel build_input(const detail::shape& s, const std::vector<std::uint32_t>& slot_class,
                         const std::vector<dtype>& value_types);

// The body of a kernel that loads element i of each of `buffers` (the partials of an
// earlier pass); roots are the loads, in order.
input_kernel partials_input(const std::vector<dtype>& buffers);

// The traced combine operation and its queries live with the code that writes it.
using codegen::capture_types;
using codegen::combine_call;
using codegen::combine_op;
using codegen::commutative;

// A front end's operation (loom/reduce.hpp) as the pass emitters take it: its traced body,
// operand roles, type and capture types.
combine_op combine_of(const detail::skeleton_operation& op);

} // namespace loom::skeleton
