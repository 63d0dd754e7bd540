// What loom::sparse_matrix asks of the compiled library when it picks its layout
// (src/runtime/sparse_layout.cpp).
#pragma once

#include <cstdint>

#include "loom/detail/runtime.hpp"

namespace loom::detail {

// The rows a slice of a sparse matrix's automatic layout holds on ctx's device
// (launch::sparse_slice_height): 1, CSR, where maps run in chunks; more, sliced ELL, where they
// run grid-stride and neighbouring work-items read neighbouring entries.
std::uint32_t default_slice_height(context_impl& ctx);

} // namespace loom::detail
