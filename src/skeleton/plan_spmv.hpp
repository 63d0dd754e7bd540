// The sparse matrix-vector product's planner: y = A x as a plan of one pass
// (codegen/spmv_pass.hpp) over A's CSR arrays. Pure: no device, no context.
#pragma once

#include <cstdint>

#include "codegen/dialect.hpp"
#include "launch/skeleton_geometry.hpp"
#include "plan/plan.hpp"

namespace loom::skeleton {

struct spmv_request {
    dtype value = dtype::f32;
    dtype index = dtype::u32;
    bool guarded = false;
    unsigned lanes = 1, group = 1; // the geometry's (launch::spmv_geometry)
    bool balanced = false;
};

// Slots 0 to 3 are row_ptr, col, val and x; result 0 is y.
plan::plan plan_spmv(const spmv_request& r, const codegen::dialect& d);

// The sizes of a product over `rows` rows holding `nonzeros` entries.
plan::launch_sizes spmv_launch(const launch::spmv_geometry& g, std::uint64_t rows, std::uint64_t nonzeros);

} // namespace loom::skeleton
