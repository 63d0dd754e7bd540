// The grid-stride map with vector loads and stores (GPUs): each work-item takes `lanes` adjacent
// elements at a time, reads each buffer's `lanes` elements as one float4 (double2, int4, ...) and
// writes each stored buffer's the same way, with a scalar loop for the last n % lanes elements.
// A GPU moves a 16-byte access per thread at close to its copy bandwidth, and a 4-byte one short
// of it (issue 38: Loom's scalar copy ran at 81% of cudaMemcpyAsync on an H100).
//
// Not codegen/lane_vectors.hpp's form (the CPU passes' float16 arithmetic): CUDA's float4 has no
// operators, so here only the loads and stores are vectors and each lane's body stays scalar.
//
// Only a plain element-wise kernel takes it: every load and store at the element itself (no
// gathers, neighbour reads or stores elsewhere), every buffer of a real type (no bool, complex or
// short vector), and a short body (below). The vector accesses need each buffer aligned to the
// vector's size; the kernel tests its pointers once and takes the scalar loop where one is not
// (a view into a vector, a sub-buffer).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/source_builder.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

// The elements a work-item takes at once in kernel k's vector form: 4, or 2 where a buffer has
// 8-byte elements (so no access passes 16 bytes); 0 where k does not take the form.
unsigned vector_map_lanes(const ir::kernel& k);

// The map's loops in the vector form, over elements [0, n): the aligned vector loop and its
// scalar tail, else the scalar loop. k's neighbour reads are lowered (it has none).
void write_vector_map(source_builder& b, const ir::kernel& k, unsigned lanes);

// What another pass's vector form (the single-pass scan's tiles, codegen/scan_pass.cpp) shares
// with the map's, over the nodes `live` of k:
// - the lanes they take, counting `also` (the type the pass stores): 4, or 2 where an element
//   is 8 bytes; 0 where a live node is not a plain element-wise read or arithmetic, or there
//   are too many;
unsigned vector_lanes(const ir::kernel& k, const std::vector<bool>& live, dtype also);
// - the buffers the live loads read, in parameter order;
std::vector<std::uint32_t> vector_loads(const ir::kernel& k, const std::vector<bool>& live);
// - "((size_t)pA % 16) | ...": nonzero where one of the buffers is not aligned to its vector;
std::string misalignment(const ir::kernel& k, const std::vector<std::uint32_t>& params, unsigned lanes);
// - the declarations of loom_v<p>, buffer p's `lanes` elements from element loom_first (a name
//   the caller declares);
void declare_vector_loads(source_builder& b, const ir::kernel& k, const std::vector<std::uint32_t>& params,
                          unsigned lanes);
// - one lane's values: the live nodes, each load the lane's component of its vector, `i` the
//   element (declared by the caller).
void write_lane_values(source_builder& b, const ir::kernel& k, const std::vector<bool>& live, unsigned lane);

} // namespace loom::codegen
