// The checks and numbering of a skeleton call's input expression (a reduction's, a scan's, an
// axis reduction's), whose slots are the last ones recorded in the context's queue: one
// context, fp64 where it computes in double, equal lengths; then the classes its slots bind,
// which key its plan (runtime/plan_cache.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "backend/device.hpp"
#include "fusion/statement_queue.hpp"
#include "ir/shape.hpp"
#include "plan/plan.hpp"

namespace loom::detail {

class context_impl;
struct buffer;

// Scratch of the skeleton calls, reused so that a repeated call allocates nothing (calls do not
// nest: the context's lock is held throughout).
struct skeleton_scratch {
    std::vector<const buffer*> buffers;    // number_slot_classes': buffers by class
    std::vector<scalar_value> values;      // ... scalar value classes
    std::vector<std::uint32_t> slot_class; // ... its result
    std::vector<backend::kernel_arg> args; // a pass's arguments
};

// The classes of the input's slots (`slots`: s.slots.size() of them) into the context's
// scratch, which it returns: buffers numbered by first appearance, scalars by
// skeleton::scalar_value_class. Throws where a vector belongs to another context, or the input
// computes in double on a device without it. `what` names the skeleton in errors.
const std::vector<std::uint32_t>& number_slot_classes(context_impl& ctx, const shape& s,
                                                      const fusion::bound_slot* slots, const char* what);

struct bound_input {
    const fusion::bound_slot* slots = nullptr;
    const std::vector<std::uint32_t>& slot_class; // the context's scratch: valid until the next bind_input
    std::uint64_t length = 0;
    // Whether an operand gave the input its length; an input of loom::index() and scalars alone
    // has none, and takes the length of what it is computed into (a scan's output).
    bool has_length = false;
};
// The input's slots, classes and common length; checks contexts and lengths. `view_length`:
// the elements of the input's views (0: none), which its viewed vectors do not tell.
bound_input bind_input(context_impl& ctx, const shape& s, std::uint64_t view_length, const char* what);

// A plan of one output vector run by the executor (allocate, bind, launch) over the input `in`
// binds (of shape s), with `sizes`: the block map's and the binary search's calls.
struct cached_plan;
void run_into(context_impl& ctx, cached_plan& cached, const plan::launch_sizes& sizes, const bound_input& in,
              const shape& s, const buffer_ptr& output);

// The input's slots: the last s.slots.size() recorded (where a flush may have moved them).
const fusion::bound_slot* input_slots(context_impl& ctx, const shape& s);

} // namespace loom::detail
