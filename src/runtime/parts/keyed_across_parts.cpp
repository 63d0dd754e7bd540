// Keyed operations on a context of several devices (docs/multi-device.md). Every part runs the
// one-device operation over its own elements, all parts at once; what the split changes is a
// segment (a run of equal consecutive keys) that runs on across a part's end:
// - a scan by key: the continued segment's first elements in the later part miss the fold of its
//   elements in the parts before (the carry C). That part's first segment ends at E (the first key
//   unlike its first, found by a reduction), and a statement applies out = op(C, out) below E.
//   A part that is one segment passes its carry on: C for the next is op(C, its fold).
//   Exclusive scans from an initial value that is not the operation's identity: a part touched by
//   a split segment scans from the identity, and then applies out = op(init op C, out) below E
//   and out = op(init, out) from E on (init is on the left of everything in the segment).
// - reduce_by_key: each part reduces into buffers of its own; a segment split over parts k..m is
//   the fold of k's last value, the values of the parts between (each one segment) and m's first;
//   each part's segments then go to their places in the outputs, its first left out where it
//   continues the one before. Nothing is written until every count is known to fit.
// Folds of values (C, init op C, a split segment's value) are made on the first part's device:
// the host cannot evaluate a traced operation. Keys are compared as the device compares them
// (==: NaN unlike everything, -0 like +0). Keys that are not a whole vector, values that read
// neighbours or sparse rows, and an exclusive scan's values that are not a whole vector are
// computed into vectors first (one pass more): a part's first and last keys, and an exclusive
// scan's last value, are read from vectors.
#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "loom/detail/shape_builder.hpp"
#include "loom/keyed.hpp"
#include "loom/reduce.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/parted_buffer.hpp"
#include "runtime/parts/partition.hpp"
#include "runtime/parts/parts_device.hpp"
#include "runtime/parts/statements_across_parts.hpp"
#include "runtime/run_keyed.hpp"

namespace loom::detail {
namespace {

using ir::no_node;

// a == b, both of type T.
template <class T> bool equal_as(const scalar_bits& a, const scalar_bits& b) {
    T x{}, y{};
    std::memcpy(&x, a.word, sizeof x);
    std::memcpy(&y, b.word, sizeof y);
    return x == y;
}

// Whether keys a and b of type t are equal as == on the device says (floats: NaN unlike all).
bool keys_equal(dtype t, const scalar_bits& a, const scalar_bits& b) {
    if (t == dtype::f32) return equal_as<float>(a, b);
    if (t == dtype::f64) return equal_as<double>(a, b);
    return std::memcmp(a.word, b.word, size_of(t)) == 0; // integers and booleans
}

// Whether node `root` of s is a whole vector read at the element.
bool whole_vector(const shape& s, std::uint32_t root) {
    const ir::node& n = s.nodes[root];
    if (n.op != opcode::load) return false;
    const slot_info& slot = s.slots[n.slot];
    return slot.kind == slot_kind::vector && !slot.neighbour && !slot.any_length;
}

// where(keys != first, index, n): its minimum is where a part's first segment ends.
const shape* first_segment_end_shape(dtype key) {
    return derived_shape(std::pair{key, 'e'}, [&] {
        shape_builder b;
        const node_ref keys = b.vector_slot(key), first = b.scalar_slot(key);
        const node_ref index = b.index(), n = b.scalar_slot(dtype::u64);
        return b.finish_expression(b.apply(opcode::select, b.apply(opcode::not_equal, keys, first), index, n));
    });
}

// The elements of part `part` (one device) of `keys` before its first key unlike `first` (all n
// when every key is like it): one reduction, waited for.
std::uint64_t first_segment_end(context_impl& part, const buffer_ptr& keys, const scalar_bits& first, std::uint64_t n) {
    const skeleton_operation op =
        expr::operation<std::uint64_t>(min_operation{}, std::numeric_limits<std::uint64_t>::max());
    std::uint64_t end = n;
    statement_recorder r(part);
    r.vector_slot(keys);
    r.scalar_slot(first.word, size_of(keys->type));
    r.scalar_slot(&n, sizeof n);
    void* host[1] = {&end};
    run_reduce(part, reduce_call{first_segment_end_shape(keys->type), false, &op, 1, 0}, {host, nullptr});
    return end;
}

// A part's output carried from the part before (slots: the output, E, A, then B where `from_init`,
// then the operation's captures):
//   out = where(index < E, op(A, out), out)   without from_init
//   out = op(where(index < E, A, B), out)     with from_init (B the initial value)
const shape* carried_statement(const skeleton_operation& op, bool from_init) {
    return derived_shape(std::pair{op.op->body, from_init}, [&] {
        shape s;
        const auto slot = [&](slot_kind kind, dtype t) {
            s.slots.push_back({kind, t});
            return std::uint32_t(s.slots.size() - 1);
        };
        const auto add = [&](ir::node n) {
            s.nodes.push_back(n);
            return std::uint32_t(s.nodes.size() - 1);
        };
        const auto read = [&](opcode code, dtype t, std::uint32_t at) {
            ir::node n{code, t};
            n.slot = at;
            return add(n);
        };
        const auto apply = [&](opcode code, dtype t, std::uint32_t a, std::uint32_t b, std::uint32_t c = no_node) {
            ir::node n{code, t};
            n.arg[0] = a;
            n.arg[1] = b;
            n.arg[2] = c;
            return add(n);
        };
        const dtype t = op.type;
        const std::uint32_t out = read(opcode::load, t, slot(slot_kind::vector, t));
        ir::node element{opcode::index, dtype::u64};
        element.slot = std::uint32_t(ir::index_value::element);
        const std::uint32_t index = add(element);
        const std::uint32_t end = read(opcode::scalar, dtype::u64, slot(slot_kind::scalar, dtype::u64));
        const std::uint32_t below = apply(opcode::less, dtype::boolean, index, end);
        std::uint32_t left = read(opcode::scalar, t, slot(slot_kind::scalar, t));
        if (from_init)
            left = apply(opcode::select, t, below, left, read(opcode::scalar, t, slot(slot_kind::scalar, t)));
        // The operation's body over (left, out), its captures new scalar slots in their order.
        const shape& body = *op.op->body;
        std::vector<std::uint32_t> capture(body.slots.size(), no_node);
        for (std::size_t j = 0; j < body.slots.size(); ++j)
            if (op.op->role[j] == operand_role::capture) capture[j] = slot(slot_kind::scalar, body.slots[j].type);
        std::vector<std::uint32_t> moved(body.nodes.size(), no_node);
        for (std::size_t j = 0; j < body.nodes.size(); ++j) {
            ir::node n = body.nodes[j];
            if (n.op == opcode::scalar && op.op->role[n.slot] == operand_role::left) {
                moved[j] = left;
            } else if (n.op == opcode::scalar && op.op->role[n.slot] == operand_role::right) {
                moved[j] = out;
            } else {
                for (std::uint32_t& a : n.arg)
                    if (a != no_node) a = moved[a];
                if (n.op == opcode::scalar) n.slot = capture[n.slot];
                moved[j] = add(n);
            }
        }
        const std::uint32_t folded = moved[body.root];
        s.root = from_init ? folded : apply(opcode::select, t, below, folded, out);
        s.has_target = true;
        s.target_type = t;
        return register_shape(std::move(s));
    });
}

// Records carried_statement(op, from_init)'s slots for part buffer `out` and commits it.
void commit_carried(context_impl& part, const skeleton_operation& op, const buffer_ptr& out, std::uint64_t end,
                    const scalar_bits& a, const scalar_bits* b) {
    statement_recorder r(part);
    r.vector_slot(out);
    r.scalar_slot(&end, sizeof end);
    r.scalar_slot(a.word, size_of(op.type));
    if (b) r.scalar_slot(b->word, size_of(op.type));
    for (const scalar_bits& c : op.captures) r.scalar_slot(c.word, sizeof c.word);
    r.commit_assignment(carried_statement(op, b != nullptr), out);
}

// The call's keys and values as the parts read them: the bound slots, the keys' vector, and
// whether the shape counts its index from the part's first element.
struct keyed_input {
    const fusion::bound_slot* slots = nullptr;
    std::uint64_t length = 0;
    buffer_ptr keys;
    const shape* counted = nullptr;
};

// Throws unless a keyed operation over `call` runs across the parts of ctx.
void refuse_unless_across(const context_impl& ctx, const keyed_scan_call& call, const char* what) {
    const std::size_t parts = ctx.parts().size();
    if (ctx.ranks()) throw error(needs_one_device((std::string(what) + " over MPI ranks").c_str(), parts));
    if (call.view_length != 0) throw error(needs_one_device((std::string(what) + " of a view").c_str(), parts));
    for (operand_role role : call.op->op->role)
        if (role == operand_role::device_object)
            throw error(needs_one_device(
                (std::string(what) + " whose operation reads a vector or a loom::scalar").c_str(), parts));
}

// Calls run(call of whole vectors) after computing the keys and values into vectors, where the
// keys are not a whole vector, the values need neighbours or sparse rows, or `values_read` and the
// values are not a whole vector; returns false (and runs nothing) where the call reads them as
// they are.
template <class Run>
bool through_vectors(context_impl& ctx, const keyed_scan_call& call, bool values_read, const char* what, Run run) {
    const shape& s = *call.input;
    if (whole_vector(s, s.root) && !servable_as_statement(s) && (!values_read || whole_vector(s, s.more_roots[0])))
        return false;
    const bound_input in = bind_input(ctx, s, 0, what);
    const input_values keys(ctx, call.input, s.root, in.slots, in.length);
    const input_values values(ctx, call.input, s.more_roots[0], in.slots, in.length);
    statement_recorder r(ctx);
    r.vector_slot(keys.values());
    r.vector_slot(values.values());
    keyed_scan_call of = call;
    of.input = two_vectors_shape(keys.values()->type, values.values()->type);
    run(of);
    return true;
}

// The call's input bound, its partwise form, and every part's pending work run.
keyed_input bind_keyed(context_impl& ctx, const keyed_scan_call& call, const char* what) {
    if (const char* reason = partwise_refusal(*call.input)) throw error(needs_one_device(reason, ctx.parts().size()));
    const bound_input in = bind_input(ctx, *call.input, 0, what);
    keyed_input k;
    k.slots = in.slots;
    k.length = in.has_length ? in.length : 0;
    k.keys = in.slots[call.input->nodes[call.input->root].slot].buffer;
    k.counted = counted_from_part(call.input);
    // What each part has pending runs first (it may write the keys or the values), as on one device.
    for (const context_ptr& part : ctx.parts()) {
        std::lock_guard<std::recursive_mutex> guard(part->mutex());
        run_pending(*part);
    }
    return k;
}

// Per part that holds elements: its first and last keys, and whether its first segment continues
// the last of the part before that holds elements.
struct part_keys {
    std::size_t part = 0;
    part_range range;
    scalar_bits first, last;
    bool continues = false;
};

std::vector<part_keys> keys_at_part_ends(context_impl& ctx, const keyed_input& in) {
    std::vector<part_keys> held;
    const std::vector<part_range> ranges = ctx.split(in.length);
    const dtype t = in.keys->type;
    for (std::size_t k = 0; k < ranges.size(); ++k) {
        if (ranges[k].count == 0) continue;
        part_keys p;
        p.part = k;
        p.range = ranges[k];
        download(*in.keys->parts[k], 0, 1, p.first.word);
        download(*in.keys->parts[k], ranges[k].count - 1, 1, p.last.word);
        p.continues = !held.empty() && keys_equal(t, held.back().last, p.first);
        held.push_back(p);
    }
    return held;
}

// Records part k's keys and values.
void record_keyed_part(statement_recorder& r, const keyed_scan_call& call, const keyed_input& in, const part_keys& p) {
    record_part_slots(r, *call.input, in.slots, p.part, in.counted != call.input, p.range.first);
}

} // namespace

void keyed_scan_across_parts(context_impl& ctx, const keyed_scan_call& call, const buffer_ptr& output) {
    refuse_unless_across(ctx, call, "a scan by key");
    // An exclusive scan reads a part's last value (its last result is the fold before it).
    if (through_vectors(ctx, call, call.exclusive, "keyed scan",
                        [&](const keyed_scan_call& of) { keyed_scan_across_parts(ctx, of, output); }))
        return;
    const keyed_input in = bind_keyed(ctx, call, "keyed scan");
    if (output->ctx != &ctx)
        throw error("loom: keyed scan: the output vector belongs to another context than the keys and values");
    const std::uint64_t n = in.length;
    if (n != output->length)
        throw length_error("loom: keyed scan: length mismatch: the keys and values have " + std::to_string(n) +
                           " elements and the output " + std::to_string(output->length));
    for (std::size_t s = 0; s < call.input->slots.size(); ++s)
        if (in.slots[s].buffer.get() == output.get())
            throw error("loom: keyed scan: the output is one of the keys' or values' vectors; write into another "
                        "vector (a segment's next chunk reads what another work-item would overwrite)");
    if (n == 0) return;
    const skeleton_operation& op = *call.op;
    const std::vector<part_keys> held = keys_at_part_ends(ctx, in);
    // A part touched by a split segment: it continues one, or the next part continues its last.
    std::vector<bool> touched(held.size(), false);
    for (std::size_t h = 1; h < held.size(); ++h)
        if (held[h].continues) touched[h] = touched[h - 1] = true;
    // An exclusive scan from an initial value other than the identity: the touched parts scan from
    // the identity, and take init (and the carry) after (init is left of all their values).
    const bool init_after = call.exclusive && call.init != op.identity;
    for (std::size_t h = 0; h < held.size(); ++h) {
        context_impl& part = *ctx.parts()[held[h].part];
        statement_recorder r(part);
        record_keyed_part(r, call, in, held[h]);
        keyed_scan_call local = call;
        local.input = in.counted;
        if (init_after && touched[h]) local.init = op.identity;
        run_keyed_scan(part, local, output->parts[held[h].part]);
    }
    if (std::none_of(touched.begin(), touched.end(), [](bool t) { return t; })) return;

    // What each continued part folds on its left: the values of its segment in the parts before
    // (`chain`, in order), after init where init_after. A part's fold of its last segment, read
    // before its carried statement, is its last result (inclusive) or its last result and then its
    // last value (exclusive): touched parts scanned from the identity.
    const buffer_ptr& values = in.slots[call.input->nodes[call.input->more_roots[0]].slot].buffer;
    std::vector<scalar_bits> chain;
    for (std::size_t h = 0; h < held.size(); ++h) {
        const part_keys& p = held[h];
        context_impl& part = *ctx.parts()[p.part];
        const buffer_ptr& out = output->parts[p.part];
        std::vector<scalar_bits> mine; // this part's last segment's fold, for the next part
        if (h + 1 < held.size() && held[h + 1].continues) {
            mine.resize(call.exclusive ? 2 : 1);
            download(*out, p.range.count - 1, 1, mine[0].word);
            if (call.exclusive) download(*values->parts[p.part], p.range.count - 1, 1, mine[1].word);
        }
        std::uint64_t end = 0; // the elements of the part's first segment, where it continues one
        if (p.continues) {
            end = first_segment_end(part, in.keys->parts[p.part], p.first, p.range.count);
            std::vector<scalar_bits> left = chain;
            if (init_after) left.insert(left.begin(), call.init);
            const scalar_bits carry = left.size() == 1 ? left[0] : folds_on_first(ctx, op, left).back();
            commit_carried(part, op, out, end, carry, init_after ? &call.init : nullptr);
        } else if (init_after && touched[h]) {
            commit_carried(part, op, out, 0, call.init, &call.init);
        }
        // A part that is one segment continuing the chain passes it on, longer.
        if (!(p.continues && end == p.range.count)) chain.clear();
        chain.insert(chain.end(), mine.begin(), mine.end());
    }
}

std::uint64_t reduce_by_key_across_parts(context_impl& ctx, const keyed_scan_call& call, const buffer_ptr& keys_out,
                                         const buffer_ptr& values_out) {
    refuse_unless_across(ctx, call, "loom::reduce_by_key");
    std::uint64_t of_vectors = 0;
    if (through_vectors(ctx, call, false, "reduce_by_key", [&](const keyed_scan_call& of) {
            of_vectors = reduce_by_key_across_parts(ctx, of, keys_out, values_out);
        }))
        return of_vectors;
    const keyed_input in = bind_keyed(ctx, call, "reduce_by_key");
    for (const buffer_ptr& out : {keys_out, values_out}) {
        if (out->ctx != &ctx)
            throw error("loom::reduce_by_key: an output vector belongs to another context than the keys and values");
        for (std::size_t s = 0; s < call.input->slots.size(); ++s)
            if (in.slots[s].buffer.get() == out.get())
                throw error("loom::reduce_by_key: an output is one of the keys' or values' vectors; write into "
                            "another vector");
    }
    if (keys_out.get() == values_out.get())
        throw error("loom::reduce_by_key: the keys and values outputs are one vector; give each its own");
    if (in.length == 0) return 0;
    const skeleton_operation& op = *call.op;
    const std::vector<part_keys> held = keys_at_part_ends(ctx, in);

    // Every part's segments into buffers of its own, enqueued on every part before any count is
    // read.
    const std::size_t count = held.size();
    std::vector<buffer_ptr> own_keys(count), own_values(count);
    std::vector<enqueued_segments> enqueued(count);
    for (std::size_t h = 0; h < count; ++h) {
        const context_ptr& part = ctx.parts()[held[h].part];
        own_keys[h] = new_buffer(part, held[h].range.count, keys_out->type);
        own_values[h] = new_buffer(part, held[h].range.count, values_out->type);
        statement_recorder r(*part);
        record_keyed_part(r, call, in, held[h]);
        keyed_scan_call local = call;
        local.input = in.counted;
        enqueued[h] = enqueue_reduce_by_key(*part, local, own_keys[h], own_values[h]);
    }
    // Each part's segments go to outputs from at[h], its first left out where it continues the part
    // before's last; a segment split over parts is the fold of its values there (`joined`, at the
    // place of its first piece).
    std::vector<std::uint64_t> segments(count), at(count);
    struct split_segment {
        std::uint64_t place = 0;
        std::vector<scalar_bits> pieces;
    };
    std::vector<split_segment> joined;
    std::uint64_t total = 0;
    for (std::size_t h = 0; h < count; ++h) {
        context_impl& part = *ctx.parts()[held[h].part];
        segments[h] = segments_count(part, enqueued[h], own_keys[h], own_values[h]);
        const bool continues = held[h].continues, next_continues = h + 1 < count && held[h + 1].continues;
        if (continues) {
            scalar_bits first;
            download(*own_values[h], 0, 1, first.word);
            joined.back().pieces.push_back(first);
        }
        at[h] = total;
        total += segments[h] - (continues ? 1 : 0);
        if (next_continues && !(continues && segments[h] == 1)) { // else the split segment runs on through
            split_segment s;
            s.place = total - 1;
            s.pieces.resize(1);
            download(*own_values[h], segments[h] - 1, 1, s.pieces[0].word);
            joined.push_back(s);
        }
    }
    const std::uint64_t room = std::min(keys_out->length, values_out->length);
    if (total > room)
        throw length_error("loom::reduce_by_key: " + std::to_string(total) + " segments go to outputs of " +
                           std::to_string(keys_out->length) + " keys and " + std::to_string(values_out->length) +
                           " values; make both at least that long");
    // Elements from_first .. + n of part k's buffer `from` into the parted `into` from `first` on.
    const auto place = [&](std::size_t k, buffer& from, std::uint64_t from_first, const buffer_ptr& into,
                           std::uint64_t first, std::uint64_t n) {
        const std::vector<part_range> out = ctx.split(into->length);
        for (std::size_t m = 0; m < out.size(); ++m) {
            const std::uint64_t lo = std::max(first, out[m].first),
                                hi = std::min(first + n, out[m].first + out[m].count);
            if (lo < hi)
                copy_between_parts(ctx, k, from, from_first + lo - first, m, *into->parts[m], lo - out[m].first,
                                   hi - lo);
        }
    };
    for (std::size_t h = 0; h < count; ++h) {
        const std::uint64_t skip = held[h].continues ? 1 : 0;
        place(held[h].part, *own_keys[h], skip, keys_out, at[h], segments[h] - skip);
        place(held[h].part, *own_values[h], skip, values_out, at[h], segments[h] - skip);
    }
    const std::vector<part_range> out = ctx.split(values_out->length);
    for (const split_segment& s : joined) {
        const scalar_bits value = folds_on_first(ctx, op, s.pieces).back();
        for (std::size_t m = 0; m < out.size(); ++m)
            if (s.place >= out[m].first && s.place < out[m].first + out[m].count)
                upload(*values_out->parts[m], s.place - out[m].first, 1, value.word);
    }
    return total;
}

} // namespace loom::detail
