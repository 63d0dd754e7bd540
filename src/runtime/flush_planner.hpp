// The planner: the plan key of the pending statements (a few dozen small integers, never
// source text), the plan cache it indexes, and for a new key the plan, made by the fusion
// pass, with its kernels compiled. On a cache hit nothing here allocates: the key and the
// scratch arrays keep their capacity from earlier flushes.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backend/device.hpp"
#include "cache/program_cache.hpp"
#include "fusion/statement_queue.hpp"
#include "runtime/buffer.hpp"
#include "runtime/compiled_plan.hpp"
#include "runtime/run_statistics.hpp"
#include "runtime/settings.hpp"

namespace loom::detail {

// Hash of a plan key: a few dozen small integers.
struct plan_key_hash {
    std::size_t operator()(const std::vector<std::uint32_t>& key) const;
};

class flush_planner {
public:
    flush_planner(backend::device& device, cache::program_cache& programs, const context_settings& settings,
                  run_statistics& statistics)
        : device_(device), programs_(programs), settings_(settings), statistics_(statistics) {}

    // The plan of the queued statements for `purpose` (`guarded`: inside a loom::loop_while
    // body), from the cache or made now. Every kernel of a new plan is compiled before this
    // returns, so a build failure leaves the vectors untouched. `made` tells which.
    compiled_plan& plan(const fusion::statement_queue& queue, plan_purpose purpose, bool guarded, bool& made);

    // What the last plan() call numbered: its key, and the buffer of each buffer class.
    const std::vector<std::uint32_t>& key() const { return key_; }
    buffer& buffer_of(std::uint32_t buffer_class) const { return *class_buffers_[buffer_class]; }
    std::size_t buffer_count() const { return class_buffers_.size(); }
    // Every buffer by class, what the plan's plan::source::flush_buffer arguments name.
    buffer* const* buffers() const { return class_buffers_.data(); }

private:
    void assign_classes(const fusion::statement_queue& queue, plan_purpose purpose, bool guarded);
    std::uint32_t scalar_class(const slot_info& slot, const scalar_bits& bits);
    std::unique_ptr<compiled_plan> make_plan(const fusion::statement_queue& queue, plan_purpose purpose, bool guarded);

    backend::device& device_;
    cache::program_cache& programs_;
    const context_settings& settings_;
    run_statistics& statistics_;
    std::unordered_map<std::vector<std::uint32_t>, std::unique_ptr<compiled_plan>, plan_key_hash> plans_;

    // Scratch of the last plan() call, kept to reuse its capacity.
    std::vector<std::uint32_t> key_;
    std::size_t live_words_ = 0; // where key_'s per-class liveness words begin
    std::vector<buffer*> class_buffers_;
    std::vector<std::uint64_t> lengths_;
    std::vector<std::uint32_t> disjoint_writes_; // the statements fusion::disjoint_span_write allows to join
    std::vector<std::uint32_t> slot_scalar_;     // per queued slot: its scalar value class
    std::vector<scalar_value> scalar_values_; // per scalar value class: its value
};

} // namespace loom::detail
