// The CUDA backend: NVRTC compiles, the driver API (opened with dlopen) runs. One
// primary context and one stream per Loom device; transfers are staged through a
// reused pinned buffer.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "backend/device.hpp"

namespace loom::backend {

// Size of each of the two pinned staging buffers; a larger transfer goes in chunks,
// one chunk's host copy overlapping the other's DMA.
inline constexpr std::size_t cuda_staging_chunk = std::size_t(4) << 20;

// Opens the CUDA device LOOM_DEVICE names (an index or a name substring; empty: device 0).
// Throws loom::no_device saying what is missing: the driver library libcuda.so.1, or any
// device behind a loaded driver, or a device matching the filter (listing those found).
// `profiling`: every launch between two events, timed (device::timing).
std::unique_ptr<device> open_cuda_device(const std::string& filter, bool profiling = false);

// A device over the caller's CUcontext and CUstream (interop, docs/interop.md; a null stream is
// the context's legacy default stream). CUDA keeps no reference count for them: both must
// outlive the device. Throws loom::no_device without a driver, loom::error when the context is
// not live or the stream is another context's.
std::unique_ptr<device> open_cuda_device_over(void* cu_context, void* cu_stream, bool profiling = false);

// Every CUDA device, and the one open_cuda_device(filter) opens. Opens none (no context is
// made); without a driver or a device behind it, the listing is empty.
device_listing list_cuda_devices(const std::string& filter);

// True when libcuda.so.1 loads, initialises and reports at least one device. Never throws;
// the answer is computed once per process.
bool cuda_device_present();

// Why cuda_device_present() is false, in words ("" when it is true). For skip messages.
std::string cuda_absence_reason();

} // namespace loom::backend
