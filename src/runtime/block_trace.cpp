// A block lambda's trace; see loom/detail/block_trace.hpp.
#include "loom/detail/block_trace.hpp"

#include <atomic>
#include <string>

#include "ir/shape.hpp"
#include "loom/error.hpp"

namespace loom::detail {
namespace {

thread_local block_trace* running = nullptr;
std::atomic<std::uint64_t> next_trace{1};

} // namespace

struct block_trace::impl {
    shape_builder b;
    std::uint64_t id = next_trace.fetch_add(1, std::memory_order_relaxed);
    std::size_t rows = 0, cols = 0;
    std::vector<node_ref> elements; // input k's element (r, c) at (k * rows + r) * cols + c
    std::vector<node_ref> places;   // element (r, c)'s place in its matrix, at r * cols + c
    std::vector<scalar_bits> constants;
    std::vector<dtype> constant_types;
    std::vector<node_ref> constant_nodes;
};

block_trace::block_trace(const dtype* inputs, std::size_t count, std::size_t rows, std::size_t cols)
    : impl_(std::make_unique<impl>()) {
    if (running) throw error("loom::map_blocks: a block lambda called loom::map_blocks; block lambdas do not nest");
    impl& m = *impl_;
    m.rows = rows;
    m.cols = cols;
    shape_builder& b = m.b;
    std::vector<std::uint32_t> sources(count);
    for (std::size_t k = 0; k < count; ++k) sources[k] = b.gather_source(inputs[k]);
    // The geometry the call gives, each a parameter of its own (never shared with an equal host
    // number, so that a new matrix size never changes the plan): the blocks in a row of blocks,
    // the matrix's columns, the elements between two rows of blocks.
    const node_ref per_row = b.operand_slot(dtype::u64), width = b.operand_slot(dtype::u64);
    const node_ref row_step = b.operand_slot(dtype::u64);
    // The block's width and its columns' offsets are constants the device compiler sees: a
    // block's row is then a run of memory it may read as one vector.
    const node_ref block_width = b.count(cols);
    std::vector<node_ref> offset(cols, 0);
    for (std::size_t c = 1; c < cols; ++c) offset[c] = b.count(c);
    // The block's number, its row and column of blocks, and its first element's place: one
    // division a block.
    const node_ref block = b.index();
    const node_ref block_row = b.apply(opcode::div, block, per_row);
    const node_ref block_col = b.apply(opcode::sub, block, b.apply(opcode::mul, block_row, per_row));
    node_ref row =
        b.apply(opcode::add, b.apply(opcode::mul, block_row, row_step), b.apply(opcode::mul, block_col, block_width));
    m.places.resize(rows * cols);
    for (std::size_t r = 0; r < rows; ++r) {
        if (r > 0) row = b.apply(opcode::add, row, width);
        for (std::size_t c = 0; c < cols; ++c)
            m.places[r * cols + c] = c == 0 ? row : b.apply(opcode::add, row, offset[c]);
    }
    m.elements.resize(count * rows * cols);
    for (std::size_t k = 0; k < count; ++k)
        for (std::size_t e = 0; e < rows * cols; ++e)
            m.elements[k * rows * cols + e] = b.gather(sources[k], m.places[e], false);
    running = this;
}

block_trace::~block_trace() {
    if (running == this) running = nullptr;
}

block_trace& block_trace::current(std::uint64_t id) {
    if (!running)
        throw error("loom::map_blocks: a traced block value was used outside its block lambda; keep block values "
                    "inside the lambda that received them");
    if (id != 0 && running->id() != id)
        throw error("loom::map_blocks: a traced block value from another call of loom::map_blocks was used; keep "
                    "block values inside the lambda that received them");
    return *running;
}

std::uint64_t block_trace::id() const { return impl_->id; }

node_ref block_trace::element(std::size_t input, std::size_t r, std::size_t c) const {
    return impl_->elements[(input * impl_->rows + r) * impl_->cols + c];
}

node_ref block_trace::constant(dtype type, const scalar_bits& value) {
    impl& m = *impl_;
    for (std::size_t k = 0; k < m.constants.size(); ++k)
        if (m.constant_types[k] == type && m.constants[k] == value) return m.constant_nodes[k];
    m.constants.push_back(value);
    m.constant_types.push_back(type);
    m.constant_nodes.push_back(m.b.scalar_slot(type));
    return m.constant_nodes.back();
}

node_ref block_trace::apply(opcode op, node_ref a) { return impl_->b.apply(op, a); }
node_ref block_trace::apply(opcode op, node_ref a, node_ref b) { return impl_->b.apply(op, a, b); }
node_ref block_trace::apply(opcode op, node_ref a, node_ref b, node_ref c) { return impl_->b.apply(op, a, b, c); }

node_ref block_trace::convert(dtype type, node_ref n) {
    return impl_->b.type_of(n) == type ? n : impl_->b.cast(type, n);
}

dtype block_trace::type_of(node_ref n) const { return impl_->b.type_of(n); }

const shape* block_trace::finish(const node_ref* values, dtype out) {
    impl& m = *impl_;
    const std::size_t count = m.rows * m.cols;
    std::vector<node_ref> roots(2 * count);
    for (std::size_t e = 0; e < count; ++e) {
        roots[e] = convert(out, values[e]);
        roots[count + e] = m.places[e];
    }
    return m.b.finish_values(roots.data(), unsigned(roots.size()));
}

const std::vector<scalar_bits>& block_trace::constants() const { return impl_->constants; }
const std::vector<dtype>& block_trace::constant_types() const { return impl_->constant_types; }

} // namespace loom::detail
