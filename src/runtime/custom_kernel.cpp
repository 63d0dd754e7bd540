// loom::kernel (include/loom/kernel.hpp, docs/custom-kernels.md): a kernel from the user's own
// source, compiled through the program cache (so cached on disk, and a build failure is a
// loom::build_error with the log), launched through the executor after the pending statements.
#include <optional>
#include <string>
#include <vector>

#include "codegen/kernel_source.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/kernel_parameters.hpp"
#include "support/log.hpp"

namespace loom::detail {

struct custom_kernel {
    context_ptr ctx;
    std::string name;
    backend::kernel* compiled = nullptr;   // owned by the context's program cache
    std::optional<std::size_t> parameters; // as its driver or source says; nullopt: unknown, not checked
    std::vector<backend::kernel_arg> args; // scratch of the launches, under the context's lock
};

std::shared_ptr<custom_kernel> build_custom_kernel(context_impl& ctx, const std::string& name,
                                                   const std::string& source) {
    if (name.empty() || source.empty())
        throw error("loom::kernel: give the kernel function's name and its source text (both are empty or one is)");
    ctx.require_one_device("loom::kernel");
    std::lock_guard<std::recursive_mutex> guard(ctx.mutex());
    logging::context_scope scope(ctx.id());
    auto k = std::make_shared<custom_kernel>();
    k->ctx = ctx.shared_from_this();
    k->name = name;
    codegen::kernel_source text;
    text.name = name;
    text.body = source; // the program cache finds it by name and body: each name is a kernel of its own
    k->compiled = &ctx.programs().get(text, "loom::kernel " + name);
    k->parameters = k->compiled->parameter_count();
    if (!k->parameters) k->parameters = parameters_in_source(source, name);
    return k;
}

namespace {
// The message names the kernel; built only when a launch is refused.
[[noreturn]] void fail(const custom_kernel& k, const std::string& what) {
    throw error("loom::kernel \"" + k.name + "\": " + what);
}
} // namespace

void launch_custom_kernel(custom_kernel& k, const custom_argument* args, std::size_t count, std::uint64_t items,
                          std::uint32_t group, std::uint64_t rows, std::uint32_t group_rows) {
    context_impl& ctx = *k.ctx;
    // Before the driver, which would name neither the kernel nor the counts (CL_INVALID_KERNEL_ARGS).
    if (k.parameters && count != *k.parameters)
        fail(k, "the kernel takes " + std::to_string(*k.parameters) + " argument" + (*k.parameters == 1 ? "" : "s") +
                    " and the launch gives " + std::to_string(count) +
                    "; pass one argument per parameter, in the order the kernel declares them");
    if (items == 0 || (rows == 0 && group_rows != 0))
        fail(k, "a launch needs work-items (launch_shape::items > 0), and group_rows only with rows");
    if (rows != 0 && (group == 0 || group_rows == 0))
        fail(k, "a 2-D launch needs both group sizes (launch_shape::group and group_rows)");
    const std::uint64_t group_items = std::uint64_t(group) * (rows ? group_rows : 1);
    if (group_items > ctx.info().max_work_group)
        fail(k, "a group of " + std::to_string(group_items) + " work-items is more than " + ctx.info().name +
                    " allows (" + std::to_string(ctx.info().max_work_group) + ")");
    // CUDA's grid is at most 65535 blocks high (the backend caps it; a hand-written kernel may not stride).
    if (rows != 0 && ctx.device().native().backend == backend_kind::cuda &&
        (rows + group_rows - 1) / group_rows > 65535)
        fail(k, "a 2-D launch of " + std::to_string(rows) + " rows in groups of " + std::to_string(group_rows) +
                    " needs more than CUDA's 65535 blocks along the second dimension");
    std::lock_guard<std::recursive_mutex> guard(ctx.mutex());
    logging::context_scope scope(ctx.id());
    if (ctx.guard())
        fail(k, "a hand-written kernel cannot run inside a loom::loop_while body (it cannot be guarded "
                "by the loop's device-side condition); use loom::loop, or launch it outside the loop");
    for (std::size_t a = 0; a < count; ++a)
        if (args[a].buffer && (*args[a].buffer)->ctx != &ctx)
            fail(k, "argument " + std::to_string(a) +
                        " belongs to another context than the kernel's; copy it into this context first");
    ctx.flush(flush_cause::custom_kernel); // the kernel sees every statement before it
    k.args.clear();
    for (std::size_t a = 0; a < count; ++a) {
        if (args[a].buffer) {
            buffer& b = **args[a].buffer;
            ctx.execution().allocate(b);
            k.args.push_back({b.memory.get(), nullptr, 0});
        } else {
            k.args.push_back({nullptr, args[a].value, args[a].bytes});
        }
    }
    // Whole groups, so that both backends launch the same work-items.
    backend::geometry g;
    g.group_size = group;
    g.global_items = group ? (items + group - 1) / group * group : items;
    g.group_rows = group_rows;
    g.rows = rows ? (rows + group_rows - 1) / group_rows * group_rows : 0;
    launch_label label;
    label.what = launch_label::kind::custom;
    label.name = k.name.c_str();
    ctx.execute(*k.compiled, k.args.data(), k.args.size(), g, label);
}

} // namespace loom::detail
