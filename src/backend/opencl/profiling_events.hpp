// How backend::kernel_clock reads an OpenCL profiling event. bench/ times its handwritten
// OpenCL baselines through the same reader and clock, so both sides of a comparison are
// read by one rule.
#pragma once

#include <CL/opencl.hpp>

#include <cstdint>

namespace loom::backend {

// An event whose command failed (a negative status), or that cannot be asked, counts as
// finished with no time: the failure itself was reported by the call that waited for it.
struct opencl_event_reader {
    bool finished(cl::Event& e) {
        cl_int status = CL_QUEUED;
        if (e.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS, &status) != CL_SUCCESS) return true;
        return status == CL_COMPLETE || status < 0;
    }
    std::uint64_t elapsed_ns(cl::Event& e) {
        cl_ulong start = 0, end = 0;
        if (e.getProfilingInfo(CL_PROFILING_COMMAND_START, &start) != CL_SUCCESS ||
            e.getProfilingInfo(CL_PROFILING_COMMAND_END, &end) != CL_SUCCESS)
            return 0;
        return end > start ? end - start : 0;
    }
    void wait(cl::Event& e) { e.wait(); }
    void retire(cl::Event&) {}
};

} // namespace loom::backend
