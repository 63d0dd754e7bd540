// loom::map_blocks on a context of several devices (docs/blocks.md, docs/multi-device.md): a
// block reads and writes only its own elements, so a part that holds whole rows of blocks runs the
// one-device block map over them, every part at once, with no halo and no fold. A split that cuts
// a row of blocks is refused.
#include <string>
#include <vector>

#include "loom/detail/block_trace.hpp"
#include "loom/error.hpp"
#include "loom/reduce.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/parts_device.hpp"
#include "runtime/parts/statements_across_parts.hpp"

namespace loom::detail {

void block_map_across_parts(context_impl& ctx, const block_map_call& call) {
    const std::size_t parts = ctx.parts().size();
    if (ctx.ranks()) throw error(needs_one_device("loom::map_blocks over MPI ranks", parts));
    const std::uint64_t band = call.rows * call.matrix_cols; // the elements of a row of blocks
    const std::vector<part_range> ranges = ctx.split(call.matrix_rows * call.matrix_cols);
    for (const part_range& r : ranges)
        if (r.first % band != 0 || r.count % band != 0)
            throw error("loom::map_blocks: on a context of several devices every part must hold whole rows of " +
                        std::to_string(call.rows) + " x " + std::to_string(call.cols) + " blocks (" +
                        std::to_string(band) + " elements each), and this split gives a part " +
                        std::to_string(r.count) + " elements from element " + std::to_string(r.first) +
                        "; set shares that fall on rows of blocks (context::set_split), or use a context of one "
                        "device");
    run_pending(ctx); // the pending statements of every part, before any part's blocks
    const std::size_t buffers = call.inputs + 1;
    std::vector<buffer_ptr> own(buffers);
    for (std::size_t k = 0; k < ranges.size(); ++k) {
        if (ranges[k].count == 0) continue;
        for (std::size_t b = 0; b < buffers; ++b) own[b] = call.buffers[b]->parts[k];
        block_map_call part = call;
        part.buffers = own.data();
        part.matrix_rows = ranges[k].count / call.matrix_cols;
        run_block_map(part); // enqueued on part k's device; nothing waits
    }
}

} // namespace loom::detail
