// loom::devices(): every device Loom can run on, with what a program choosing one needs to
// know, and which one a default loom::context would open. loom-info prints the same list.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace loom {

struct device_description {
    std::string backend;   // "opencl" or "cuda": what LOOM_BACKEND (context_options::backend) takes
    std::size_t index = 0; // within its backend: what LOOM_DEVICE (context_options::device) takes
    std::string name;
    std::string vendor;
    std::string platform;       // the OpenCL platform, or "CUDA <driver version>"
    std::string driver_version; // as loom::context::driver_version() says it
    std::uint64_t global_memory_bytes = 0;
    std::uint64_t max_allocation_bytes = 0; // the largest single vector, in bytes
    unsigned compute_units = 0;
    std::size_t max_work_group_size = 0;
    bool fp64 = false; // loom::vector<double> works
    bool is_gpu = false;
    // The device a loom::context made now with default options would open, by the rules it
    // follows: LOOM_BACKEND and LOOM_DEVICE when set; otherwise a CUDA device when there is
    // one, else the first OpenCL GPU, else the first OpenCL device. At most one is.
    bool is_default = false;
};

// Every device of every backend this Loom is built with, CUDA's first, each backend's in
// its index order. Opens no device. A backend without a driver or device contributes
// nothing; no device at all gives an empty list, not an exception.
std::vector<device_description> devices();

} // namespace loom
