// A plan: the passes that run for one call of an algorithm (a flush of pending statements, a
// reduction, a scan, a reduction along an axis), as data. A planner makes it from the call and
// the device's properties without touching a device (src/skeleton for the skeletons, the
// fusion pass through runtime/flush_planner for a flush); the runtime compiles it once, keeps
// it in a plan cache and hands it to the executor, which binds and launches every plan the
// same way (docs/architecture.md).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "backend/device.hpp"
#include "codegen/kernel_source.hpp"
#include "loom/dtype.hpp"

namespace loom::plan {

// Where the executor takes a kernel argument from.
enum class source : std::uint8_t {
    slot_buffer, // index: the call's input slot whose vector the kernel reads
    slot_value,  // index: the call's input slot whose value is passed (`type` wide)
    fused,       // every argument of the flush's fused pass whose statements this pass runs
    guard,       // loom::loop_while's guard
    scratch,     // index: the plan's scratch buffer
    result,      // index: the call's result k (a device scalar or output vector it writes)
    identity,    // index: operation k's identity (`type` wide)
    initial,     // the scan's first value
    capture,     // index: operation k, item: its capture j (`type` wide)
    extent,      // index: the pass's codegen::pass_extent (a 64-bit count)
    // A flush's sources: its statements' buffers and values, numbered by the planner.
    flush_buffer,     // index: the flush's buffer class
    statement_value,  // index: the statement, item: its slot, whose value is passed (`type` wide)
    statement_length, // index: the statement whose length (a 64-bit count) is passed
    packed_values,    // the device buffer the pass's packed scalars are uploaded into
    constant,         // index: a 32-bit value the plan holds (a radix pass's digit shift, a merge pass's doubling)
};

struct argument {
    source from = source::slot_buffer;
    std::uint32_t index = 0;
    std::uint32_t item = 0;
    dtype type = dtype::boolean; // the by-value sources' type

    bool operator==(const argument& o) const {
        return from == o.from && index == o.index && item == o.item && type == o.type;
    }
};

// What a pass does, for its log line (runtime/executor.hpp). A flush's `fused` pass is no
// launch of its own: another pass runs its statements (a reduction's first pass, a held loop
// pass) and binds its arguments where that pass's plan says `source::fused`.
enum class pass_kind : std::uint8_t { reduce, scan, map, fused, sort, block_map };

struct pass {
    codegen::kernel_source kernel;
    std::string summary; // what the program cache and the fusion log say the kernel is
    std::vector<argument> arguments;
    pass_kind kind = pass_kind::reduce;
    // The column of the call's launch_sizes the pass launches with: its own index, or (a plan
    // that repeats its passes, as a radix sort does per digit) the column of the pass it repeats.
    static constexpr std::uint8_t own_sizes = 0xFF;
    std::uint8_t sizes = own_sizes;
};

// The launch_sizes column of pass `index` of a plan.
inline std::size_t sizes_column(const pass& p, std::size_t index) {
    return p.sizes == pass::own_sizes ? index : p.sizes;
}

struct plan {
    std::vector<pass> passes;
    // Device buffers the plan keeps between calls (partials, totals), by element type; the
    // call's sizes say how many elements each holds. Only those a pass's arguments name are
    // allocated.
    std::vector<dtype> scratch;
    // Where the host reads result k after the last pass (a scratch buffer), when it reads any.
    std::vector<std::uint32_t> read_back;
};

// The sizes one call launches a plan with: a pure function of the call's extents and the
// device's properties (src/launch), so that a cached plan serves every length.
constexpr std::size_t max_passes = 4; // the columns of sizes: reduce_by_key's four passes, or a pass a column
constexpr std::size_t max_scratch = 14; // a merge sort's: two runs of the keys and of six value vectors
constexpr std::size_t extent_count = 8; // codegen::pass_extent's values

struct launch_sizes {
    std::array<backend::geometry, max_passes> geometry{};
    std::array<std::array<std::uint64_t, extent_count>, max_passes> extents{}; // by codegen::pass_extent
    std::array<std::uint64_t, max_passes> elements{};                          // the range each covers, for its log
    std::array<std::uint64_t, max_scratch> scratch_elements{};
};

} // namespace loom::plan
