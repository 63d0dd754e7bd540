// A pass kernel's parameters (codegen's layout, kernel_source::layout) as plan arguments: where
// the executor takes each one from. The planners say what the pass's input, outputs and
// scratch are; the order is codegen's.
#pragma once

#include <cstdint>
#include <vector>

#include "plan/plan.hpp"
#include "skeleton/skeleton_kernel.hpp"

namespace loom::skeleton {

struct pass_binding {
    // Where the input kernel's parameters come from: the call's input slots
    // (input_kernel::param_slot), the flush group the pass runs (map-reduce fusion), or the
    // plan's scratch (an earlier pass's partials: parameter p is scratch partials[p]), or the
    // arguments `given` (parameter p is given[p]).
    enum class input_from : std::uint8_t { slots, fused, scratch, given } input = input_from::slots;
    std::vector<std::uint32_t> partials;
    std::vector<plan::argument> given;
    std::vector<plan::argument> outputs;               // what accumulator k's output (the scan's output) is
    std::uint32_t totals = 0, offsets = 0, status = 0; // the scan's scratch buffers
    // The scan's first value: the call's (an exclusive scan's init, the last pass), or the
    // operation's identity (the passes over totals).
    bool initial_from_call = true;
    // A sort pass's: where the value vectors it moves with the keys are read from, its
    // pass_constant (a radix pass's digit shift, a merge pass's doubling) and a radix pass's
    // direction (1: descending).
    std::vector<plan::argument> carried;
    std::uint32_t pass_constant = 0;
    std::uint32_t descending = 0;
};

// The plan arguments of a pass emitted with `layout` over `in`, folding `ops`.
std::vector<plan::argument> pass_arguments(const codegen::parameter_layout& layout, const input_kernel& in,
                                           const std::vector<combine_op>& ops, const pass_binding& binding);

} // namespace loom::skeleton
