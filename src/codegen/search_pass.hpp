// Source text of the binary-search pass (loom::lower_bound, upper_bound, binary_search;
// docs/search-and-compaction.md): every value of an input expression searched for in a sorted
// vector, a work-item a value on a grid-stride loop. Keys compare as the radix sort orders them
// (write_key_bits: floats in totalOrder), ascending or, where `descending` is nonzero, descending.
#pragma once

#include <cstdint>

#include "codegen/dialect.hpp"
#include "codegen/kernel_source.hpp"
#include "ir/kernel.hpp"

namespace loom::codegen {

// What each value's search answers: the first place whose key is not before the value (lower),
// the first whose key is after it (upper), or whether a key equal to it in the order is there
// (found: 1 or 0).
enum class search_bound : std::uint8_t { lower, upper, found };

struct search_pass_kernel {
    const ir::kernel* input = nullptr; // the values' expression: node `root`, of the keys' type
    std::uint32_t root = ir::no_node;
    dtype key = dtype::f32;    // the sorted vector's element type
    dtype result = dtype::u64; // the output's
    search_bound bound = search_bound::lower;
};

// Parameters after the input's: sorted (read), out (written), descending, then n (the values)
// and count (the sorted keys).
kernel_source emit_search_pass(const search_pass_kernel& s, const dialect& d);

} // namespace loom::codegen
