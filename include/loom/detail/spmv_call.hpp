// What loom::sparse_matrix's product asks of the compiled library (src/runtime/run_spmv.cpp).
#pragma once

#include <cstdint>

#include "loom/detail/runtime.hpp"

namespace loom::detail {

// y = A x for A's CSR arrays: row_ptr (rows + 1 indices), col and val (the stored entries), all on
// one context with x and y; rows > 0. Runs the pending statements first, then enqueues the
// product's pass; nothing waits.
struct spmv_call {
    const buffer_ptr* row_ptr = nullptr;
    const buffer_ptr* col = nullptr;
    const buffer_ptr* val = nullptr;
    const buffer_ptr* x = nullptr;
    std::uint64_t rows = 0, nonzeros = 0;
};
void run_spmv(context_impl& ctx, const spmv_call& call, const buffer_ptr& y);

} // namespace loom::detail
