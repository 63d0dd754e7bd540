// The flush: pending statements -> plan key -> (cached) plan -> allocations -> launches.
// On a plan-cache hit this path does no string work, no source hashing and no heap
// allocation: the key and argument arrays reuse their capacity from earlier flushes.
#include <cstring>
#include <string>

#include "launch/policy.hpp"
#include "runtime/context_impl.hpp"
#include "support/log.hpp"

namespace loom::detail {

const char* name_of(flush_cause c) {
    switch (c) {
    case flush_cause::host_read: return "host_read";
    case flush_cause::host_write: return "host_write";
    case flush_cause::finish: return "finish";
    case flush_cause::statement_limit: return "statement_limit";
    case flush_cause::byte_limit: return "byte_limit";
    case flush_cause::skeleton: return "skeleton";
    case flush_cause::loop: return "loop";
    case flush_cause::pipeline: return "pipeline";
    case flush_cause::context_end: return "context_end";
    case flush_cause::interop: return "interop";
    case flush_cause::custom_kernel: return "custom_kernel";
    }
    return "?";
}

// Allocates what the plan's kernels bind and no buffer has yet: added up first and refused
// whole (executor::check_room) before any of it is allocated, so the flush fails whole.
void context_impl::allocate_buffers(const compiled_plan& p) {
    std::uint64_t needed = 0;
    counted_.assign(planner_.buffer_count(), 0); // keeps its capacity: no allocation once warm
    for (const planned_group& pg : p.groups)
        for (const fusion::arg_binding& a : pg.group.args)
            if (a.kind == ir::param_kind::buffer && !planner_.buffer_of(a.buffer).memory && !counted_[a.buffer]) {
                counted_[a.buffer] = 1;
                needed += planner_.buffer_of(a.buffer).bytes();
            }
    if (needed != 0) executor_.check_room(needed, "these statements");
    for (const planned_group& pg : p.groups)
        for (const fusion::arg_binding& a : pg.group.args)
            if (a.kind == ir::param_kind::buffer) executor_.allocate(planner_.buffer_of(a.buffer));
}

// The extent (a grid width, or a 3-D grid's rows per plane) every read of a kernel that
// `params` name uses, from the arguments bound in args_ (extent parameters are 64-bit); 0 when
// they differ or there are none.
std::uint64_t context_impl::common_extent(const std::vector<std::uint32_t>& params) const {
    std::int64_t width = 0;
    for (std::size_t j = 0; j < params.size(); ++j) {
        std::int64_t w = 0;
        std::memcpy(&w, args_[params[j]].value, sizeof w);
        if (w <= 0 || (j > 0 && w != width)) return 0;
        width = w;
    }
    return std::uint64_t(width);
}

// Uploads the values of g's packed scalars into `into` (made on first use) and returns it.
// The write waits for the kernels before it, which may still read the buffer's last values.
const backend::memory& context_impl::upload_packed_scalars(const fusion::kernel_group& g,
                                                           std::unique_ptr<backend::memory>& into) {
    packed_values_.clear();
    for (std::size_t a = 0; a < g.args.size(); ++a) {
        if (!g.kernel.params[a].packed) continue;
        const fusion::pending_statement& st = queue_.statements[g.args[a].statement];
        // 8 bytes a slot; a complex<double> takes two, a double4 four (codegen::write_guard reads them so).
        const detail::scalar_bits& bits = queue_.slots[st.first_slot + g.args[a].slot].bits;
        const unsigned words = (size_of(g.kernel.params[a].type) + 7) / 8;
        for (unsigned w = 0; w < words; ++w) packed_values_.push_back(bits.word[w]);
    }
    const std::size_t bytes = packed_values_.size() * sizeof(std::uint64_t);
    if (!into) into = executor_.allocate_bytes(bytes);
    device_->write(*into, 0, packed_values_.data(), bytes);
    note_host_sync("packed scalars");
    return *into;
}

void context_impl::launch(compiled_plan& p) {
    for (planned_group& pg : p.groups) {
        group_launch& planned = pg.launch;
        if (!planned.kernel) continue; // a reduction's input (flush_into_reduction)
        loop_.launch_batch(executor_); // loop iterations gathered before it run first
        const fusion::kernel_group& g = pg.group;
        const std::uint64_t& length = queue_.statements[g.first].length;
        args_.clear();
        planner_.bind_arguments(g, queue_, args_);
        if (ir::packs_scalars(g.kernel))
            args_.push_back({&upload_packed_scalars(g, planned.packed_scalars), nullptr, 0});
        if (g.kernel.guarded) args_.push_back({loop_.guard()->memory.get(), nullptr, 0});
        args_.push_back({nullptr, &length, sizeof length});
        cache::cached_kernel* kernel = planned.kernel;
        const bool one_plane_height = planned.grid_heights.empty() || common_extent(planned.grid_heights) != 0;
        const std::uint64_t width = planned.grid_kernel && one_plane_height ? common_extent(planned.grid_widths) : 0;
        backend::geometry geo;
        if (width && launch::grid_geometry(info(), g.kernel.form, width, length, geo))
            kernel = planned.narrow_grid_kernel && length < ir::narrow_grid_limit ? planned.narrow_grid_kernel
                                                                                  : planned.grid_kernel;
        const bool on_rows = kernel != planned.kernel;
        geo = map_launch(*kernel, g, length, on_rows ? width : 0);
        launch_label label;
        label.elements = length;
        label.first = g.first;
        label.last = g.last;
        label.row_width = on_rows ? width : 0;
        executor_.run(*kernel->kernel, args_.data(), args_.size(), geo, label);
    }
}

void context_impl::set_guard(buffer* flag) {
    flush(flush_cause::loop);
    if (flag) executor_.allocate(*flag);
    loop_.set_guard(flag);
}

// Plans the queued statements (a cached plan when the key is known), allocates, launches.
void context_impl::run_planned(flush_cause cause, plan_purpose purpose) {
    bool made = false;
    compiled_plan& p = planner_.plan(queue_, purpose, loop_.guard() != nullptr, made);
    allocate_buffers(p);
    if (logging::enabled(logging::channel::fusion)) log_plan(p, !made, cause);
    launch(p);
    last_plan_ = &p;
    statistics_.flush_ran(p.statement_count(queue_.statements.size()));
}

void context_impl::flush(flush_cause cause) {
    std::lock_guard<std::recursive_mutex> guard(mutex_);
    logging::context_scope scope(id_);
    // A held pass runs before anything after it; the device loop's own boundaries (nothing
    // pending) keep it for the bookkeeping that follows.
    if (loop_.holding() && !(cause == flush_cause::loop && queue_.empty())) release_held();
    if (queue_.empty()) return;
    start_pending_window();
    try {
        run_planned(cause);
    } catch (...) {
        keep_initial_contents();
        queue_.clear();
        throw;
    }
    queue_.drop_statements(); // a skeleton's input, bound before this flush, stays
}

} // namespace loom::detail
