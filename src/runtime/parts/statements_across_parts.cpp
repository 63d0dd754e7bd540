// Statements and reductions over the parts of a context of several devices; see
// statements_across_parts.hpp.
#include "runtime/parts/statements_across_parts.hpp"

#include <cstring>
#include <mutex>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "loom/detail/shape_builder.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/parted_buffer.hpp"
#include "runtime/parts/halo_reads.hpp"
#include "runtime/parts/parts_device.hpp"
#include "runtime/parts/rebalance.hpp"
#include "runtime/parts/sparse_across_parts.hpp"
#include "runtime/skeleton_input.hpp"

namespace loom::detail {
namespace {

void refuse_unless_partwise(const context_impl& ctx, const shape& s) {
    if (const char* reason = partwise_refusal(s)) throw error(needs_one_device(reason, ctx.parts().size()));
}

} // namespace

// Records slots `slots[0 .. s.slots.size())` of a statement of the group into part k's recorder:
// each vector's part k, each scalar as it is, then (for a shape counted from the part) the part's
// first element.
void record_part_slots(statement_recorder& r, const shape& s, const fusion::bound_slot* slots, std::size_t k,
                       bool counted, std::uint64_t first) {
    for (std::size_t j = 0; j < s.slots.size(); ++j) {
        if (slots[j].buffer && slots[j].buffer->parts.size() <= k) // checked by the callers; kept as a guard
            throw error("loom: an expression mixes vectors from two contexts; copy the data into one context "
                        "(through the host) before combining them");
        if (slots[j].buffer)
            r.vector_slot(slots[j].buffer->parts[k]);
        else
            r.scalar_slot(slots[j].bits.word, sizeof slots[j].bits.word);
    }
    if (counted) r.scalar_slot(&first, sizeof first);
}

std::vector<unsigned char> all_ranks(const context_impl& ctx, const std::vector<unsigned char>& values,
                                     std::size_t bytes) {
    const rank_group* ranks = ctx.ranks();
    if (!ranks) return values;
    std::uint64_t total = 0;
    for (std::uint64_t n : ctx.rank_parts()) total += n;
    std::vector<unsigned char> all(total * bytes);
    ranks->allgather(values.data(), all.data(), bytes, ctx.rank_parts());
    return all;
}

const shape* whole_vector_shape(dtype t) {
    return derived_shape(t, [&] {
        shape_builder b;
        return b.finish_expression(b.vector_slot(t));
    });
}

const shape* two_vectors_shape(dtype first, dtype second) {
    return derived_shape(std::pair{first, second}, [&] {
        shape two;
        for (const dtype t : {first, second}) {
            ir::node n{opcode::load, t};
            n.slot = std::uint32_t(two.slots.size());
            two.slots.push_back({slot_kind::vector, t});
            two.nodes.push_back(n);
        }
        two.root = 0;
        two.more_roots = {1};
        return register_shape(std::move(two));
    });
}

std::vector<scalar_bits> folds_on_first(context_impl& ctx, const skeleton_operation& op,
                                        const std::vector<scalar_bits>& values) {
    const dtype t = op.type;
    const std::size_t bytes = size_of(t), count = values.size();
    if (count == 0) return {};
    const context_ptr first = ctx.parts()[0];
    std::vector<unsigned char> packed(count * bytes);
    for (std::size_t k = 0; k < count; ++k) std::memcpy(&packed[k * bytes], values[k].word, bytes);
    const buffer_ptr in = new_buffer(first, count, t), out = new_buffer(first, count, t);
    upload(*in, 0, count, packed.data());
    {
        statement_recorder r(*first);
        r.vector_slot(in);
        scan_call fold{whole_vector_shape(t), &op, false, op.identity, 0};
        run_scan(*first, fold, out);
    }
    download(*out, 0, count, packed.data());
    std::vector<scalar_bits> folds(count);
    for (std::size_t k = 0; k < count; ++k) std::memcpy(folds[k].word, &packed[k * bytes], bytes);
    return folds;
}

bool servable_as_statement(const shape& s) { return halo_servable(s) || sparse_servable(s); }

input_values::input_values(context_impl& ctx, const shape* input, std::uint32_t root, const fusion::bound_slot* slots,
                           std::uint64_t length) {
    const shape* assignment = derived_shape(std::pair{input, root}, [&] { // the root's value, stored
        shape s = *input;
        s.root = root;
        s.more_roots.clear();
        s.has_target = true;
        s.target_type = input->nodes[root].type;
        return register_shape(std::move(s));
    });
    values_ = new_parted_buffer(ctx.shared_from_this(), length, assignment->target_type);
    attach_vector(*values_);
    try {
        commit_across_parts(ctx, assignment, slots, values_);
    } catch (...) {
        detach_vector(*values_);
        throw;
    }
}

input_values::~input_values() { detach_vector(*values_); }

void commit_across_parts(context_impl& ctx, const shape* written, const fusion::bound_slot* slots,
                         const buffer_ptr& target) {
    if (const char* reason = partwise_refusal(*written)) { // one scan of the shape on the common path
        if (halo_servable(*written)) return commit_with_halos(ctx, written, slots, target);
        if (sparse_servable(*written)) return commit_sparse_across_parts(ctx, written, slots, target);
        throw error(needs_one_device(reason, ctx.parts().size()));
    }
    const shape* s = counted_from_part(written);
    const bool counted = s != written;
    if (target->replicated) {
        // A loom::scalar: every part computes the one element into its own copy, from copies.
        for (std::size_t j = 0; j < written->slots.size(); ++j)
            if (slots[j].buffer && !slots[j].buffer->replicated)
                throw error(needs_one_device("a loom::scalar assigned from a vector's element", ctx.parts().size()));
        for (std::size_t k = 0; k < ctx.parts().size(); ++k) {
            statement_recorder r(*ctx.parts()[k]);
            record_part_slots(r, *written, slots, k, counted, 0);
            r.commit_assignment(s, target->parts[k]);
        }
        return;
    }
    const std::vector<part_range> ranges = ctx.split(target->length);
    for (std::size_t k = 0; k < ranges.size(); ++k) {
        statement_recorder r(*ctx.parts()[k]);
        record_part_slots(r, *written, slots, k, counted, ranges[k].first);
        r.commit_assignment(s, target->parts[k]);
    }
}

void reduce_across_parts(context_impl& ctx, const reduce_call& call, const reduce_results& results) {
    const std::size_t count = ctx.parts().size();
    if (servable_as_statement(*call.input)) // the input's values first
        return run_on_input_values(ctx, call, "reduction",
                                   [&](const reduce_call& of) { reduce_across_parts(ctx, of, results); });
    refuse_unless_partwise(ctx, *call.input);
    if (results.device)
        for (std::size_t j = 0; j < call.op_count; ++j)
            if (results.device[j]->ctx != &ctx || !results.device[j]->replicated)
                throw error("loom: a reduction into a loom::scalar of another context; use one context");
    if (call.view_length != 0) throw error(needs_one_device("a reduction of a view", count));
    const bound_input in = bind_input(ctx, *call.input, 0, "reduction"); // lengths and contexts checked
    const fusion::bound_slot* slots = in.slots;
    if (!in.has_length)
        throw error(needs_one_device("a reduction of an input without a vector (loom::index(ctx, n) alone)", count));
    const shape* s = counted_from_part(call.input);
    const bool counted = s != call.input;
    const std::vector<part_range> ranges = ctx.split(in.length);

    // One part of one rank (loom::mpi over one process of one device): its reduction is the result,
    // with no partial to read and fold (the path's cost over a plain context, docs/multi-device.md).
    if (count == 1 && (!ctx.ranks() || ctx.ranks()->size() == 1)) {
        statement_recorder r(*ctx.parts()[0]);
        record_part_slots(r, *call.input, slots, 0, counted, ranges[0].first);
        reduce_call local = call;
        local.input = s;
        std::vector<buffer_ptr> into;
        if (results.device)
            for (std::size_t j = 0; j < call.op_count; ++j) into.push_back(results.device[j]->parts[0]);
        run_reduce(*ctx.parts()[0], local, {results.host, results.device ? into.data() : nullptr});
        return;
    }
    // Every part's reduction into partial results on its own device, enqueued: nothing waits yet.
    std::vector<buffer_ptr> partials; // part k's result of operation j at k * op_count + j
    for (std::size_t k = 0; k < count; ++k) {
        context_impl& part = *ctx.parts()[k];
        const context_ptr shared = part.shared_from_this();
        for (std::size_t j = 0; j < call.op_count; ++j) partials.push_back(new_buffer(shared, 1, call.ops[j].type));
        statement_recorder r(part);
        record_part_slots(r, *call.input, slots, k, counted, ranges[k].first);
        reduce_call local = call;
        local.input = s;
        run_reduce(part, local, {nullptr, partials.data() + k * call.op_count});
    }
    // Then the partials of each operation, read (the one wait), and folded in part order with the
    // operation itself (a user's traced operation as well as sum, min or max): on the first part
    // into the host result, or into a loom::scalar on every part, each into its own copy (the same
    // fold of the same values, so the copies agree without a copy between devices).
    for (std::size_t j = 0; j < call.op_count; ++j) {
        const dtype t = call.ops[j].type;
        const std::size_t bytes = size_of(t);
        std::vector<unsigned char> values(count * bytes);
        for (std::size_t k = 0; k < count; ++k) download(*partials[k * call.op_count + j], 0, 1, &values[k * bytes]);
        // Over MPI ranks, every rank's partials, in rank order: every rank folds them all alike.
        const std::vector<unsigned char> folded_values = all_ranks(ctx, values, bytes);
        const std::size_t folded_count = folded_values.size() / bytes;
        for (std::size_t k = 0; k < (results.device ? count : 1); ++k) {
            const context_ptr part = ctx.parts()[k];
            buffer_ptr folded = new_buffer(part, folded_count, t);
            upload(*folded, 0, folded_count, folded_values.data());
            statement_recorder r(*part);
            r.vector_slot(folded);
            reduce_call fold;
            fold.input = whole_vector_shape(t);
            fold.ops = &call.ops[j];
            fold.op_count = 1;
            if (results.device) {
                run_reduce(*part, fold, {nullptr, &results.device[j]->parts[k]});
            } else {
                void* const host[] = {results.host[j]};
                run_reduce(*part, fold, {host, nullptr});
            }
        }
    }
    if (results.host && ctx.dynamic_balance()) rebalance(ctx); // a result read: the parts have finished
}

} // namespace loom::detail
