// Loom's IR: a small typed DAG. A statement's shape and a kernel body are both lists of
// nodes in topological order; children are indices into the same list, and terminals
// name a slot (in a shape) or a kernel parameter (in a kernel body).
#pragma once

#include <cstdint>
#include <vector>

#include "loom/dtype.hpp"
#include "loom/expr/opcode.hpp"

namespace loom::ir {

constexpr std::uint32_t no_node = 0xFFFFFFFFu;

struct node {
    opcode op;
    dtype type;
    std::uint8_t boundary = 0; // load_neighbour: a boundary_policy
    std::uint32_t arg[6] = {no_node, no_node, no_node, no_node, no_node, no_node};
    std::uint32_t slot = 0; // load/load_neighbour/scalar: slot (shape) or parameter (kernel) number

    friend bool operator==(const node& a, const node& b) {
        return a.op == b.op && a.type == b.type && a.boundary == b.boundary && a.arg[0] == b.arg[0] &&
               a.arg[1] == b.arg[1] && a.arg[2] == b.arg[2] && a.arg[3] == b.arg[3] && a.arg[4] == b.arg[4] &&
               a.arg[5] == b.arg[5] && a.slot == b.slot;
    }
};

// A call node (opcode::call) has one operand per argument, the first ones, up to all of them.
constexpr unsigned max_call_arguments = sizeof(node::arg) / sizeof(node::arg[0]);

// Operands of a load_neighbour node (each a node, or no_node when absent). A 1-D read has
// offset_i; a 2-D read (a grid of rows grid_width long) adds offset_j and grid_width; a 3-D
// read (planes of grid_height rows) adds offset_k and grid_height. Element i of a 3-D grid is
// (x, y, z) = (i % w, (i / w) % h, i / (w * h)), w the width and h the height.
enum neighbour_operand : unsigned {
    offset_i = 0,
    offset_j = 1,
    grid_width = 2,
    boundary_value = 3,
    offset_k = 4,
    grid_height = 5
};

// What an `index` node names, in its slot. Statements and planned kernels hold only
// `element`; the others appear where codegen lowers a kernel's neighbour reads into index
// arithmetic (codegen/lower_neighbour_reads.hpp), and only the emitter reads them.
enum class index_value : std::uint32_t {
    element,     // the element being computed (u64)
    count,       // n, the elements the kernel walks (u64)
    grid_column, // a grid kernel's column and row of the element on its 2-D launch (i64)
    grid_row,
    grid_height, // the rows of that launch (i64)
    zero,        // the constants index arithmetic needs (i64)
    one,
    // The element's row and column in a 2-D expression (loom::index<0>(), index<1>(), the
    // broadcasts of loom/matrix.hpp), u64. A matrix statement's shape has them lowered to
    // arithmetic on `element` (ir/lower_positions.hpp); an axis reduction's pass declares them
    // as its loop counters (codegen/axis_pass.hpp).
    row,
    column,
    // The element's position along the third axis of a 3-D expression (loom::index<2>(); row
    // and column are then its first two axes), u64. Only element-wise statements over a 3-D
    // array hold it, lowered to arithmetic on `element` like the others.
    axis2,
    // A grid kernel's row width, loom_w (i64): every 2-D and 3-D read's width there, since a grid
    // kernel is launched only where all its reads' widths are one value (ir::kernel::grid_width_param).
    grid_width,
    // A grid kernel's plane coordinates, where its 3-D reads share one plane height
    // (ir::kernel::grid_height_param), i64: the element's plane and its row in that plane,
    // computed once per row (loom_row / rows, and the remainder), the rows per plane, and
    // the planes. Every 3-D read takes them, where its own would divide per element.
    grid_plane,
    grid_plane_row,
    grid_plane_rows,
    grid_planes,
    // The entry a row_sum's loop is at (its node's type, an integer): only the nodes of a
    // row_sum's body read it, and the emitter writes them inside that loop (codegen/emit_core.cpp).
    entry,
};

// The literal 0 of index arithmetic, which also stands for a neighbour read's offset that is
// zero (fusion::zero_offset): that coordinate is the element's own.
inline bool is_literal_zero(const node& n) {
    return n.op == opcode::index && index_value(n.slot) == index_value::zero;
}

// Hash-consing table shared by every builder of node lists: adding a node equal to an
// existing one returns the existing index, which is how common sub-expressions merge.
class node_list {
public:
    std::uint32_t add(const node& n);
    const std::vector<node>& nodes() const { return nodes_; }
    const node& operator[](std::uint32_t i) const { return nodes_[i]; }
    std::size_t size() const { return nodes_.size(); }
    void clear();

private:
    std::vector<node> nodes_;
    std::vector<std::uint32_t> buckets_; // open addressing over node indices; 0 = empty, else index + 1
};

} // namespace loom::ir
