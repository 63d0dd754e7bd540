// The OpenCL backend (OpenCL 1.2 through the C++ bindings). PoCL on a CPU is the
// device that exists everywhere; any ICD works.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/device.hpp"

namespace loom::backend {

// Throws loom::no_device listing the platforms found when none matches. `profiling`: a queue
// with profiling events, each launch timed (device::timing).
std::unique_ptr<device> open_opencl_device(const std::string& device_filter, bool profiling = false);

// Device `device_filter` (as open_opencl_device chooses it) split into `parts` equal sub-devices
// (clCreateSubDevices, CL_DEVICE_PARTITION_EQUALLY), each with its own queue, all in one
// cl_context; their memory counts against the whole device's. Throws loom::error when the
// device cannot be split so (no equal partition, compute units not a multiple of `parts`).
std::vector<std::unique_ptr<device>> open_opencl_sub_devices(const std::string& device_filter, unsigned parts,
                                                             bool profiling = false);

// A device over the caller's cl_context and cl_command_queue (interop, docs/interop.md): the
// device is the queue's; both are retained, and released with the device. Throws loom::error
// when either is not a valid handle, the queue is another context's, or it runs out of order.
// `profiling` needs a queue made with CL_QUEUE_PROFILING_ENABLE: without it, a loom::error when
// the program asked for profiling itself (`profiling_asked`), else (LOOM_PROFILE) a warning and
// no timing.
std::unique_ptr<device> open_opencl_device_over(void* cl_context, void* cl_command_queue, bool profiling,
                                                bool profiling_asked);

// Every OpenCL device, and the one open_opencl_device(device_filter) opens. Opens none.
device_listing list_opencl_devices(const std::string& device_filter);

} // namespace loom::backend
