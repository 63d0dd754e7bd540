// The scan skeleton at run time: three passes (chunk totals, an exclusive scan of the
// totals by one group, the chunks scanned again from their offsets). See docs/skeleton-scan.md.
#include <algorithm>
#include <optional>

#include "loom/scan.hpp"
#include "runtime/buffer.hpp"
#include "skeleton/scan_kernel.hpp"
#include "skeleton/skeleton_state.hpp"

namespace loom::skeleton {
namespace {

// Geometry (codegen/scan_pass.hpp): tiled on GPUs (or with LOOM_KERNEL_FORM=grid_stride), a
// chunk per group in whole tiles; chunked on CPU devices, a chunk per work-item (a multiple of
// 8, at least 64 elements a work-item where n allows). `parts` is the number of totals pass 2 scans.
struct scan_geometry {
    unsigned group = 1;
    bool chunked = false;
    std::uint64_t groups = 0, chunk = 0, parts = 0;
};

scan_geometry scan_geometry_for(const backend::device_info& info, std::optional<ir::map_form> forced, std::uint64_t n) {
    scan_geometry g;
    g.group = skeleton_group_size(info);
    g.chunked = forced ? *forced == ir::map_form::chunked : !info.gpu;
    const std::uint64_t wanted = std::uint64_t(std::max(1u, info.compute_units)) * (info.gpu ? 8 : 4);
    if (g.chunked) {
        g.groups = std::max<std::uint64_t>(1, std::min(wanted, (n + 64 * g.group - 1) / (64 * g.group)));
        g.parts = g.groups * g.group;
        g.chunk = ((n + g.parts - 1) / g.parts + 7) & ~std::uint64_t(7);
    } else {
        const std::uint64_t groups0 = std::max<std::uint64_t>(1, std::min(wanted, (n + g.group - 1) / g.group));
        const std::uint64_t per_group = (n + groups0 - 1) / groups0;
        const std::uint64_t tile = std::uint64_t(g.group) * codegen::tile_items;
        g.chunk = (per_group + tile - 1) / tile * tile;
        g.groups = (n + g.chunk - 1) / g.chunk;
        g.parts = g.groups;
    }
    return g;
}

// The output's class among the input's buffers (an in-place scan), or no_class. An in-place
// scan cannot read its output's neighbours: other work-groups overwrite them.
std::uint32_t output_class(const detail::shape& input, const bound_input& in, const detail::buffer_ptr& output) {
    std::uint32_t out_class = no_class;
    for (std::size_t s = 0; s < input.slots.size(); ++s)
        if (in.slots[s].buffer.get() == output.get()) {
            out_class = in.slot_class[s];
            if (input.slots[s].neighbour)
                throw error("loom: scan: an in-place scan cannot read neighbours (shift) of its output: other "
                            "work-groups overwrite them; scan into another vector");
        }
    return out_class;
}

std::unique_ptr<skeleton_plan> make_scan_plan(detail::context_impl& ctx, const detail::scan_call& call,
                                              const bound_input& in, const detail::buffer_ptr& output,
                                              const scan_geometry& geo, bool guarded) {
    const detail::skeleton_operation& sop = *call.op;
    auto plan = std::make_unique<skeleton_plan>();
    plan->input = build_input(*call.input, in.slot_class, sop.type);
    plan->input.kernel.guarded = guarded;
    plan->ops.push_back(combine_of(sop));
    std::uint32_t out_param = no_class;
    for (std::size_t p = 0; p < plan->input.kernel.params.size(); ++p)
        if (plan->input.kernel.params[p].kind == ir::param_kind::buffer &&
            in.slots[plan->input.param_slot[p]].buffer.get() == output.get())
            out_param = std::uint32_t(p);
    const codegen::dialect& d = ctx.device().dialect();
    const combine_op& c = plan->ops[0];
    plan->sources.push_back(
        emit_scan_pass(plan->input, c, scan_pass::chunk_totals, call.exclusive, no_class, geo.group, geo.chunked, d));
    input_kernel totals_input = partials_input({sop.type});
    totals_input.kernel.guarded = guarded;
    plan->sources.push_back(
        emit_scan_pass(totals_input, c, scan_pass::scan_totals, true, no_class, geo.group, geo.chunked, d));
    plan->sources.push_back(
        emit_scan_pass(plan->input, c, scan_pass::scan_output, call.exclusive, out_param, geo.group, geo.chunked, d));
    plan->summaries = {"scan pass 1 (input shape " + std::to_string(call.input->id) + ")", "scan pass 2",
                       "scan pass 3 (input shape " + std::to_string(call.input->id) + ")"};
    return plan;
}

} // namespace
} // namespace loom::skeleton

namespace loom::detail {

void run_scan(context_impl& ctx, const scan_call& written, const buffer_ptr& output) {
    using namespace skeleton;
    scan_call call = written;
    call.input = ctx.statement_form(written.input);
    bound_input in = bind_input(ctx, *call.input, call.view_length, "scan");
    const skeleton_operation& sop = *call.op;
    if (output->ctx != &ctx) throw error("loom: scan: the output vector belongs to another context than the input");
    if (!in.has_length) in.length = output->length; // an input that names no vector: the output's length
    if (in.length != output->length)
        throw length_error("loom: scan: length mismatch: the input has " + std::to_string(in.length) +
                           " elements and the output " + std::to_string(output->length));
    if (output->type != sop.type)
        throw error("loom: internal error: scan output type differs from the operation's type");
    const std::uint64_t n = in.length;
    if (n == 0) return;
    const scan_geometry geo = scan_geometry_for(ctx.info(), ctx.settings().form, n);
    const std::uint32_t out_class = output_class(*call.input, in, output);
    const bool guarded = ctx.guard() != nullptr;

    skeleton_state& state = state_of(ctx);
    plan_key<scan_key_head>& key = state.scan_key;
    key.head.input_shape = call.input->id;
    key.head.op_shape = sop.op->body->id;
    key.head.op_type = std::uint32_t(sop.type);
    key.head.exclusive = call.exclusive ? 1 : 0;
    key.head.guarded = guarded ? 1 : 0;
    key.head.chunked = geo.chunked ? 1 : 0;
    key.head.group = geo.group;
    key.head.output_class = out_class;
    key.bindings.assign(in.slot_class.begin(), in.slot_class.end());
    auto it = state.scan_plans.find(key);
    if (it == state.scan_plans.end())
        it = state.scan_plans.emplace(key, make_scan_plan(ctx, call, in, output, geo, guarded)).first;
    skeleton_plan& plan = *it->second;
    backend::kernel& pass1 = pass_kernel(ctx, plan, 0);
    backend::kernel& pass2 = pass_kernel(ctx, plan, 1);
    backend::kernel& pass3 = pass_kernel(ctx, plan, 2);

    backend::device& dev = ctx.device();
    for (std::size_t s = 0; s < call.input->slots.size(); ++s) {
        buffer* b = in.slots[s].buffer.get();
        if (b && !b->memory) b->memory = dev.allocate(b->bytes());
    }
    if (!output->memory) output->memory = dev.allocate(output->bytes());
    backend::memory* const totals = &scratch_buffer(ctx, plan, 0, geo.parts * size_of(sop.type));
    backend::memory* const offsets = &scratch_buffer(ctx, plan, 1, geo.parts * size_of(sop.type));

    // Arguments (codegen::emit_scan_pass): the pass's buffers, the guard right after the
    // input's parameters, then identity, initial value, captures, chunk size and count.
    const std::vector<dtype>& captures = plan.ops[0].captures;
    const detail::scalar_bits init = call.exclusive ? call.init : sop.identity;
    auto tail = [&](std::vector<backend::kernel_arg>& args, const detail::scalar_bits& init_bits,
                    const std::uint64_t& chunk_size, const std::uint64_t& count) {
        args.push_back({nullptr, &sop.identity, size_of(sop.type)});
        args.push_back({nullptr, &init_bits, size_of(sop.type)});
        for (std::size_t j = 0; j < captures.size(); ++j)
            args.push_back({nullptr, &sop.captures[j], size_of(captures[j])});
        args.push_back({nullptr, &chunk_size, sizeof chunk_size});
        args.push_back({nullptr, &count, sizeof count});
    };
    auto guard = [&](std::vector<backend::kernel_arg>& args) {
        if (guarded) args.push_back({ctx.guard()->memory.get(), nullptr, 0});
    };
    launch_label label;
    label.what = launch_label::kind::scan_pass;
    std::vector<backend::kernel_arg>& args = state.args;
    args.clear();
    input_arguments(plan, in, args);
    guard(args);
    args.push_back({totals, nullptr, 0});
    tail(args, sop.identity, geo.chunk, n);
    label.elements = n;
    label.pass = 1;
    ctx.execute(pass1, args.data(), args.size(), {geo.groups * geo.group, geo.group}, label);

    args.clear();
    args.push_back({totals, nullptr, 0});
    guard(args);
    args.push_back({offsets, nullptr, 0});
    tail(args, sop.identity, geo.parts, geo.parts);
    label.elements = geo.parts;
    label.pass = 2;
    ctx.execute(pass2, args.data(), args.size(), {geo.group, geo.group}, label);

    args.clear();
    input_arguments(plan, in, args);
    guard(args);
    if (out_class == no_class) args.push_back({output->memory.get(), nullptr, 0}); // else written through its input
    args.push_back({offsets, nullptr, 0});
    tail(args, init, geo.chunk, n);
    label.elements = n;
    label.pass = 3;
    ctx.execute(pass3, args.data(), args.size(), {geo.groups * geo.group, geo.group}, label);
}

} // namespace loom::detail
