// The planner (flush_planner.hpp): plan keys, the plan cache, and new plans compiled.
#include "runtime/flush_planner.hpp"

#include <xxhash.h>

#include <algorithm>
#include <string>

#include "codegen/emit.hpp"
#include "codegen/vector_map.hpp"
#include "fusion/disjoint_writes.hpp"
#include "launch/policy.hpp"
#include "runtime/kernel_observer.hpp"

namespace loom::detail {

std::size_t plan_key_hash::operator()(const std::vector<std::uint32_t>& key) const {
    return std::size_t(XXH3_64bits(key.data(), key.size() * sizeof(std::uint32_t)));
}

namespace {

std::uint32_t class_of(buffer& b, std::uint64_t mark, std::vector<buffer*>& classes) {
    if (b.flush_mark != mark) {
        b.flush_mark = mark;
        b.flush_class = std::uint32_t(classes.size());
        classes.push_back(&b);
    }
    return b.flush_class;
}

// The pass that runs group g: its parameters in order (buffers by class, host scalars from their
// statements' slots, packed scalars left out: they travel in one buffer); then, for a group
// launched as a map, the packed scalars' buffer, the loop's guard and the length.
plan::pass flush_pass(const fusion::kernel_group& g, bool launched) {
    plan::pass pass;
    pass.kind = launched ? plan::pass_kind::map : plan::pass_kind::fused;
    for (std::size_t a = 0; a < g.args.size(); ++a) {
        const fusion::arg_binding& bind = g.args[a];
        if (bind.kind == ir::param_kind::buffer)
            pass.arguments.push_back({plan::source::flush_buffer, bind.buffer, 0, dtype::boolean});
        else if (!g.kernel.params[a].packed)
            pass.arguments.push_back(
                {plan::source::statement_value, bind.statement, bind.slot, g.kernel.params[a].type});
    }
    if (!launched) return pass;
    if (ir::packs_scalars(g.kernel)) pass.arguments.push_back({plan::source::packed_values, 0, 0, dtype::boolean});
    if (g.kernel.guarded) pass.arguments.push_back({plan::source::guard, 0, 0, dtype::boolean});
    pass.arguments.push_back({plan::source::statement_length, g.first, 0, dtype::boolean});
    return pass;
}

} // namespace

// A scalar slot's value class: equal scalars (type and bits) share one, so the kernel passes
// them as one parameter and the expressions over them merge (Black-Scholes written as one
// expression per output repeats its scalars, and each repeat was a new parameter that kept
// the repeated erf() calls apart). Neighbour operands keep no class: changing an offset must
// not change the plan, but for whether an offset is zero (fusion::zero_offset): a zero offset
// is compiled in, and a stencil's reads along its own row or plane then need no index
// arithmetic, clamp or border test on that axis. Only the first 32 distinct values get
// classes (detail::value_class).
std::uint32_t flush_planner::scalar_class(const slot_info& slot, const scalar_bits& bits) {
    if (!shares_equal_values(slot))
        return slot.neighbour_offset && bits == scalar_bits{} ? fusion::zero_offset : fusion::no_buffer;
    const std::uint32_t c = value_class(slot, bits, scalar_values_);
    return c == no_value_class ? fusion::no_buffer : c;
}

// The plan key: fusion switch, guard and purpose; per statement its shape, length class, target
// class and slot classes (buffer classes, scalar value classes); then per buffer class whether a
// live vector names it.
void flush_planner::assign_classes(const fusion::statement_queue& queue, plan_purpose purpose, bool guarded) {
    const std::uint64_t mark = next_flush_mark();
    key_.clear();
    disjoint_writes_.clear();
    class_buffers_.clear();
    lengths_.clear();
    scalar_values_.clear();
    slot_scalar_.resize(queue.slots.size());
    key_.push_back((settings_.fusion ? 1u : 0u) | (guarded ? 2u : 0u) | (std::uint32_t(purpose) << 2));
    for (const fusion::pending_statement& st : queue.statements) {
        std::uint32_t length_class = 0;
        while (length_class < lengths_.size() && lengths_[length_class] != st.length) ++length_class;
        if (length_class == lengths_.size()) lengths_.push_back(st.length);
        key_.push_back(st.shape->id);
        key_.push_back(length_class);
        key_.push_back(class_of(*st.target, mark, class_buffers_));
        if (st.shape->store_index != ir::no_node) { // a view write: may it share a kernel with earlier ones?
            const std::size_t s = std::size_t(&st - queue.statements.data());
            if (fusion::disjoint_span_write(queue, s)) disjoint_writes_.push_back(std::uint32_t(s));
            key_.push_back(!disjoint_writes_.empty() && disjoint_writes_.back() == s ? 1u : 0u);
        }
        const std::size_t slot_count = st.shape->slots.size();
        for (std::size_t s = 0; s < slot_count; ++s) {
            const fusion::bound_slot& slot = queue.slots[st.first_slot + s];
            if (slot.buffer) {
                key_.push_back(class_of(*slot.buffer, mark, class_buffers_));
            } else {
                slot_scalar_[st.first_slot + s] = scalar_class(st.shape->slots[s], slot.bits);
                key_.push_back(slot_scalar_[st.first_slot + s]);
            }
        }
    }
    // Liveness is read once, here: a vector may die on another thread at any moment, and the
    // plan must be the one its key describes (make_plan reads these words, not the counts).
    live_words_ = key_.size();
    for (const buffer* b : class_buffers_) key_.push_back(b->vector_refs.load() > 0 ? 1u : 0u);
}

std::unique_ptr<compiled_plan> flush_planner::make_plan(const fusion::statement_queue& queue, plan_purpose purpose,
                                                        bool guarded) {
    const backend::device_info& info = device_.info();
    const bool into_reduction = purpose == plan_purpose::reduction_input;
    fusion::plan_request request;
    request.fuse = settings_.fusion;
    request.limits.max_parameters = fusion::parameter_limit_for(info.max_parameter_bytes);
    request.pack_scalars = purpose == plan_purpose::statements && !guarded; // kernels launched as maps
    for (std::size_t c = 0; c < class_buffers_.size(); ++c) {
        request.buffer_types.push_back(class_buffers_[c]->type);
        request.buffer_live.push_back(key_[live_words_ + c] != 0);
        request.buffer_names.push_back(class_buffers_[c]->name); // for the kernels' comment headers
    }
    for (const fusion::pending_statement& st : queue.statements) {
        fusion::planned_statement ps;
        ps.shape = st.shape;
        ps.target = st.target->flush_class;
        std::uint32_t length_class = 0;
        while (lengths_[length_class] != st.length) ++length_class;
        ps.length_class = length_class;
        for (std::size_t s = 0; s < st.shape->slots.size(); ++s) {
            const fusion::bound_slot& slot = queue.slots[st.first_slot + s];
            ps.slot_buffer.push_back(slot.buffer ? slot.buffer->flush_class : fusion::no_buffer);
            ps.slot_scalar.push_back(slot.buffer ? fusion::no_buffer : slot_scalar_[st.first_slot + s]);
        }
        request.statements.push_back(std::move(ps));
    }
    for (std::uint32_t s : disjoint_writes_) request.statements[s].disjoint_write = true;
    auto compiled = std::make_unique<compiled_plan>();
    compiled->purpose = purpose;
    for (fusion::kernel_group& g : fusion::plan_kernels(request).groups)
        compiled->groups.push_back({std::move(g), group_launch{}});
    if (into_reduction) {
        const fusion::kernel_group& last = compiled->groups.back().group;
        compiled->last_group_fused = last.first < last.last;
    }
    if (purpose == plan_purpose::epilogue && compiled->groups.size() == 1) {
        // The held pass compiles it into its own source (context_impl::run_held_with_epilogue).
        compiled->in_held_pass = true;
        compiled->groups[0].group.kernel.double_grid_division = !info.gpu && info.fp64;
        compiled->plan.passes.push_back(flush_pass(compiled->groups[0].group, false));
        return compiled;
    }
    // Compile every kernel before any runs: a build failure must leave vectors untouched. The
    // new ones compile together (program_cache::entries).
    std::vector<cache::program_cache::request> sources;
    std::vector<cache::cached_kernel**> destinations;
    for (std::size_t k = 0; k < compiled->groups.size(); ++k) {
        fusion::kernel_group& g = compiled->groups[k].group;
        g.kernel.guarded = guarded;
        g.kernel.double_grid_division = !info.gpu && info.fp64;
        g.kernel.form = settings_.form ? *settings_.form : launch::map_form_for(info);
        // The reduction's input: the reduction compiles it into its own first pass.
        const bool launched = !(into_reduction && k + 1 == compiled->groups.size());
        plan::pass& pass = compiled->plan.passes.emplace_back(flush_pass(g, launched));
        if (!launched) continue;
        group_launch& out = compiled->groups[k].launch;
        if (const kernel_observer& observe = current_kernel_observer()) observe(g.kernel);
        const std::string summary = "statements " + std::to_string(g.first) + "-" + std::to_string(g.last) + ", " +
                                    std::to_string(g.loaded.size()) + " loads, " + std::to_string(g.stored.size()) +
                                    " stores, " + std::to_string(g.elided.size()) + " elided";
        pass.kernel = codegen::emit(g.kernel, device_.dialect());
        pass.summary = summary;
        sources.push_back({pass.kernel, summary});
        destinations.push_back(&out.kernel);
        out.lanes = std::max(1u, codegen::vector_map_lanes(g.kernel));
        if (launch::wants_grid_form(info)) {
            out.grid_widths = ir::grid_width_params(g.kernel);
            out.grid_heights = ir::grid_height_params(g.kernel);
        }
        if (!out.grid_widths.empty()) {
            ir::kernel grid = g.kernel;
            grid.grid_width_param = out.grid_widths[0];
            if (!out.grid_heights.empty()) grid.grid_height_param = out.grid_heights[0];
            if (const kernel_observer& observe = current_kernel_observer()) observe(grid);
            sources.push_back({codegen::emit(grid, device_.dialect()), summary + ", on whole rows"});
            destinations.push_back(&out.grid_kernel);
            if (codegen::grid_narrowable(grid, device_.dialect())) {
                grid.narrow_grid = true;
                if (const kernel_observer& observe = current_kernel_observer()) observe(grid);
                sources.push_back(
                    {codegen::emit(grid, device_.dialect()), summary + ", on whole rows, int coordinates"});
                destinations.push_back(&out.narrow_grid_kernel);
            }
        }
    }
    const std::vector<cache::cached_kernel*> kernels = programs_.entries(sources);
    for (std::size_t i = 0; i < kernels.size(); ++i) *destinations[i] = kernels[i];
    return compiled;
}

compiled_plan& flush_planner::plan(const fusion::statement_queue& queue, plan_purpose purpose, bool guarded,
                                   bool& made) {
    assign_classes(queue, purpose, guarded);
    auto it = plans_.find(key_);
    made = it == plans_.end();
    if (!made) {
        statistics_.plan_reused();
        return *it->second;
    }
    auto plan = make_plan(queue, purpose, guarded);
    statistics_.plan_made();
    return *plans_.emplace(key_, std::move(plan)).first->second;
}

} // namespace loom::detail
