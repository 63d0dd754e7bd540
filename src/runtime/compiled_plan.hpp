// A flush's plan with its kernels compiled: what a cached flush pattern needs to launch.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/device.hpp"
#include "cache/program_cache.hpp"
#include "fusion/plan.hpp"
#include "plan/plan.hpp"

namespace loom::detail {

// What a plan is for, an argument of planning and part of the plan key: the pending
// statements alone; with a reduction's input as its last statement, whose last group the
// reduction runs as its first pass (context_impl::flush_into_reduction); or as the bookkeeping
// run at the end of a held reduction pass (context_impl::run_held_with_epilogue).
enum class plan_purpose : std::uint8_t { statements, reduction_input, epilogue };

// How one planned group launches: its kernel and, where the device wants it
// (launch::wants_grid_form), its grid form for a launch on whole rows when every grid width
// argument is one value (and every 3-D read's rows per plane another), with the parameters
// that hold them. No kernel: the group is not launched as a map (see compiled_plan).
struct group_launch {
    cache::cached_kernel* kernel = nullptr; // owned by the program cache
    cache::cached_kernel* grid_kernel = nullptr;
    cache::cached_kernel* narrow_grid_kernel = nullptr; // the grid form in int coordinates, or none
    std::vector<std::uint32_t> grid_widths;
    std::vector<std::uint32_t> grid_heights; // empty: no 3-D read
    // The elements a work-item of `kernel` takes at once: more than 1 in the vector form
    // (codegen/vector_map.hpp), which then needs that many times fewer work-items.
    unsigned lanes = 1;
    // The device buffer of its packed scalars (ir::kernel_param::packed), made at the first launch.
    std::unique_ptr<backend::memory> packed_scalars;
};

struct planned_group {
    fusion::kernel_group group;
    group_launch launch;
};

struct compiled_plan {
    std::vector<planned_group> groups;
    // The plan the executor binds: pass k runs group k, as a map (plan::pass_kind::map) or inside
    // another pass (plan::pass_kind::fused: a reduction's input, a held pass's bookkeeping).
    plan::plan plan;
    plan_purpose purpose = plan_purpose::statements;
    // reduction_input: the last group holds pending statements as well as the input, and the
    // reduction runs it as its first pass (which also stores what those statements store);
    // otherwise the last group is the input alone and is not launched here.
    bool last_group_fused = false;
    // epilogue: one group, compiled into the held pass's own source, never launched alone.
    bool in_held_pass = false;

    bool ends_in_reduction() const { return purpose == plan_purpose::reduction_input; }
    // Statements of the flush (a reduction's input is none).
    std::size_t statement_count(std::size_t queued) const { return queued - (ends_in_reduction() ? 1 : 0); }
};

} // namespace loom::detail
