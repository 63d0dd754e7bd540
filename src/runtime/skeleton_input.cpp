// Checks and numbering of a skeleton call's input; see skeleton_input.hpp.
#include "runtime/skeleton_input.hpp"

#include <string>

#include "loom/error.hpp"
#include "runtime/buffer.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/plan_cache.hpp"
#include "skeleton/skeleton_kernel.hpp"

namespace loom::detail {

const fusion::bound_slot* input_slots(context_impl& ctx, const shape& s) {
    const std::vector<fusion::bound_slot>& queued = ctx.queue().slots;
    return queued.data() + (queued.size() - s.slots.size());
}

const std::vector<std::uint32_t>& number_slot_classes(context_impl& ctx, const shape& s,
                                                      const fusion::bound_slot* slots, const char* what) {
    if (s.uses_f64 && !ctx.info().fp64)
        throw error(std::string("loom: ") + what + " computes in double, which the device " + ctx.info().name +
                    " does not support; use float, or pick a device with fp64");
    skeleton_scratch& scratch = ctx.call_scratch();
    std::vector<std::uint32_t>& slot_class = scratch.slot_class;
    std::vector<const buffer*>& classes = scratch.buffers;
    slot_class.clear();
    classes.clear();
    scratch.values.clear();
    for (std::size_t k = 0; k < s.slots.size(); ++k) {
        const buffer* b = slots[k].buffer.get();
        if (!b) {
            slot_class.push_back(skeleton::scalar_value_class(s.slots[k], slots[k].bits, scratch.values));
            continue;
        }
        if (b->ctx != &ctx)
            throw error(std::string("loom: ") + what +
                        ": the input mixes vectors from two contexts; copy the data into one context first");
        std::uint32_t c = 0;
        while (c < classes.size() && classes[c] != b) ++c;
        if (c == classes.size()) classes.push_back(b);
        slot_class.push_back(c);
    }
    return slot_class;
}

bound_input bind_input(context_impl& ctx, const shape& s, std::uint64_t view_length, const char* what) {
    const fusion::bound_slot* slots = input_slots(ctx, s);
    bound_input in{slots, number_slot_classes(ctx, s, slots, what), 0};
    bool have_length = false;
    for (std::size_t k = 0; k < s.slots.size(); ++k) {
        const buffer* b = in.slots[k].buffer.get();
        if (!b) continue;
        // A device scalar serves any length; a viewed or gathered vector is read at indices the
        // view checked or the gather bounds, and the view's length is view_length.
        if (s.slots[k].broadcast || s.slots[k].any_length) continue;
        if (have_length && b->length != in.length)
            throw length_error(std::string("loom: ") + what + ": length mismatch in the input expression: vectors of " +
                               std::to_string(in.length) + " and " + std::to_string(b->length) +
                               " elements; element-wise expressions need vectors of equal length");
        in.length = b->length;
        have_length = true;
    }
    if (view_length != 0) {
        if (have_length && in.length != view_length)
            throw length_error(std::string("loom: ") + what + ": length mismatch in the input expression: a view of " +
                               std::to_string(view_length) + " elements and vectors of " + std::to_string(in.length) +
                               "; views and vectors in one expression need equal lengths");
        in.length = view_length;
        have_length = true;
    }
    in.has_length = have_length;
    return in;
}

void run_into(context_impl& ctx, cached_plan& cached, const plan::launch_sizes& sizes, const bound_input& in,
              const shape& s, const buffer_ptr& output) {
    call_values values;
    values.slots = in.slots;
    values.slot_count = s.slots.size();
    values.guard = ctx.guard();
    values.results = &output;
    values.result_count = 1;
    ctx.execution().run_passes(cached.plan, cached.scratch, cached.kernels.data(), sizes, values,
                               ctx.call_scratch().args);
}

} // namespace loom::detail
