// The emitter core every kernel is written from, in either dialect: each IR node as one
// typed local (`float v3 = ...;`), a kernel's stores, its parameter list, its guard and its
// prologue. The map, reduction-pass and scan-pass emitters write their loops around these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/dialect.hpp"
#include "codegen/kernel_source.hpp"
#include "codegen/source_builder.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

// The name of node n's value in emitted code.
std::string value_name(std::uint32_t n);

bool uses_f64(const ir::kernel& k);
// The text before a kernel: the dialect's prologue, the fp64 pragma when k uses double, the
// complex helpers k calls (complex_helpers.hpp) and the definitions of the source functions k
// calls (source_function_definitions).
std::string emit_prologue(const ir::kernel& k, const dialect& d);
// The definitions of the source functions (ir/source_function.hpp) k calls, each guarded by a
// macro so that a second definition of one function in a program is skipped.
std::string source_function_definitions(const ir::kernel& k, const dialect& d);
// "T0 p0, T1 p1, ..., " : every parameter but packed scalars, each followed by ", ", then the
// packed-scalar buffer when there is one, then the loop guard's parameter when the kernel is
// guarded. `rebindable`: buffers are plain pointers (neither const nor restrict) of one type
// per element type, so that the kernel may point one parameter at another's buffer (a looped
// kernel following loom::swap).
std::string emit_parameters(const ir::kernel& k, const dialect& d, bool rebindable = false);
// What emit_parameters declares, in its order, appended to `layout`.
void input_layout(const ir::kernel& k, parameter_layout& layout);

// The first statements of a kernel's body: a guarded kernel's return when the loop has ended,
// and the declarations of packed scalars (ir::kernel_param::packed); nothing when it has neither.
void write_guard(source_builder& b, const ir::kernel& k);

// The printer reads kernels whose neighbour reads are lowered (lower_neighbour_reads): it
// writes loads, arithmetic and selects, and no boundary policy. `index` spells the element.
// One "T vK = ...;" line per node reachable from `roots`, in body order.
void write_values(source_builder& b, const ir::kernel& k, const std::vector<std::uint32_t>& roots,
                  const std::string& index = "i");
// The same for the nodes `nodes` marks, whatever reaches them.
void write_marked_values(source_builder& b, const ir::kernel& k, const std::vector<bool>& nodes,
                         const std::string& index = "i");
// One "p<param>[<index>] = vK;" line per store of the kernel (a store at an index of its own
// writes there, and not at all past its limit).
void write_stores(source_builder& b, const ir::kernel& k, const std::string& index = "i");
// The values the stores need, then the stores.
void write_body(source_builder& b, const ir::kernel& k, const std::string& index = "i");

// The nodes the kernel's stores reach; only those are written (dead code never reaches the text).
std::vector<bool> live_nodes(const ir::kernel& k);
// The nodes `roots` reach.
std::vector<bool> live_nodes(const ir::kernel& k, const std::vector<std::uint32_t>& roots);

// The right-hand side of node n's "T vN = ...;" line (write_values), `index` spelling the element.
std::string value_expression(const ir::kernel& k, std::uint32_t n, const dialect& d, const std::string& index);

} // namespace loom::codegen
