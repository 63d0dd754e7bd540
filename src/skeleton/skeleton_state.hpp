// Per-context state of the multi-pass skeletons: their compiled plans, keyed by small
// integers (shape ids, operation ids, buffer aliasing), so a repeated reduction or scan
// generates no source text and hashes none.
// The state lives in the context (context_impl::skeleton_state), so a plan may keep
// pointers to its compiled kernels: a repeated skeleton call looks nothing up.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/context_impl.hpp"
#include "skeleton/skeleton_kernel.hpp"

namespace loom::skeleton {

struct key_hash {
    std::size_t operator()(const std::vector<std::uint32_t>& key) const;
};

// One compiled multi-pass skeleton for one input shape, operation set and aliasing.
struct skeleton_plan {
    input_kernel input;               // the fused input expression
    std::vector<std::string> sources; // one per pass
    std::vector<std::string> summaries;
    std::vector<backend::kernel*> kernels; // per pass, compiled on first use; owned by the program cache
    std::vector<combine_op> ops;
    // Device scratch (partials, totals, results), kept between calls: the queue is in
    // order, so the next call's kernels run after the last call's are done with it.
    std::vector<std::unique_ptr<backend::memory>> scratch;
    std::vector<std::size_t> scratch_bytes;
    // A reduction's last pass with a loop's bookkeeping at its end, by (pass, flush key of
    // the bookkeeping): see context_impl::run_held_with_epilogue.
    unsigned group = 0;
    bool chunked = false;
    std::unordered_map<std::vector<std::uint32_t>, backend::kernel*, key_hash> with_epilogue;
};

using plan_table = std::unordered_map<std::vector<std::uint32_t>, std::unique_ptr<skeleton_plan>, key_hash>;

// What the skeletons keep per context: their plans, and scratch a call reuses so that a
// repeated reduction or scan allocates nothing (skeleton calls do not nest: the context's
// lock is held throughout).
struct skeleton_state final : detail::context_extension {
    plan_table plans;
    std::vector<std::uint32_t> key;
    std::vector<backend::kernel_arg> args;
    std::vector<const detail::buffer*> classes; // bind_input's
    std::vector<std::uint32_t> slot_class;      // bind_input's result
};

// The skeleton state of this context (created on first use).
skeleton_state& state_of(detail::context_impl& ctx);
inline plan_table& plans_of(detail::context_impl& ctx) { return state_of(ctx).plans; }

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
};
bound_input bind_input(detail::context_impl& ctx, const detail::shape& s, const char* what);

// Work-group size of the skeletons on this device: a power of two, at most 256.
unsigned skeleton_group_size(const backend::device_info& info);

// Kernel arguments of the fused input, from the recorded slots.
void input_arguments(const skeleton_plan& plan, const bound_input& in, std::vector<backend::kernel_arg>& args);

} // namespace loom::skeleton
