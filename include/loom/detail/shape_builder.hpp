// The narrow door between the expression layer (templates, in headers) and the IR (in
// src/ir). Lowering a statement type calls these functions once; the result is a shape
// that every later statement of that type reuses by pointer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "loom/dtype.hpp"
#include "loom/expr/opcode.hpp"

namespace loom::detail {

struct shape; // defined in src/ir/shape.hpp

using node_ref = std::uint32_t;

// loom::function<R(A...)> from source text (loom/source_function.hpp): its id, the same for
// every function of one name, signature, parameter names and body, valid for the whole program.
// Throws loom::error for a name or parameter name that is not an identifier a kernel can use,
// an empty body, or a count of parameters outside 1..max_source_function_arguments.
inline constexpr unsigned max_source_function_arguments = 6; // ir::node's operands
std::uint32_t source_function_id(const std::string& name, dtype result, const dtype* params,
                                 const std::string* param_names, unsigned count, const std::string& body);

// What a statement assigns to: a vector (one value per element), or a loom::scalar (one
// value). In a scalar statement a device scalar is an ordinary element-0 load; elsewhere
// it is broadcast to every element.
enum class statement_target : std::uint8_t { vector, scalar };

class shape_builder {
public:
    explicit shape_builder(statement_target target = statement_target::vector);
    ~shape_builder();
    shape_builder(const shape_builder&) = delete;
    shape_builder& operator=(const shape_builder&) = delete;

    // Terminals take the next slot number, in the order the binder visits them.
    node_ref vector_slot(dtype element);
    node_ref scalar_slot(dtype type);
    node_ref index();
    // The u64 constant `value` of index arithmetic, made of the literals 0 and 1 that every
    // emitter writes as such (ir::index_value::zero, one), so that the device compiler folds it: a
    // block's element offsets (loom/block.hpp), which it must see to read a row as one vector.
    node_ref count(std::uint64_t value);
    // A loom::scalar living on the device: element 0 of its one-element buffer, read by
    // every element (exempt from the equal-length rule), or a plain load in a scalar statement.
    node_ref device_scalar_slot(dtype element);
    // A stencil read: element i + di of a vector slot (1 dimension), (x + di, y + dj) of a
    // vector viewed as a grid `width` elements wide (2), or (x + di, y + dj, z + dk) of planes
    // of `height` such rows (3). Scalar slots follow the vector slot in this order: di, then
    // dj and the width, then dk and the height, then a constant boundary value.
    node_ref neighbour_slot(dtype element, boundary_policy policy, unsigned dimensions);
    // A read of a vector at a computed index (a gather, or a view's element). The vector's slot
    // is taken first (gather_source), then the index is lowered, then gather() makes the read;
    // `checked`: one more scalar slot follows with the vector's length, and an index outside
    // [0, length) reads 0. Unchecked reads are for views whose indices were checked on the host.
    std::uint32_t gather_source(dtype element);
    node_ref gather(std::uint32_t source, node_ref index, bool checked);
    // A loop over a range of entries, a sparse matrix's row (loom/sparse.hpp): entry(t) is the
    // loop's index, of integer type t; row_sum(first, end, shift, body) the sum, in body's type
    // from 0, of body at entries first, first + 2^shift, ... below end (three nodes of type t),
    // in that order. Only a row_sum's body may read entry(); a body holds no row_sum.
    node_ref entry(dtype index);
    node_ref row_sum(node_ref first, node_ref end, node_ref shift, node_ref body);
    // A scalar slot that stays apart from equal scalars and whose value may change between runs
    // without changing the plan, but for whether it is zero: a zero is compiled in, as a stencil's
    // zero offset is (a sparse layout's slice shift and lane mask, 0 for CSR).
    node_ref zero_folded_slot(dtype type);
    // The element's row (axis 0) or column (axis 1) in a 2-D expression, or its position along
    // axis 0, 1 or 2 of a 3-D one: loom::index<D>() and the broadcasts of loom/matrix.hpp read
    // them. Only a matrix or 3-D array assignment or an axis reduction's input (axes 0 and 1)
    // may hold them (the other finish_ calls throw loom::error).
    node_ref position(unsigned axis);
    // A scalar slot that stays apart from equal scalars (an offset or view bound that may
    // change between runs without changing the plan).
    node_ref operand_slot(dtype type);
    // A view's start, or with `stride` its stride (slot_info::view_index): an operand slot that
    // shares a class with equal operands of its kind only, so reads through equal views are one load.
    node_ref view_index_slot(bool stride);
    // Applies C++'s conversion rules for the op (see docs/type-promotion.md);
    // throws loom::error when the op does not apply to the operand types.
    node_ref apply(opcode op, node_ref a);
    node_ref apply(opcode op, node_ref a, node_ref b);
    node_ref apply(opcode op, node_ref a, node_ref b, node_ref c);
    node_ref cast(dtype to, node_ref a);
    // Short vectors (docs/vector-types.md): component `index` of vector v (loom::get<I>), and a
    // vector of type `type` from its components, each converted to the component type (make_vec).
    node_ref component(node_ref v, unsigned index);
    node_ref make_vector(dtype type, const node_ref* components, unsigned count);
    // A call of source function `function` (source_function_id): each argument converted to
    // its parameter's type, as a C++ call converts them.
    node_ref call(std::uint32_t function, const node_ref* args, unsigned count);
    dtype type_of(node_ref n) const;

    // An assignment `target = root` (converted to the target's type). The shape lives
    // for the whole program; its address identifies the statement type.
    const shape* finish_assignment(node_ref root, dtype target);
    // An assignment through a view or scatter: element i's value is stored at `index`.
    // `checked`: a scalar slot follows with the target's length, and an index outside
    // [0, length) stores nothing. Adds the target's own slot last (bind it last).
    const shape* finish_view_assignment(node_ref root, dtype target, node_ref index, bool checked);
    // An assignment to a matrix block (loom::matrix::block): as a view assignment, unchecked,
    // over the block's rows x cols elements, whose positions (in the value and in `index`) are
    // lowered as a matrix statement's: the block's column count is one more slot, after the
    // target's (bind it last).
    const shape* finish_block_assignment(node_ref root, dtype target, node_ref index);
    // An expression without a target (a reduction's input, say).
    const shape* finish_expression(node_ref root);
    // Several values (root, then more_roots), registered once per content: a second builder of
    // equal nodes, slots and values gets the first one's shape. For a block lambda's work
    // (loom/block.hpp), traced at every call.
    const shape* finish_values(const node_ref* roots, unsigned count);
    // `target = root` over a matrix's elements: positions become arithmetic on the element
    // index and one more scalar slot, the column count (a u64), added last when the shape has
    // positions; `takes_columns` says whether it did (then bind the column count last).
    const shape* finish_matrix_assignment(node_ref root, dtype target, bool& takes_columns);
    // The same over a 3-D array's elements (rank 3): the two scalar slots added last are its
    // second and third extents (u64), in that order. Rank 2 is finish_matrix_assignment.
    const shape* finish_array_assignment(node_ref root, dtype target, unsigned rank, bool& takes_extents);
    // The input of an axis reduction (loom::sum(e, loom::axis<1>)): positions stay positions.
    const shape* finish_axis_input(node_ref root);
    // The input of a reduction of `count` values at once along an axis (count >= 1), each
    // folded by an operation of its own (loom::sum of a std::tuple of expressions).
    const shape* finish_axis_input(const node_ref* roots, unsigned count);
    // The input of a reduction along axis `folded_axis` (0, 1 or 2) of a 3-D expression, run as
    // a 2-D pass; `extents` u64 slots follow, to bind last: none, or d1 (axis 2), d2 (axis 0),
    // d1 then d2 (axis 1). A stencil read along axis 1 is a loom::error.
    const shape* finish_axis_input3(const node_ref* roots, unsigned count, unsigned folded_axis, unsigned& extents);

private:
    shape view_assignment(node_ref root, dtype target, node_ref index, bool checked);

    struct impl;
    std::unique_ptr<impl> impl_;
};

} // namespace loom::detail
