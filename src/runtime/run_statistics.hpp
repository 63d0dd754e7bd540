// The counters behind context::statistics(). Each part of the context reports what it did
// through one call here; nothing else writes them.
#pragma once

#include <cstdint>

#include "loom/context.hpp"

namespace loom::detail {

class run_statistics {
public:
    void flush_ran(std::uint64_t statements) {
        ++counters_.flushes;
        counters_.statements += statements;
    }
    void plan_made() { ++counters_.plans_made; }
    void plan_reused() { ++counters_.plan_hits; }
    void kernel_launched() { ++counters_.kernels_launched; }
    void host_synced() { ++counters_.host_syncs; }
    void kernel_tuned() { ++counters_.kernels_tuned; }
    void memory_allocated() { ++counters_.buffers_allocated; }
    void memory_reused() { ++counters_.buffers_reused; }

    // The runtime's own counters; context::statistics() adds the program cache's and the device's.
    const context_statistics& counters() const { return counters_; }

private:
    context_statistics counters_;
};

} // namespace loom::detail
