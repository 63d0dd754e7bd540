// The IR of one generated kernel: what the fusion planner produces and both emitter
// dialects consume. Every kernel is a map over n elements: load what it reads at
// element i, compute, store what it must keep.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/node.hpp"
#include "ir/shape.hpp"

namespace loom::ir {

enum class param_kind : std::uint8_t { buffer, scalar };

struct kernel_param {
    param_kind kind;
    dtype type;
    bool written = false; // a buffer the kernel stores to (otherwise read-only)
    // A scalar passed in the kernel's packed-scalar buffer (8 bytes each, in parameter order)
    // rather than as an argument: the parameter limit never splits a kernel. The emitter
    // declares it as a local of the same name; the runtime uploads the values.
    bool packed = false;
};

// How a map kernel's work-items walk its n elements. The launch policy (src/launch) picks
// the form per device; the emitter writes it in either dialect.
enum class map_form : std::uint8_t {
    // Each work-item walks one contiguous chunk of about n / (work-items) elements, a
    // multiple of 64 elements long: CPU devices vectorise the chunk's inner loop. Neighbour
    // reads split each chunk into its interior (no border test) and its ends.
    chunked,
    // Work-item g takes elements g, g + G, g + 2G, ... (G the work-items launched): GPUs.
    grid_stride,
};

struct kernel_store {
    std::uint32_t param;           // a buffer parameter
    std::uint32_t value;           // the body node whose value is stored at element i
    std::uint32_t index = no_node; // a body node: store at its value (a u64) instead of at i
    std::uint32_t limit = no_node; // with index: a body node; no store where index >= limit
};

// One statement a kernel holds, for the comment header at the top of its source
// (codegen/kernel_header.hpp): a description, from which no code is generated.
struct statement_note {
    std::uint32_t statement = 0;          // its number in the flush
    const detail::shape* shape = nullptr; // what it computes; shapes are never freed
    std::uint32_t target = no_node;       // the buffer class it writes
    // Per slot of the shape: a vector slot's buffer class, or the kernel parameter that holds a
    // scalar slot's value (literal_zero for a zero offset the kernel holds as a literal).
    std::vector<std::uint32_t> slots;
};
// A statement_note slot of a zero offset (fusion::zero_offset): the kernel has no parameter for it.
constexpr std::uint32_t literal_zero = 0xFFFFFFFEu;

// Grids of fewer elements than this fit int coordinates (kernel::narrow_grid): every offset is
// bounded by its extent (stencil.hpp), so row * width + column + offset stays under 2^31.
constexpr std::uint64_t narrow_grid_limit = std::uint64_t(1) << 30;

struct kernel {
    std::vector<kernel_param> params; // the element count n follows them as the last argument
    std::vector<node> body;           // topological; load/scalar name parameters
    std::vector<kernel_store> stores;
    // Inside loom::loop_while: the kernel takes one more buffer parameter after `params`,
    // the loop's device flag, and does nothing when it is 0 (the loop has ended).
    bool guarded = false;
    // 2-D stencil coordinates (row = i / width) through a double division, exact for
    // i < 2^52: on CPU devices it vectorises, where a 64-bit integer division does not
    // and stays a slow scalar division per neighbour read. Set where the device has fp64 and
    // is no GPU.
    bool double_grid_division = false;
    // The grid form, launched on a 2-D range (launch::grid_geometry): element i is the
    // work-item at (column, row) = (i % w, i / w), w the value of scalar parameter
    // grid_width_param, and every 2-D neighbour read takes its coordinates from the launch,
    // with no division. Only for launches where every grid width argument equals w.
    // no_node: the 1-D form.
    std::uint32_t grid_width_param = no_node;
    // With grid_width_param, where the kernel reads 3-D grids: the scalar parameter holding their
    // rows per plane, launched only where all its 3-D reads' heights equal it. The form then
    // computes the element's plane and row once per row (index_value::grid_plane ...), and a
    // 3-D read clamped or wrapped moves whole rows in the chunked form's interior (no row test).
    std::uint32_t grid_height_param = no_node;
    // With grid_width_param, where the dialect has a narrow grid item: the grid walked in int
    // coordinates, a kernel for launches on grids of fewer than narrow_grid_limit elements
    // (codegen::grid_narrowable). A kernel of its own beside the 64-bit grid kernel, not a
    // branch of it: ptxas gives a kernel the registers of its largest branch, so a kernel holding
    // both bodies would run the int body at the 64-bit body's register count and occupancy
    // (docs/skeleton-stencil.md).
    bool narrow_grid = false;
    // The 1-D form (a grid kernel takes its own, see the dialect's grid_item).
    map_form form = map_form::grid_stride;
    // The statements the kernel holds (the fusion pass's kernels; empty for others), and the
    // names loom::name gave the buffer classes they name ("" for none; empty when no buffer of
    // the plan has one). Read only for the comment header.
    std::vector<statement_note> statements;
    std::vector<std::string> buffer_names;
};

// The body nodes the stores need: each store's value, and its index and limit where it has them.
void append_store_nodes(const kernel& k, std::vector<std::uint32_t>& roots);

// Whether any scalar of k is packed (kernel_param::packed).
bool packs_scalars(const kernel& k);

// Where node n of k is a row position, element / p for a u64 scalar parameter p (how
// ir::lower_positions finds a matrix statement's row, and a 3-D array's row over its planes):
// p. Else no_node.
std::uint32_t row_position_divisor(const kernel& k, const node& n);

// The parameters holding a row width the kernel's grid form must share: the grid width of its
// 2-D and 3-D neighbour reads and the divisor of its row positions (row_position_divisor), in
// body order (repeats included); empty when it has none, or one that is not a 64-bit scalar
// parameter or travels packed.
std::vector<std::uint32_t> grid_width_params(const kernel& k);

// The same for the rows per plane of the kernel's 3-D neighbour reads.
std::vector<std::uint32_t> grid_height_params(const kernel& k);

} // namespace loom::ir
