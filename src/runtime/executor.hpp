// The one launch path. Every kernel Loom runs for the user (maps, reduction and scan passes,
// held loop passes and batches of loop iterations) is enqueued by executor::run, which counts
// it and logs it on the launch channel (LOOM_LOG=launch); the device times it when profiling
// is on. The guard of loom::loop_while is a parameter of the guarded kernel variants, bound by
// whoever binds the kernel's other arguments. The tuner's trial launches (tuner.cpp) are the
// one exception: they are measurements on copies, not work.
#pragma once

#include <cstdint>

#include "backend/device.hpp"
#include "runtime/run_statistics.hpp"

namespace loom::detail {

// What a launch is, for its log line; none of it is formatted unless the launch channel is on.
struct launch_label {
    enum class kind : std::uint8_t { map, reduce_pass, scan_pass, held_pass, loop_batch, custom };
    kind what = kind::map;
    std::uint64_t elements = 0;   // the range the kernel covers (map, passes)
    std::uint32_t pass = 0;       // reduce_pass, scan_pass: which one (from 1)
    std::uint32_t first = 0;      // map: its statements, first..last
    std::uint32_t last = 0;       // ... held_pass, loop_batch: its bookkeeping statements 0..last
    std::uint64_t row_width = 0;  // map: launched on whole rows of this width (0: not)
    std::uint32_t iterations = 1; // loop_batch: loop iterations the launch runs
    const char* name = nullptr;   // custom: the kernel's name (loom::kernel)
};

class executor {
public:
    executor(backend::device& device, run_statistics& statistics, std::uint64_t context_id)
        : device_(device), statistics_(statistics), context_id_(context_id) {}

    void run(backend::kernel& k, const backend::kernel_arg* args, std::size_t count, const backend::geometry& g,
             const launch_label& label);
    // Counts a wait of the host for the device (reads, blocking writes, finishes) and logs it.
    void host_sync(const char* what);

private:
    backend::device& device_;
    run_statistics& statistics_;
    std::uint64_t context_id_;
};

} // namespace loom::detail
