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

#include "codegen/source_builder.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

// The elements a work-item takes at once in kernel k's vector form: 4, or 2 where a buffer has
// 8-byte elements (so no access passes 16 bytes); 0 where k does not take the form.
unsigned vector_map_lanes(const ir::kernel& k);

// The map's loops in the vector form, over elements [0, n): the aligned vector loop and its
// scalar tail, else the scalar loop. k's neighbour reads are lowered (it has none).
void write_vector_map(source_builder& b, const ir::kernel& k, unsigned lanes);

} // namespace loom::codegen
