// A compiled flush plan's map kernels launched; see map_launcher.hpp.
#include "runtime/map_launcher.hpp"

#include <cstring>

#include "launch/policy.hpp"

namespace loom::detail {

// The extent (a grid width, or a 3-D grid's rows per plane) every read of a kernel that
// `params` name uses, from the arguments bound in args_ (extent parameters are 64-bit); 0 when
// they differ or there are none.
std::uint64_t map_launcher::common_extent(const std::vector<std::uint32_t>& params) const {
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
const backend::memory& map_launcher::upload_packed_scalars(const fusion::kernel_group& g,
                                                           const fusion::statement_queue& queue,
                                                           std::unique_ptr<backend::memory>& into) {
    packed_values_.clear();
    for (std::size_t a = 0; a < g.args.size(); ++a) {
        if (!g.kernel.params[a].packed) continue;
        const fusion::pending_statement& st = queue.statements[g.args[a].statement];
        // 8 bytes a slot; a complex<double> takes two, a double4 four (codegen::write_guard reads them so).
        const detail::scalar_bits& bits = queue.slots[st.first_slot + g.args[a].slot].bits;
        const unsigned words = (size_of(g.kernel.params[a].type) + 7) / 8;
        for (unsigned w = 0; w < words; ++w) packed_values_.push_back(bits.word[w]);
    }
    const std::size_t bytes = packed_values_.size() * sizeof(std::uint64_t);
    if (!into) into = executor_.allocate_bytes(bytes);
    device_.write(*into, 0, packed_values_.data(), bytes);
    executor_.host_sync("packed scalars");
    return *into;
}

void map_launcher::launch(compiled_plan& p, const flush_planner& planner, const fusion::statement_queue& queue,
                          loop_runtime& loop) {
    values_.flush_buffers = planner.buffers();
    values_.queue = &queue;
    values_.guard = loop.guard();
    for (std::size_t pass = 0; pass < p.groups.size(); ++pass) {
        if (p.plan.passes[pass].kind != plan::pass_kind::map) continue; // a reduction's input
        group_launch& planned = p.groups[pass].launch;
        loop.launch_batch(executor_); // loop iterations gathered before it run first
        const fusion::kernel_group& g = p.groups[pass].group;
        const std::uint64_t length = queue.statements[g.first].length;
        values_.packed =
            ir::packs_scalars(g.kernel) ? &upload_packed_scalars(g, queue, planned.packed_scalars) : nullptr;
        args_.clear();
        executor_.bind(p.plan, pass, values_, args_);
        cache::cached_kernel* kernel = planned.kernel;
        const bool one_plane_height = planned.grid_heights.empty() || common_extent(planned.grid_heights) != 0;
        const std::uint64_t width = planned.grid_kernel && one_plane_height ? common_extent(planned.grid_widths) : 0;
        backend::geometry geo;
        if (width && launch::grid_geometry(device_.info(), g.kernel.form, width, length, geo))
            kernel = planned.narrow_grid_kernel && length < ir::narrow_grid_limit ? planned.narrow_grid_kernel
                                                                                  : planned.grid_kernel;
        const bool on_rows = kernel != planned.kernel;
        geo = geometry_of(*kernel, g, planner, length, on_rows ? width : 0, planned.lanes);
        launch_label label;
        label.elements = length;
        label.first = g.first;
        label.last = g.last;
        label.row_width = on_rows ? width : 0;
        executor_.run(*kernel->kernel, args_.data(), args_.size(), geo, label);
    }
}

} // namespace loom::detail
