// The reduction skeleton's launch geometry, shared by the runtime and the tests of its
// error bound (docs/skeleton-reduce.md).
#pragma once

#include <cstdint>

#include "backend/device.hpp"

namespace loom::skeleton {

struct reduce_geometry {
    unsigned group = 1;       // work-items per group (a power of two)
    std::uint64_t groups = 1; // groups of pass 1 = partials reduced by pass 2 (no pass 2 when 1)
    // How a work-item walks the input: a contiguous chunk, chunk_lanes elements at a time
    // into as many accumulators (CPU devices: cache lines read once, and independent chains
    // the compiler can vectorise), or a grid-stride loop (GPUs: coalesced loads).
    bool chunked = false;
};

// Accumulators per work-item in the chunked layout. Sixteen, not eight: one 8-wide vector
// add has a latency of several cycles, and with one vector of accumulators each step waits
// for the last; two vectors of them were measurably faster.
constexpr unsigned chunk_lanes = 16;

// Elements a work-item folds in the chunked layout: a multiple of chunk_lanes.
std::uint64_t reduce_chunk(const reduce_geometry& g, std::uint64_t n);

reduce_geometry reduce_geometry_for(const backend::device_info& info, std::uint64_t n);

// The longest chain of additions from one element to the result (k in the bound
// |error| <= gamma_k * sum |x_i|): a work-item's serial fold (chunked: one lane's fold,
// the tail and the fold of the lanes), the tree of pass 1, the serial fold of
// pass 2 and its tree.
std::uint64_t reduce_depth(const reduce_geometry& g, std::uint64_t n);

} // namespace loom::skeleton
