// loom::map_blocks at run time (loom/block.hpp, docs/blocks.md): the call checked, the traced
// body's values bound (the inputs, the block geometry, the lambda's host numbers), its plan found
// or made (skeleton::plan_block_map), and the executor's run of its one pass.
#include <array>
#include <mutex>
#include <string>

#include "loom/detail/block_trace.hpp"
#include "loom/error.hpp"
#include "loom/reduce.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/statements_across_parts.hpp"
#include "runtime/plan_cache.hpp"
#include "runtime/skeleton_input.hpp"
#include "skeleton/plan_block_map.hpp"

namespace loom::detail {
namespace {

// The most host numbers a block lambda may use: each is a kernel argument (8 bytes at most), and
// OpenCL promises 1024 bytes of them.
constexpr std::size_t max_block_constants = 96;
// The work-items of a group of the block map's launch.
constexpr std::uint64_t block_group = 64;

// Throws unless the output and every input are matrices of one context.
context_impl& checked_context(const block_map_call& call) {
    const buffer_ptr& out = call.buffers[call.inputs];
    if (!out) throw length_error("loom::map_blocks: the output matrix is empty; make it the inputs' size first");
    context_impl& ctx = *context_of(*out);
    for (std::size_t k = 0; k < call.inputs; ++k) {
        const buffer_ptr& in = call.buffers[k];
        if (!in) throw length_error("loom::map_blocks: input " + std::to_string(k + 1) + " is an empty matrix");
        if (in->ctx != &ctx)
            throw error("loom::map_blocks: input " + std::to_string(k + 1) +
                        " belongs to another context than the output");
    }
    if (call.constants->size() > max_block_constants)
        throw error("loom::map_blocks: the block lambda uses " + std::to_string(call.constants->size()) +
                    " distinct host numbers, more than the " + std::to_string(max_block_constants) +
                    " a kernel takes; pass a table of them as an input matrix instead");
    return ctx;
}

} // namespace

void run_block_map(const block_map_call& call) {
    const std::uint64_t blocks = (call.matrix_rows / call.rows) * (call.matrix_cols / call.cols);
    if (blocks == 0) return; // matrices of no elements (even with no context): nothing to do
    context_impl& ctx = checked_context(call);
    std::unique_lock<std::recursive_mutex> lock(context_mutex(ctx));
    if (ctx.several()) return block_map_across_parts(ctx, call);
    run_pending(ctx);

    // The body's slots, in the order the trace made them (loom/detail/block_trace.hpp).
    statement_recorder recorder(ctx);
    for (std::size_t k = 0; k < call.inputs; ++k) recorder.vector_slot(call.buffers[k]);
    const std::uint64_t geometry[] = {call.matrix_cols / call.cols, call.matrix_cols, call.rows * call.matrix_cols};
    for (const std::uint64_t& g : geometry) recorder.scalar_slot(&g, sizeof g);
    std::array<std::int32_t, max_block_constants> truths{}; // bool values travel as int32
    for (std::size_t j = 0; j < call.constants->size(); ++j) {
        const dtype t = (*call.constant_types)[j];
        const scalar_bits& value = (*call.constants)[j];
        if (t == dtype::boolean) {
            truths[j] = (value.word[0] & 0xFF) != 0;
            recorder.scalar_slot(&truths[j], sizeof truths[j]);
        } else {
            recorder.scalar_slot(value.word, unsigned(size_of(t)));
        }
    }
    const shape* body = ctx.statement_form(call.body);
    const bound_input in = bind_input(ctx, *body, 0, "loom::map_blocks");
    const buffer_ptr& out = call.buffers[call.inputs];

    skeleton::block_map_request request;
    // In place: the output is an input, and the kernel stores through that input's parameter (a
    // block's elements are all read before any is written, and no block reads another's).
    for (std::size_t k = 0; k < call.inputs; ++k)
        if (call.buffers[k].get() == out.get()) request.in_place = std::uint32_t(k);
    request.body = body;
    request.slot_class = &in.slot_class;
    request.output = out->type;
    request.guarded = ctx.guard() != nullptr;
    request.form = ir::map_form::grid_stride; // a block a work-item, on every device (see the launch)
    block_map_key& key = ctx.plans().key<block_map_key>();
    key.body_shape = body->id;
    key.output_type = std::uint32_t(request.output);
    key.form = std::uint32_t(request.form);
    key.guarded = request.guarded;
    key.in_place = request.in_place;
    key.bindings.assign(in.slot_class.begin(), in.slot_class.end());
    cached_plan& cached = ctx.plans().find_or_plan<block_map_key>(
        [&] { return skeleton::plan_block_map(request, ctx.device().dialect()); });

    plan::launch_sizes sizes;
    // One work-item a block, on every device: a GPU's threads then take neighbouring blocks, and
    // on PoCL the work-items of a group run side by side in vector lanes, a block each. The
    // chunked form (a run of blocks a work-item) measured the same there, within the runs'
    // spread (bench_dct8x8, 1024^2 to 4096^2).
    const std::uint64_t group = block_group;
    sizes.geometry[0] = {(blocks + group - 1) / group * group, std::uint32_t(group)};
    sizes.extents[0][std::size_t(codegen::pass_extent::n)] = blocks;
    sizes.elements[0] = blocks;
    run_into(ctx, cached, sizes, in, *body, out);
}

} // namespace loom::detail
