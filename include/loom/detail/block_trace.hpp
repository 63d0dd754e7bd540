// The trace of a block lambda (loom/block.hpp): the lambda runs once on the host with symbolic
// values (loom::traced), and each operation on them adds a node to one shape, the work of one
// block: its inputs' elements read at the block's place, the lambda's arithmetic, and the values
// it returns with the places they are stored at. Defined in src/runtime/block_trace.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "loom/detail/runtime.hpp"
#include "loom/detail/scalar_bits.hpp"
#include "loom/detail/shape_builder.hpp"
#include "loom/dtype.hpp"
#include "loom/expr/opcode.hpp"

namespace loom::detail {

// A block's rows and columns, and the most elements a block may hold: each is a value in a
// work-item's registers (the device spills beyond a few hundred).
inline constexpr std::size_t max_block_elements = 256;

// One trace, current on its thread from construction to destruction (traces do not nest).
// Its shape's slots, in order: each input's matrix (read at computed places), the block
// geometry (the blocks in a row of blocks, the matrix's columns, the elements between block
// rows), then the host numbers the lambda used, each distinct value once, in the order first
// used (constants()).
class block_trace {
public:
    block_trace(const dtype* inputs, std::size_t count, std::size_t rows, std::size_t cols);
    ~block_trace();
    block_trace(const block_trace&) = delete;
    block_trace& operator=(const block_trace&) = delete;

    // The trace running on this thread; throws loom::error when there is none (a traced value
    // kept past its lambda) or when `id` (0: any) names another trace.
    static block_trace& current(std::uint64_t id);
    std::uint64_t id() const;

    // Element (r, c) of input k's block.
    node_ref element(std::size_t input, std::size_t r, std::size_t c) const;
    node_ref constant(dtype type, const scalar_bits& value);
    node_ref apply(opcode op, node_ref a);
    node_ref apply(opcode op, node_ref a, node_ref b);
    node_ref apply(opcode op, node_ref a, node_ref b, node_ref c);
    // n as `type` (no node added when it is already).
    node_ref convert(dtype type, node_ref n);
    dtype type_of(node_ref n) const;

    // The block's work: values[r * cols + c] (each converted to `out`) stored at element (r, c)
    // of the block's place in the output. The shape is the same object for every trace of equal
    // work (its values, its constants' types and count), so that a cached plan serves it.
    const shape* finish(const node_ref* values, dtype out);
    // The host numbers' values and types, in slot order.
    const std::vector<scalar_bits>& constants() const;
    const std::vector<dtype>& constant_types() const;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

// The context's block map (src/runtime/run_block_map.cpp): `body` (block_trace::finish's) over
// every rows x cols block of the `count` input matrices (`buffers[0 .. count)`) into the output
// matrix `buffers[count]`, all of `matrix_rows` x `matrix_cols` elements, checked. The call's
// pending statements run first; on a context of several devices each part runs its rows of
// blocks (runtime/parts/blocks_across_parts.cpp).
struct block_map_call {
    const shape* body = nullptr;
    const buffer_ptr* buffers = nullptr;
    std::size_t inputs = 0;
    std::size_t rows = 0, cols = 0;
    std::uint64_t matrix_rows = 0, matrix_cols = 0;
    const std::vector<scalar_bits>* constants = nullptr;
    const std::vector<dtype>* constant_types = nullptr;
};
void run_block_map(const block_map_call& call);

} // namespace loom::detail
