// The OpenCL backend (OpenCL 1.2 through the C++ bindings). PoCL on a CPU is the
// device that exists everywhere; any ICD works.
#pragma once

#include <memory>
#include <string>

#include "backend/device.hpp"

namespace loom::backend {

// Throws loom::no_device listing the platforms found when none matches. `profiling`: a queue
// with profiling events, each launch timed (device::timing).
std::unique_ptr<device> open_opencl_device(const std::string& device_filter, bool profiling = false);

// Every OpenCL device, and the one open_opencl_device(device_filter) opens. Opens none.
device_listing list_opencl_devices(const std::string& device_filter);

} // namespace loom::backend
