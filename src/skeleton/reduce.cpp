// The reduction skeleton at run time: plan lookup by (input shape, operations,
// aliasing), one or two launches, and the read of the result (or none: loom::on_device). See docs/skeleton-reduce.md.
#include "skeleton/reduce.hpp"

#include <algorithm>
#include <cstring>

#include "loom/reduce.hpp"
#include "runtime/buffer.hpp"
#include "skeleton/reduce_kernel.hpp"
#include "skeleton/skeleton_state.hpp"
#include "support/log.hpp"

namespace loom::skeleton {

reduce_geometry reduce_geometry_for(const backend::device_info& info, std::uint64_t n) {
    reduce_geometry g;
    g.group = skeleton_group_size(info);
    g.chunked = !info.gpu;
    // Enough groups to fill the device a few times over; no more, so pass 2 stays one
    // group's work.
    const std::uint64_t wanted = std::uint64_t(std::max(1u, info.compute_units)) * (info.gpu ? 8 : 4);
    if (!g.chunked) {
        g.groups = std::max<std::uint64_t>(1, std::min(wanted, (n + g.group - 1) / g.group));
        return g;
    }
    // On a CPU a group's work-items run one after another and each round of its tree is a
    // barrier, a fixed cost per group whatever its input (PoCL: tens of microseconds for a
    // group of 256). So a group is small, 8 to 64 work-items, each with at least 2048
    // elements when the input allows (its set-up and its step of the tree are then a few
    // percent of its time). A second group, and with it pass 2 and a second launch, once the
    // input passes 2^14 elements: a group runs on one core, and an input dearer than a load
    // needs the others early, though one group of a plain sum is as fast as several up to
    // far larger inputs. docs/skeleton-reduce.md has the measurements.
    constexpr std::uint64_t per_item = 2048, one_group = std::uint64_t(1) << 14;
    g.groups = n <= one_group ? 1 : std::min(wanted, (n + one_group - 1) / one_group);
    g.group = std::min(g.group, 64u);
    while (g.group > 8 && g.groups * g.group * per_item > n) g.group /= 2;
    return g;
}

std::uint64_t reduce_chunk(const reduce_geometry& g, std::uint64_t n) {
    const std::uint64_t threads = g.groups * g.group;
    return ((n + threads - 1) / threads + chunk_lanes - 1) & ~std::uint64_t(chunk_lanes - 1);
}

std::uint64_t reduce_depth(const reduce_geometry& g, std::uint64_t n) {
    std::uint64_t log_group = 0;
    while ((1ull << log_group) < g.group) ++log_group;
    const std::uint64_t threads = g.groups * g.group;
    // Chunked: a lane folds every 16th element of the chunk, lane 0 also the tail (< 16);
    // then lane l takes lane l + 8 and the eight are folded in order, lane 0 first: eight
    // more steps for it (codegen/reduce_pass.cpp, chunked_fold).
    auto chunked_serial = [](const reduce_geometry& pass, std::uint64_t items) {
        return reduce_chunk(pass, items) / chunk_lanes + (chunk_lanes - 1) + 8;
    };
    const std::uint64_t serial1 = g.chunked ? chunked_serial(g, n) : (n + threads - 1) / threads;
    if (g.groups == 1) return serial1 + log_group;
    reduce_geometry pass2 = g; // one group over the partials
    pass2.groups = 1;
    const std::uint64_t serial2 = g.chunked ? chunked_serial(pass2, g.groups) : (g.groups + g.group - 1) / g.group;
    return serial1 + serial2 + 2 * log_group;
}

namespace {

// `fused`: the group of pending statements that ends in the input (map-reduce fusion),
// which pass 1 runs; otherwise pass 1 reads the input expression alone.
std::unique_ptr<reduce_plan> make_reduce_plan(detail::context_impl& ctx, const detail::reduce_call& call,
                                              const bound_input& in, const fusion::kernel_group* fused, unsigned group,
                                              bool chunked, bool guarded) {
    auto plan = std::make_unique<reduce_plan>();
    const dtype type = call.ops[0].type;
    const dtype value_type = call.truth ? dtype::boolean : type;
    if (fused) {
        plan->input.kernel = fused->kernel; // guarded and laid out by the flush that planned it
        plan->input.root = fused->last_value;
        if (plan->input.kernel.body[plan->input.root].type != value_type) {
            ir::node cast{opcode::cast, value_type};
            cast.arg[0] = plan->input.root;
            plan->input.root = std::uint32_t(plan->input.kernel.body.size());
            plan->input.kernel.body.push_back(cast);
        }
    } else {
        plan->input = build_input(*call.input, in.slot_class, value_type);
        plan->input.kernel.guarded = guarded;
    }
    if (call.truth && type != dtype::boolean) {
        // (value != 0), then the accumulator type: count, any and all fold truth values.
        ir::kernel& k = plan->input.kernel;
        ir::node cast{opcode::cast, type};
        cast.arg[0] = plan->input.root;
        plan->input.root = std::uint32_t(k.body.size());
        k.body.push_back(cast);
    }
    for (std::size_t k = 0; k < call.op_count; ++k) plan->ops.push_back(combine_of(call.ops[k]));
    const codegen::dialect& d = ctx.device().dialect();
    std::vector<accumulator> pass1, pass2;
    std::vector<dtype> partial_types;
    for (std::size_t k = 0; k < call.op_count; ++k) {
        pass1.push_back({plan->input.root, &plan->ops[k]});
        pass2.push_back({std::uint32_t(k), &plan->ops[k]});
        partial_types.push_back(plan->ops[k].type);
    }
    plan->group = group;
    plan->chunked = chunked;
    plan->sources.push_back(emit_reduce_pass(plan->input, pass1, group, chunked, d));
    input_kernel partials = partials_input(partial_types);
    partials.kernel.guarded = guarded;
    plan->sources.push_back(emit_reduce_pass(partials, pass2, group, chunked, d));
    plan->summaries = {"reduce pass 1 (input shape " + std::to_string(call.input->id) +
                           (fused ? ", with " + std::to_string(fused->last - fused->first) + " statements fused" : "") +
                           ")",
                       "reduce pass 2"};
    return plan;
}

// The variants of one pass of a reduction plan with a loop's bookkeeping run by its work-item 0
// at the end, and with a rotation the looped variant that runs a batch of iterations
// (emit_reduce_pass). Compiled once per (bookkeeping pattern, rotation).
class pass_epilogues final : public detail::epilogue_source {
public:
    pass_epilogues(detail::context_impl& ctx, const reduce_plan& plan, std::uint32_t pass)
        : ctx_(ctx), plan_(plan), pass_(pass) {}

    backend::kernel* with_epilogue(const ir::kernel& bookkeeping, const std::vector<std::uint32_t>& key,
                                   const std::vector<std::uint32_t>* rotation) override {
        lookup_.head.looped = rotation ? 1 : 0;
        lookup_.bindings.assign(key.begin(), key.end()); // its capacity stays: a hit allocates nothing
        if (rotation) lookup_.bindings.insert(lookup_.bindings.end(), rotation->begin(), rotation->end());
        lookup_.head.key_length = std::uint32_t(key.size());
        auto it = variants_.find(lookup_);
        if (it != variants_.end()) return it->second;
        backend::kernel* k = build(bookkeeping, rotation);
        variants_.emplace(lookup_, k);
        return k;
    }

private:
    struct variant_head {
        std::uint32_t looped = 0;
        std::uint32_t key_length = 0; // bindings: the bookkeeping's plan key, then the rotation
    };
    struct variant_hash {
        std::size_t operator()(const plan_key<variant_head>& k) const {
            return hash_key(&k.head, sizeof k.head, k.bindings);
        }
    };

    backend::kernel* build(const ir::kernel& bookkeeping, const std::vector<std::uint32_t>* rotation) {
        const reduce_plan& plan = plan_;
        std::vector<accumulator> acc;
        std::vector<dtype> partial_types;
        for (std::size_t k = 0; k < plan.ops.size(); ++k) {
            acc.push_back({pass_ == 0 ? plan.input.root : std::uint32_t(k), &plan.ops[k]});
            partial_types.push_back(plan.ops[k].type);
        }
        input_kernel partials = partials_input(partial_types);
        partials.kernel.guarded = plan.input.kernel.guarded;
        const input_kernel& in = pass_ == 0 ? plan.input : partials;
        const codegen::dialect& d = ctx_.device().dialect();
        const std::string summary = plan.summaries[pass_] + ", with a loop's bookkeeping at its end";
        if (!rotation)
            return &ctx_.programs().get(emit_reduce_pass(in, acc, plan.group, plan.chunked, d, &bookkeeping), summary);
        // A device that rejects the looped variant still runs the batch, a launch an iteration:
        // remembered as null, so it is not tried again.
        try {
            return &ctx_.programs().get(emit_reduce_pass(in, acc, plan.group, plan.chunked, d, &bookkeeping, rotation),
                                        summary + ", looped over a batch of iterations");
        } catch (const error& e) {
            logging::warn(std::string("loop_while runs its iterations one launch each: ") + e.what());
            return nullptr;
        }
    }

    detail::context_impl& ctx_;
    const reduce_plan& plan_;
    std::uint32_t pass_;
    plan_key<variant_head> lookup_;
    std::unordered_map<plan_key<variant_head>, backend::kernel*, variant_hash> variants_;
};

} // namespace

} // namespace loom::skeleton

namespace loom::detail {

void run_pending(context_impl& ctx) { ctx.flush(flush_cause::skeleton); }

namespace {

// The identity of each operation is the result of a reduction over nothing.
void reduce_nothing(context_impl& ctx, const reduce_call& call, const reduce_results& results) {
    ctx.flush(flush_cause::skeleton);
    for (std::size_t k = 0; k < call.op_count; ++k) {
        if (results.host)
            std::memcpy(results.host[k], &call.ops[k].identity, size_of(call.ops[k].type));
        else
            ctx.device().write(*results.device[k]->memory, 0, &call.ops[k].identity, size_of(call.ops[k].type));
    }
}

// The plan of this reduction: found by its key (input shape, how pass 1 gets its input, the
// operations; then the input's slot classes, or for a fused pass 1 the key of the flush that
// planned it), or made now.
skeleton::reduce_plan& plan_for(context_impl& ctx, const reduce_call& call, const skeleton::bound_input& in,
                                const fusion::kernel_group* fused, const skeleton::reduce_geometry& geo, bool guarded) {
    using namespace skeleton;
    skeleton_state& state = state_of(ctx);
    plan_key<reduce_key_head>& key = state.reduce_key;
    key.head = reduce_key_head{};
    key.head.input_shape = call.input->id;
    key.head.fused = fused ? 1 : 0;
    key.head.truth = call.truth ? 1 : 0;
    key.head.guarded = guarded ? 1 : 0;
    key.head.group = geo.group;
    key.head.op_count = std::uint32_t(call.op_count);
    for (std::size_t k = 0; k < call.op_count; ++k) {
        key.head.op_shape[k] = call.ops[k].op->body->id;
        key.head.op_type[k] = std::uint32_t(call.ops[k].type);
    }
    if (fused)
        key.bindings.assign(ctx.plan_key().begin(), ctx.plan_key().end());
    else
        key.bindings.assign(in.slot_class.begin(), in.slot_class.end());
    auto it = state.reduce_plans.find(key);
    if (it == state.reduce_plans.end())
        it = state.reduce_plans.emplace(key, make_reduce_plan(ctx, call, in, fused, geo.group, geo.chunked, guarded))
                 .first;
    return *it->second;
}

// Ends flush_into_reduction's hold on the pending statements, however run_reduce leaves.
struct reduction_flush_end {
    context_impl& ctx;
    const fusion::kernel_group* fused;
    ~reduction_flush_end() {
        if (fused) ctx.end_reduction_flush();
    }
};

} // namespace

void run_reduce(context_impl& ctx, const reduce_call& written, const reduce_results& results) {
    using namespace skeleton;
    reduce_call call = written;
    call.input = ctx.statement_form(written.input);
    bound_input in = bind_input(ctx, *call.input, call.view_length, "reduction"); // every check before anything runs
    backend::device& dev = ctx.device();
    if (results.device) {
        for (std::size_t k = 0; k < call.op_count; ++k) {
            buffer& b = *results.device[k];
            if (b.ctx != &ctx) throw error("loom: a reduction into a loom::scalar of another context; use one context");
            if (!b.memory) b.memory = dev.allocate(b.bytes());
        }
    }
    if (in.length == 0) return reduce_nothing(ctx, call, results);
    // Pending statements run first: in their own kernels, or (the last group, when it
    // holds statements of the input's length) inside pass 1.
    const fusion::kernel_group* fused = ctx.flush_into_reduction(*call.input, in.length);
    const reduction_flush_end end{ctx, fused};
    in.slots = ctx.queue().slots.data() + (ctx.queue().slots.size() - call.input->slots.size()); // moved if flushed
    const reduce_geometry geo = reduce_geometry_for(ctx.info(), in.length);
    const bool guarded = ctx.guard() != nullptr;

    // Scratch 2k holds operation k's partials, 2k + 1 its result. One pass folds at most
    // two operations (minmax).
    constexpr std::size_t max_ops = 2;
    if (call.op_count > max_ops) throw error("loom: internal error: a reduction of more than two operations");
    skeleton_state& state = state_of(ctx);
    reduce_plan& plan = plan_for(ctx, call, in, fused, geo, guarded);
    backend::kernel& pass1 = pass_kernel(ctx, plan, 0);
    const bool one_pass = geo.groups == 1; // pass 1's one partial is the result
    backend::kernel* pass2 = one_pass ? nullptr : &pass_kernel(ctx, plan, 1);

    for (std::size_t s = 0; s < call.input->slots.size(); ++s) {
        buffer* b = in.slots[s].buffer.get();
        if (b && !b->memory) b->memory = dev.allocate(b->bytes());
    }
    backend::memory* partials[max_ops] = {};
    backend::memory* outputs[max_ops] = {};
    for (std::size_t k = 0; k < call.op_count; ++k) {
        if (!one_pass) partials[k] = &scratch_buffer(ctx, plan, 2 * k, geo.groups * size_of(call.ops[k].type));
        // A device result is written by pass 2 straight into the scalar: no copy, no wait.
        outputs[k] = results.device ? results.device[k]->memory.get()
                                    : &scratch_buffer(ctx, plan, 2 * k + 1, size_of(call.ops[k].type));
    }

    // The last pass into device scalars is offered to loom::loop_while, which inside a body
    // holds it so that the loop's bookkeeping can run at its end (context_impl::offer_last_pass).
    bool held = false;
    auto launch = [&](backend::kernel& kernel, backend::memory* const* out, std::vector<backend::kernel_arg>& args,
                      std::uint64_t n, std::uint64_t groups, bool last, std::uint32_t pass) {
        if (guarded) args.push_back({ctx.guard()->memory.get(), nullptr, 0});
        for (std::size_t k = 0; k < call.op_count; ++k) args.push_back({out[k], nullptr, 0});
        operation_arguments(plan, call.ops, call.op_count, args);
        args.push_back({nullptr, &n, sizeof n});
        const backend::geometry geometry{groups * geo.group, geo.group};
        if (last && results.device) {
            std::unique_ptr<epilogue_source>& source = plan.epilogues[pass];
            if (!source) source = std::make_unique<pass_epilogues>(ctx, plan, pass);
            held = ctx.offer_last_pass({&kernel, &args, geometry, source.get(), results.device, call.op_count});
            if (held) return;
        }
        ctx.release_held(); // a batch of loop iterations before this pass
        launch_label label;
        label.what = launch_label::kind::reduce_pass;
        label.elements = n;
        label.pass = pass + 1;
        ctx.execute(kernel, args.data(), args.size(), geometry, label);
    };
    std::vector<backend::kernel_arg>& args = state.args;
    args.clear();
    if (fused)
        ctx.bind_arguments(*fused, args);
    else
        input_arguments(plan, in, args);
    launch(pass1, one_pass ? outputs : partials, args, in.length, geo.groups, one_pass, 0);
    if (!one_pass) {
        args.clear();
        for (std::size_t k = 0; k < call.op_count; ++k) args.push_back({partials[k], nullptr, 0});
        launch(*pass2, outputs, args, geo.groups, 1, true, 1);
    }
    if (results.host) {
        for (std::size_t k = 0; k < call.op_count; ++k)
            dev.read(*outputs[k], 0, results.host[k], size_of(call.ops[k].type));
        ctx.note_host_sync("reduction result");
    }
    if (logging::enabled(logging::channel::launch))
        logging::write(logging::channel::launch, "reduce over " + std::to_string(in.length) +
                                                     " elements: " + std::to_string(geo.groups) + " groups of " +
                                                     std::to_string(geo.group) +
                                                     (held ? "; last pass held for the loop's bookkeeping" : ""));
}

} // namespace loom::detail
