// The fusion planner's input and output. A flush hands the planner its statements with
// every buffer replaced by a small "class" number (first appearance order in the flush),
// so that a plan depends only on shapes and aliasing, never on which buffers they were,
// and one plan serves every flush with the same pattern (a loop body, say).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/kernel.hpp"
#include "ir/shape.hpp"

namespace loom::fusion {

constexpr std::uint32_t no_buffer = 0xFFFFFFFFu;
// The value class of a neighbour read's offset that is zero (slot_info::neighbour_offset): the
// kernel holds a literal 0 for it, not a parameter. Every other neighbour operand has no class.
constexpr std::uint32_t zero_offset = 0xFFFFFFFEu;

struct planned_statement {
    const detail::shape* shape = nullptr;
    std::vector<std::uint32_t> slot_buffer; // per slot: buffer class, or no_buffer for a scalar
    // Per slot: the scalar's value class (scalars of one type and one value share a class, and
    // so a kernel parameter, and the expressions over them merge), or no_buffer: a vector, a
    // neighbour operand (zero_offset for a zero offset), or no dedup asked (empty). Part of the
    // plan key, so a plan depends on which scalars are equal and which offsets are zero, not on
    // their values.
    std::vector<std::uint32_t> slot_scalar;
    std::uint32_t target = no_buffer; // buffer class written
    std::uint32_t length_class = 0;   // statements of equal length share a class
    // A view write at a span disjoint from the earlier view writes of its target that a kernel
    // may hold with it (fusion/disjoint_writes.hpp): it may join them in one kernel.
    bool disjoint_write = false;
};

struct plan_limits {
    // Buffers + scalars per kernel, in 8-byte units: a buffer or a scalar of up to 8 bytes is one,
    // a complex<double> two, a double4 four (parameter_units); OpenCL guarantees 1 KiB of
    // arguments; the runtime sets it from the device (parameter_limit_for).
    std::uint32_t max_parameters = 64;
    std::uint32_t max_nodes = 2048;     // IR nodes per kernel, to bound compile time
    std::uint32_t max_statements = 256; // statements per kernel (max_nodes bounds its size)
};

// The parameters a kernel may take on a device with `bytes` of arguments: each buffer or
// scalar takes at most 8 bytes, and the element count and a loop guard follow them.
inline std::uint32_t parameter_limit_for(std::size_t bytes) {
    return std::uint32_t(bytes / 8 > 18 ? bytes / 8 - 2 : 16);
}
// The 8-byte units of plan_limits::max_parameters a scalar of type t takes.
inline std::uint32_t parameter_units(dtype t) { return (size_of(t) + 7) / 8; }

struct plan_request {
    std::vector<planned_statement> statements;
    std::vector<dtype> buffer_types; // per buffer class
    std::vector<bool> buffer_live;   // per class: a live loom::vector still refers to it
    // Per class: the name loom::name gave its buffer, or "". Optional (empty: none named); the
    // kernels' comment headers use it, nothing else does.
    std::vector<std::string> buffer_names;
    bool fuse = true; // false: one kernel per statement (LOOM_FUSION=0)
    // Scalars beyond the parameter limit may travel in a packed buffer (kernel_param::packed),
    // so that only buffers close a kernel at the limit. For plans whose kernels the runtime
    // launches as maps; a reduction's input or a loop's kernels keep every scalar an argument.
    bool pack_scalars = false;
    plan_limits limits;
};

// Why a kernel ends where it does. The fusion log prints these names.
enum class boundary : std::uint8_t {
    end_of_flush,    // the last pending statement
    fusion_off,      // LOOM_FUSION=0
    length_change,   // the next statement has another length
    parameter_limit, // the next statement would pass max_parameters
    node_limit,      // ... max_nodes
    statement_limit, // ... max_statements
    neighbour_read,  // the next statement reads, at other indices, a vector this kernel writes
    neighbour_write, // the next statement writes a vector this kernel reads at other indices
    gather_read,     // the next statement gathers from (or reads through a view) a vector this kernel writes
    view_write,      // a vector written through a view or scatter meets another access to it in this kernel
};
const char* name_of(boundary b);

// Where a kernel parameter's value comes from at launch time.
struct arg_binding {
    ir::param_kind kind;
    std::uint32_t buffer = no_buffer; // buffer class, for a buffer parameter
    std::uint32_t statement = 0;      // for a scalar: which statement's slot holds the value
    std::uint32_t slot = 0;
};

struct kernel_group {
    std::uint32_t first = 0, last = 0; // statements first..last, inclusive
    boundary reason = boundary::end_of_flush;
    std::uint32_t reason_buffer = no_buffer; // neighbour_read/_write: the vector in question
    std::uint32_t reason_statement = 0;      // ... and the statement of this kernel that wrote or read it
    ir::kernel kernel;
    // The body node of the last statement's value: what a reduction reads per element when
    // this group runs as the reduction's first pass (map-reduce fusion; see run_reduce).
    std::uint32_t last_value = ir::no_node;
    std::vector<arg_binding> args;                     // one per kernel parameter
    std::vector<std::uint32_t> loaded, stored, elided; // buffer classes, for logs and tests
};

struct kernel_plan {
    std::vector<kernel_group> groups;
};

// The planner: group boundaries, then one kernel per group.
kernel_plan plan_kernels(const plan_request& request);

} // namespace loom::fusion
