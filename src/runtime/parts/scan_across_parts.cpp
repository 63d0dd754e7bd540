// Scans on a context of several devices (docs/multi-device.md): each part scans its own elements,
// and each part's results then take the fold of the parts before it (its carry).
// - inclusive: every part scans at once; each part's total is its last result; the carries are
//   one inclusive scan of the totals on the first part; parts after the first then apply
//   out = op(carry, out), a statement made from the traced operation.
// - exclusive: every part reduces its elements to its total at once; the carries are the folds
//   of the call's initial value and the totals, on the first part; each part then scans with its
//   carry as the initial value.
// Both keep the operation's operand order: a fold of the parts before on the left.
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "loom/detail/shape_builder.hpp"
#include "loom/scan.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/parts_device.hpp"
#include "runtime/parts/statements_across_parts.hpp"
#include "runtime/skeleton_input.hpp"

namespace loom::detail {
namespace {

// `target = op(carry, target)`: the operation's body as a statement, its left operands a scalar
// slot each (bind the carry), its right operands vector slots (bind the target), its captures
// scalar slots as they were. Made once per operation.
const shape* carry_statement(const skeleton_operation& op) {
    return derived_shape(op.op->body, [&] {
        shape statement = *op.op->body;
        for (std::size_t j = 0; j < statement.slots.size(); ++j)
            if (op.op->role[j] == operand_role::right) statement.slots[j].kind = slot_kind::vector;
        for (ir::node& n : statement.nodes)
            if (n.op == opcode::scalar && op.op->role[n.slot] == operand_role::right) n.op = opcode::load;
        return register_shape(std::move(statement));
    });
}

// Records the carry statement's slots for part buffer `out`.
void record_carry(statement_recorder& r, const skeleton_operation& op, const scalar_bits& carry,
                  const buffer_ptr& out) {
    std::size_t capture = 0;
    for (operand_role role : op.op->role) {
        if (role == operand_role::left)
            r.scalar_slot(carry.word, sizeof carry.word);
        else if (role == operand_role::right)
            r.vector_slot(out);
        else
            r.scalar_slot(op.captures[capture++].word, sizeof carry.word);
    }
}

} // namespace

void scan_across_parts(context_impl& ctx, const scan_call& call, const buffer_ptr& output) {
    const std::size_t count = ctx.parts().size();
    if (servable_as_statement(*call.input)) // the input's values first
        return run_on_input_values(ctx, call, "scan", [&](const scan_call& of) { scan_across_parts(ctx, of, output); });
    if (const char* reason = partwise_refusal(*call.input)) throw error(needs_one_device(reason, count));
    if (call.view_length != 0) throw error(needs_one_device("a scan of a view", count));
    for (operand_role role : call.op->op->role)
        if (role == operand_role::device_object)
            throw error(needs_one_device("a scan whose operation reads a vector or a loom::scalar", count));
    bound_input in = bind_input(ctx, *call.input, 0, "scan");
    if (output->ctx != &ctx) throw error("loom: scan: the output vector belongs to another context than the input");
    if (!in.has_length) in.length = output->length;
    if (in.length != output->length)
        throw length_error("loom: scan: length mismatch: the input has " + std::to_string(in.length) +
                           " elements and the output " + std::to_string(output->length));
    if (in.length == 0) return;
    const fusion::bound_slot* slots = in.slots;
    const shape* s = counted_from_part(call.input);
    const bool counted = s != call.input;
    const std::vector<part_range> ranges = ctx.split(in.length);
    const dtype t = call.op->type;
    // What each part has pending runs first (it may write the output or the input), as on one
    // device (loom/scan.hpp runs the pending statements before it records the input).
    for (const context_ptr& part : ctx.parts()) {
        std::lock_guard<std::recursive_mutex> guard(part->mutex());
        run_pending(*part);
    }
    // Records part k's input (its slots, and its first element where the shape counts from it).
    const auto record_input = [&](statement_recorder& r, std::size_t k) {
        record_part_slots(r, *call.input, slots, k, counted, ranges[k].first);
    };
    // Part k's scan of its elements into its part of the output (from `init` where exclusive).
    const auto scan_part = [&](std::size_t k, const scalar_bits& init) {
        if (ranges[k].count == 0) return;
        statement_recorder r(*ctx.parts()[k]);
        record_input(r, k);
        scan_call local = call;
        local.input = s;
        local.init = init;
        run_scan(*ctx.parts()[k], local, output->parts[k]);
    };

    // Part k's place among every rank's parts (its own without ranks), and the totals of the
    // parts before it: each part's total where a later part needs it (the last part's never is),
    // the operation's identity elsewhere; over ranks, every rank's, in rank order.
    const std::size_t before = ctx.parts_before(), bytes = size_of(t);
    std::uint64_t all = 0;
    for (std::uint64_t n : ctx.ranks() ? ctx.rank_parts() : std::vector<std::uint64_t>{count}) all += n;
    const auto needed = [&](std::size_t k) { return before + k + 1 < all && ranges[k].count != 0; };
    const auto every_total = [&](const std::vector<scalar_bits>& mine) {
        std::vector<unsigned char> packed(count * bytes);
        for (std::size_t k = 0; k < count; ++k) std::memcpy(&packed[k * bytes], mine[k].word, bytes);
        packed = all_ranks(ctx, packed, bytes);
        std::vector<scalar_bits> totals(packed.size() / bytes, call.op->identity);
        for (std::size_t g = 0; g < totals.size(); ++g) std::memcpy(totals[g].word, &packed[g * bytes], bytes);
        return totals;
    };

    if (!call.exclusive) {
        for (std::size_t k = 0; k < count; ++k) scan_part(k, call.init);
        // Each part's total is its last result.
        std::vector<scalar_bits> mine(count, call.op->identity);
        for (std::size_t k = 0; k < count; ++k)
            if (needed(k)) download(*output->parts[k], ranges[k].count - 1, 1, mine[k].word);
        std::vector<scalar_bits> totals = every_total(mine);
        totals.resize(before + count - 1 > 0 ? before + count - 1 : 0); // none past this rank's last part's
        if (totals.empty()) return;
        const std::vector<scalar_bits> carries = folds_on_first(ctx, *call.op, totals);
        const shape* carry = carry_statement(*call.op);
        for (std::size_t k = 0; k < count; ++k) {
            if (before + k == 0 || ranges[k].count == 0) continue;
            statement_recorder r(*ctx.parts()[k]);
            record_carry(r, *call.op, carries[before + k - 1], output->parts[k]);
            r.commit_assignment(carry, output->parts[k]);
        }
        return;
    }

    // Exclusive: the parts' totals first, every part at once.
    std::vector<buffer_ptr> totals_on_device(count);
    for (std::size_t k = 0; k < count; ++k) {
        if (!needed(k)) continue;
        context_impl& part = *ctx.parts()[k];
        totals_on_device[k] = new_buffer(part.shared_from_this(), 1, t);
        statement_recorder r(part);
        record_input(r, k);
        reduce_call total{s, false, call.op, 1, 0};
        run_reduce(part, total, {nullptr, &totals_on_device[k]});
    }
    // Part k's carry: call.init folded with the totals of the parts before it, from one exclusive
    // scan of every part's total (the last, never folded into a carry, is the identity).
    std::vector<scalar_bits> mine(count, call.op->identity);
    for (std::size_t k = 0; k < count; ++k)
        if (totals_on_device[k]) download(*totals_on_device[k], 0, 1, mine[k].word);
    std::vector<scalar_bits> from_init = every_total(mine);
    from_init.insert(from_init.begin(), call.init); // carries[g]: init op the totals before part g
    const std::vector<scalar_bits> carries = folds_on_first(ctx, *call.op, from_init);
    for (std::size_t k = 0; k < count; ++k) scan_part(k, carries[before + k]);
}

} // namespace loom::detail
