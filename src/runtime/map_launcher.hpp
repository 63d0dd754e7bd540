// Launches the map passes of a compiled flush plan through the executor: uploads a pass's
// packed scalars, has the executor bind its arguments (plan::pass::arguments), takes a group's
// grid form where every read's row width agrees, and its geometry from the launch policy,
// measured first where tuning is on (map_tuning.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/device.hpp"
#include "cache/program_cache.hpp"
#include "fusion/statement_queue.hpp"
#include "runtime/compiled_plan.hpp"
#include "runtime/executor.hpp"
#include "runtime/flush_planner.hpp"
#include "runtime/loop/loop_runtime.hpp"
#include "runtime/run_statistics.hpp"
#include "runtime/settings.hpp"

namespace loom::detail {

class map_launcher {
public:
    map_launcher(backend::device& device, executor& run, cache::program_cache& programs, run_statistics& statistics,
                 const context_settings& settings)
        : device_(device), executor_(run), programs_(programs), statistics_(statistics), settings_(settings) {}

    // Launches every pass of `p` that is a map (the planner numbered its buffers; `queue` holds
    // the statements), after the loop iterations gathered before it.
    void launch(compiled_plan& p, const flush_planner& planner, const fusion::statement_queue& queue,
                loop_runtime& loop);

private:
    std::uint64_t common_extent(const std::vector<std::uint32_t>& params) const;
    const backend::memory& upload_packed_scalars(const fusion::kernel_group& g, const fusion::statement_queue& queue,
                                                 std::unique_ptr<backend::memory>& into);
    // The geometry of a map kernel's launch over `length` elements (`width`: a grid kernel's row;
    // `lanes`: the elements a work-item of the 1-D launch takes at once), measured first when
    // tuning is on and the kernel has no tuning yet.
    backend::geometry geometry_of(cache::cached_kernel& k, const fusion::kernel_group& g, const flush_planner& planner,
                                  std::uint64_t length, std::uint64_t width, unsigned lanes);
    void tune(cache::cached_kernel& k, const fusion::kernel_group& g, const flush_planner& planner,
              std::uint64_t length, std::uint64_t width, unsigned lanes);

    backend::device& device_;
    executor& executor_;
    cache::program_cache& programs_;
    run_statistics& statistics_;
    const context_settings& settings_;
    // Per-launch scratch, kept to reuse its capacity: a launch allocates nothing once warm.
    std::vector<backend::kernel_arg> args_;
    call_values values_;
    std::vector<std::uint64_t> packed_values_;
};

} // namespace loom::detail
