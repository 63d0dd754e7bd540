// Per-context state of the multi-pass skeletons: their compiled plans, keyed by small
// integers (shape ids, operation ids, buffer aliasing) in a key type of each skeleton's own,
// so a repeated reduction or scan generates no source text and hashes none.
// The state lives in the context (context_impl::skeleton_state), so a plan may keep
// pointers to its compiled kernels: a repeated skeleton call looks nothing up.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/context_impl.hpp"
#include "skeleton/skeleton_kernel.hpp"

namespace loom::skeleton {

// A plan key: a head of named integer fields, one type per skeleton (reduce_key_head,
// scan_key_head), and the classes its input binds. Keys of different skeletons are different
// types in different tables, so they never meet.
template <class Head> struct plan_key {
    static_assert(std::has_unique_object_representations_v<Head>, "a key head holds integers only, no padding");
    Head head{};
    std::vector<std::uint32_t> bindings;

    bool operator==(const plan_key& other) const {
        return std::memcmp(&head, &other.head, sizeof(Head)) == 0 && bindings == other.bindings;
    }
};

std::size_t hash_key(const void* head, std::size_t head_bytes, const std::vector<std::uint32_t>& bindings);

template <class Head> struct plan_key_hash {
    std::size_t operator()(const plan_key<Head>& k) const { return hash_key(&k.head, sizeof(Head), k.bindings); }
};

template <class Head, class Plan> using plan_table =
    std::unordered_map<plan_key<Head>, std::unique_ptr<Plan>, plan_key_hash<Head>>;

// One compiled multi-pass skeleton for one input shape, operation set and aliasing.
struct skeleton_plan {
    input_kernel input;                          // the fused input expression
    std::vector<codegen::kernel_source> sources; // one per pass
    std::vector<std::string> summaries;
    std::vector<backend::kernel*> kernels; // per pass, compiled on first use; owned by the program cache
    std::vector<combine_op> ops;
    // Device scratch (partials, totals, results), kept between calls: the queue is in
    // order, so the next call's kernels run after the last call's are done with it.
    std::vector<std::unique_ptr<backend::memory>> scratch;
    std::vector<std::size_t> scratch_bytes;
    unsigned group = 0;
    bool chunked = false;
};

// A reduction's key: input shape, how pass 1 gets its input, the operations. Bindings: the
// input's slot classes, or for a fused pass 1 the key of the flush that planned it.
struct reduce_key_head {
    std::uint32_t input_shape = 0;
    std::uint32_t fused = 0;   // pass 1 runs the last group of a flush (map-reduce fusion)
    std::uint32_t truth = 0;   // folds (value != 0)
    std::uint32_t guarded = 0; // inside a loom::loop_while body
    std::uint32_t group = 0;
    std::uint32_t op_count = 0;
    std::uint32_t op_shape[2] = {};
    std::uint32_t op_type[2] = {};
};

// A scan's key. Bindings: the input's slot classes.
struct scan_key_head {
    std::uint32_t input_shape = 0;
    std::uint32_t op_shape = 0;
    std::uint32_t op_type = 0;
    std::uint32_t exclusive = 0;
    std::uint32_t guarded = 0;
    std::uint32_t chunked = 0;
    std::uint32_t group = 0;
    std::uint32_t output_class = 0; // the output's class among the input's buffers, or no_class
};

// An axis reduction's key (axis_reduce.cpp): input shape, axis, kernel form and geometry, the
// operation. Bindings: the input's slot classes.
struct axis_key_head {
    std::uint32_t input_shape = 0;
    std::uint32_t axis = 0;
    std::uint32_t form = 0; // codegen::axis_form
    std::uint32_t group = 0;
    std::uint32_t lanes = 0;
    std::uint32_t guarded = 0;
    std::uint32_t op_shape = 0;
    std::uint32_t op_type = 0;
};

// A reduction plan, with the variants of its passes that run a loop's bookkeeping at their
// end (one epilogue_source per pass, made when a loop first holds that pass; reduce.cpp).
struct reduce_plan : skeleton_plan {
    std::unique_ptr<detail::epilogue_source> epilogues[2];
};

// What the skeletons keep per context: their plans, and scratch a call reuses so that a
// repeated reduction or scan allocates nothing (skeleton calls do not nest: the context's
// lock is held throughout).
struct skeleton_state final : detail::context_extension {
    plan_table<reduce_key_head, reduce_plan> reduce_plans;
    plan_table<scan_key_head, skeleton_plan> scan_plans;
    plan_key<reduce_key_head> reduce_key; // scratch of the lookups, keeping their capacity
    plan_key<scan_key_head> scan_key;
    plan_table<axis_key_head, skeleton_plan> axis_plans;
    plan_key<axis_key_head> axis_key;
    std::vector<backend::kernel_arg> args;
    std::vector<const detail::buffer*> classes;      // bind_input's
    std::vector<detail::scalar_value> scalar_values; // bind_input's scalar value classes
    std::vector<std::uint32_t> slot_class;           // bind_input's result
};

// The skeleton state of this context (created on first use).
skeleton_state& state_of(detail::context_impl& ctx);

// Scratch buffer `index` of a plan, at least `bytes` large (allocated or grown on demand).
backend::memory& scratch_buffer(detail::context_impl& ctx, skeleton_plan& plan, std::size_t index, std::size_t bytes);

// The kernel of pass p, compiled on first use.
backend::kernel& pass_kernel(detail::context_impl& ctx, skeleton_plan& plan, std::size_t pass);

// Buffer classes of the last `slots` recorded slots (first-appearance numbering) and
// their common length; checks contexts and lengths. `what` names the skeleton in errors.
struct bound_input {
    const fusion::bound_slot* slots = nullptr;
    const std::vector<std::uint32_t>& slot_class; // the context's scratch: valid until the next bind_input
    std::uint64_t length = 0;
    // Whether an operand gave the input its length; an input of loom::index() and scalars alone
    // has none, and takes the length of what it is computed into (a scan's output).
    bool has_length = false;
};
// The classes of the input's slots (`slots`: s.slots.size() of them, the last recorded) into the
// context's scratch, which it returns: buffers numbered by first appearance, scalars by
// scalar_value_class. Throws where a vector belongs to another context, or the input computes in
// double on a device without it.
const std::vector<std::uint32_t>& number_slot_classes(detail::context_impl& ctx, const detail::shape& s,
                                                      const fusion::bound_slot* slots, const char* what);
// `view_length`: the elements of the input's views (0: none), which its viewed vectors do not tell.
bound_input bind_input(detail::context_impl& ctx, const detail::shape& s, std::uint64_t view_length, const char* what);

// Work-group size of the skeletons on this device: a power of two, at most 256.
unsigned skeleton_group_size(const backend::device_info& info);

// Kernel arguments of the fused input, from the recorded slots.
void input_arguments(const skeleton_plan& plan, const bound_input& in, std::vector<backend::kernel_arg>& args);

// Kernel arguments of a pass's operations (plan.ops, from ops[0..count)), in the order every pass
// emitter declares them: each operation's identity, then each one's captures.
void operation_arguments(const skeleton_plan& plan, const detail::skeleton_operation* ops, std::size_t count,
                         std::vector<backend::kernel_arg>& args);

} // namespace loom::skeleton
