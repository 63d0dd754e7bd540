// Skeleton plan storage and the input binding shared by reduce and scan.
#include "skeleton/skeleton_state.hpp"

#include <xxhash.h>

#include "loom/reduce.hpp"
#include "runtime/buffer.hpp"

namespace loom::skeleton {

std::size_t hash_key(const void* head, std::size_t head_bytes, const std::vector<std::uint32_t>& bindings) {
    return std::size_t(
        XXH3_64bits_withSeed(bindings.data(), bindings.size() * sizeof(std::uint32_t), XXH3_64bits(head, head_bytes)));
}

skeleton_state& state_of(detail::context_impl& ctx) {
    std::unique_ptr<detail::context_extension>& state = ctx.skeleton_state();
    if (!state) state = std::make_unique<skeleton_state>();
    return static_cast<skeleton_state&>(*state); // the only extension the context holds there
}

backend::memory& scratch_buffer(detail::context_impl& ctx, skeleton_plan& plan, std::size_t index, std::size_t bytes) {
    if (plan.scratch.size() <= index) {
        plan.scratch.resize(index + 1);
        plan.scratch_bytes.resize(index + 1, 0);
    }
    if (!plan.scratch[index] || plan.scratch_bytes[index] < bytes) {
        plan.scratch[index] = ctx.device().allocate(bytes);
        plan.scratch_bytes[index] = bytes;
    }
    return *plan.scratch[index];
}

backend::kernel& pass_kernel(detail::context_impl& ctx, skeleton_plan& plan, std::size_t pass) {
    if (plan.kernels.size() < plan.sources.size()) plan.kernels.resize(plan.sources.size(), nullptr);
    if (!plan.kernels[pass]) plan.kernels[pass] = &ctx.programs().get(plan.sources[pass], plan.summaries[pass]);
    return *plan.kernels[pass];
}

const std::vector<std::uint32_t>& number_slot_classes(detail::context_impl& ctx, const detail::shape& s,
                                                      const fusion::bound_slot* slots, const char* what) {
    if (s.uses_f64 && !ctx.info().fp64)
        throw error(std::string("loom: ") + what + " computes in double, which the device " + ctx.info().name +
                    " does not support; use float, or pick a device with fp64");
    skeleton_state& state = state_of(ctx);
    std::vector<std::uint32_t>& slot_class = state.slot_class;
    std::vector<const detail::buffer*>& classes = state.classes;
    slot_class.clear();
    classes.clear();
    state.scalar_values.clear();
    for (std::size_t k = 0; k < s.slots.size(); ++k) {
        const detail::buffer* b = slots[k].buffer.get();
        if (!b) {
            slot_class.push_back(scalar_value_class(s.slots[k], slots[k].bits, state.scalar_values));
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

bound_input bind_input(detail::context_impl& ctx, const detail::shape& s, std::uint64_t view_length, const char* what) {
    std::vector<fusion::bound_slot>& queued = ctx.queue().slots;
    const fusion::bound_slot* slots = queued.data() + (queued.size() - s.slots.size());
    bound_input in{slots, number_slot_classes(ctx, s, slots, what), 0};
    bool have_length = false;
    for (std::size_t k = 0; k < s.slots.size(); ++k) {
        const detail::buffer* b = in.slots[k].buffer.get();
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

unsigned skeleton_group_size(const backend::device_info& info) {
    unsigned g = 256;
    while (g > 1 && g > info.max_work_group) g /= 2;
    return g;
}

void input_arguments(const skeleton_plan& plan, const bound_input& in, std::vector<backend::kernel_arg>& args) {
    const ir::kernel& k = plan.input.kernel;
    for (std::size_t p = 0; p < k.params.size(); ++p) {
        const fusion::bound_slot& slot = in.slots[plan.input.param_slot[p]];
        if (k.params[p].kind == ir::param_kind::buffer)
            args.push_back({slot.buffer->memory.get(), nullptr, 0});
        else
            args.push_back({nullptr, &slot.bits, size_of(k.params[p].type)});
    }
}

void operation_arguments(const skeleton_plan& plan, const detail::skeleton_operation* ops, std::size_t count,
                         std::vector<backend::kernel_arg>& args) {
    for (std::size_t k = 0; k < count; ++k) args.push_back({nullptr, &ops[k].identity, size_of(ops[k].type)});
    for (std::size_t k = 0; k < count; ++k) {
        const std::vector<dtype>& types = plan.ops[k].captures;
        for (std::size_t j = 0; j < types.size(); ++j)
            args.push_back({nullptr, &ops[k].captures[j], size_of(types[j])});
    }
}

} // namespace loom::skeleton
