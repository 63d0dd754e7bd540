// Statements and reductions over the parts of a context of several devices; see
// statements_across_parts.hpp.
#include "runtime/parts/statements_across_parts.hpp"

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "loom/detail/shape_builder.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/parts_device.hpp"
#include "runtime/skeleton_input.hpp"

namespace loom::detail {
namespace {

// Records slots `slots[0 .. s.slots.size())` of a statement of the group into part k's recorder:
// each vector's part k, each scalar as it is, then (for a shape counted from the part) the part's
// first element.
void record_part(statement_recorder& r, const shape& s, const fusion::bound_slot* slots, std::size_t k, bool counted,
                 std::uint64_t first) {
    for (std::size_t j = 0; j < s.slots.size(); ++j) {
        if (slots[j].buffer)
            r.vector_slot(slots[j].buffer->parts[k]);
        else
            r.scalar_slot(slots[j].bits.word, sizeof slots[j].bits.word);
    }
    if (counted) r.scalar_slot(&first, sizeof first);
}

void refuse_unless_partwise(const context_impl& ctx, const shape& s) {
    if (const char* reason = partwise_refusal(s)) throw error(needs_one_device(reason, ctx.parts().size()));
}

// The shape `loom::reduce` folds part 0's partial results with: the vector of partials itself.
const shape* partials_shape(dtype t) {
    static const shape* shapes[dtype_count] = {};
    static std::mutex& lock = *new std::mutex; // never destroyed: contexts may reduce at exit
    std::lock_guard<std::mutex> guard(lock);
    const shape*& s = shapes[std::size_t(t)];
    if (!s) {
        shape_builder b;
        s = b.finish_expression(b.vector_slot(t));
    }
    return s;
}

} // namespace

void commit_across_parts(context_impl& ctx, const shape* written, const fusion::bound_slot* slots,
                         const buffer_ptr& target) {
    refuse_unless_partwise(ctx, *written);
    const shape* s = counted_from_part(written);
    const bool counted = s != written;
    const std::vector<part_range> ranges = ctx.split(target->length);
    for (std::size_t k = 0; k < ranges.size(); ++k) {
        statement_recorder r(*ctx.parts()[k]);
        record_part(r, *written, slots, k, counted, ranges[k].first);
        r.commit_assignment(s, target->parts[k]);
    }
}

void reduce_across_parts(context_impl& ctx, const reduce_call& call, const reduce_results& results) {
    const std::size_t count = ctx.parts().size();
    if (results.device) throw error(needs_one_device("a reduction into a loom::scalar (loom::on_device)", count));
    refuse_unless_partwise(ctx, *call.input);
    if (call.view_length != 0) throw error(needs_one_device("a reduction of a view", count));
    const bound_input in = bind_input(ctx, *call.input, 0, "reduction"); // lengths and contexts checked
    const fusion::bound_slot* slots = in.slots;
    if (!in.has_length)
        throw error(needs_one_device("a reduction of an input without a vector (loom::index(ctx, n) alone)", count));
    const shape* s = counted_from_part(call.input);
    const bool counted = s != call.input;
    const std::vector<part_range> ranges = ctx.split(in.length);

    // Every part's reduction into partial results on its own device, enqueued: nothing waits yet.
    std::vector<buffer_ptr> partials; // part k's result of operation j at k * op_count + j
    for (std::size_t k = 0; k < count; ++k) {
        context_impl& part = *ctx.parts()[k];
        const context_ptr shared = part.shared_from_this();
        for (std::size_t j = 0; j < call.op_count; ++j) partials.push_back(new_buffer(shared, 1, call.ops[j].type));
        statement_recorder r(part);
        record_part(r, *call.input, slots, k, counted, ranges[k].first);
        reduce_call local = call;
        local.input = s;
        run_reduce(part, local, {nullptr, partials.data() + k * call.op_count});
    }
    // Then the partials of each operation, read and folded in part order on part 0 with the
    // operation itself (a user's traced operation as well as sum, min or max).
    const context_ptr first = ctx.parts()[0];
    for (std::size_t j = 0; j < call.op_count; ++j) {
        const dtype t = call.ops[j].type;
        const std::size_t bytes = size_of(t);
        std::vector<unsigned char> values(count * bytes);
        for (std::size_t k = 0; k < count; ++k) download(*partials[k * call.op_count + j], 0, 1, &values[k * bytes]);
        buffer_ptr folded = new_buffer(first, count, t);
        upload(*folded, 0, count, values.data());
        statement_recorder r(*first);
        r.vector_slot(folded);
        reduce_call fold;
        fold.input = partials_shape(t);
        fold.ops = &call.ops[j];
        fold.op_count = 1;
        void* const target[] = {results.host[j]};
        run_reduce(*first, fold, {target, nullptr});
    }
}

} // namespace loom::detail
