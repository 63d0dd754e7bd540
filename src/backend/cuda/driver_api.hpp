// The CUDA driver API, opened at run time with dlopen("libcuda.so.1") so that a Loom
// built with CUDA still starts, and runs OpenCL, on a machine with no NVIDIA driver.
// cuda.h is included for its types only; every call goes through a driver_api table.
#pragma once

#include <cuda.h>

#include <memory>
#include <string>

namespace loom::backend::cuda {

// The soname the NVIDIA driver installs; the unversioned libcuda.so is a link-time stub.
inline constexpr const char* driver_library = "libcuda.so.1";

// Every driver function Loom calls. The member names are cuda.h's names, so cuda.h's
// macros turn cuMemAlloc into cuMemAlloc_v2 here exactly as in a program linked to
// libcuda: the symbol looked up is always the one cuda.h declares.
#define LOOM_CUDA_DRIVER_FUNCTIONS(X)                                                                                  \
    X(cuInit)                                                                                                          \
    X(cuDriverGetVersion)                                                                                              \
    X(cuGetErrorName)                                                                                                  \
    X(cuGetErrorString)                                                                                                \
    X(cuDeviceGetCount)                                                                                                \
    X(cuDeviceGet)                                                                                                     \
    X(cuDeviceGetName)                                                                                                 \
    X(cuDeviceGetAttribute)                                                                                            \
    X(cuDeviceTotalMem)                                                                                                \
    X(cuDevicePrimaryCtxRetain)                                                                                        \
    X(cuDevicePrimaryCtxRelease)                                                                                       \
    X(cuCtxPushCurrent)                                                                                                \
    X(cuCtxPopCurrent)                                                                                                 \
    X(cuCtxGetDevice)                                                                                                  \
    X(cuStreamCreate)                                                                                                  \
    X(cuStreamDestroy)                                                                                                 \
    X(cuStreamSynchronize)                                                                                             \
    X(cuStreamGetCtx)                                                                                                  \
    X(cuEventCreate)                                                                                                   \
    X(cuEventDestroy)                                                                                                  \
    X(cuEventRecord)                                                                                                   \
    X(cuEventSynchronize)                                                                                              \
    X(cuEventQuery)                                                                                                    \
    X(cuMemGetInfo)                                                                                                    \
    X(cuMemAlloc)                                                                                                      \
    X(cuMemFree)                                                                                                       \
    X(cuMemGetAddressRange)                                                                                            \
    X(cuPointerGetAttribute)                                                                                           \
    X(cuMemAllocHost)                                                                                                  \
    X(cuMemFreeHost)                                                                                                   \
    X(cuMemcpyHtoDAsync)                                                                                               \
    X(cuMemcpyDtoHAsync)                                                                                               \
    X(cuMemcpyDtoDAsync)                                                                                               \
    X(cuModuleLoadData)                                                                                                \
    X(cuModuleLoadDataEx)                                                                                              \
    X(cuModuleUnload)                                                                                                  \
    X(cuModuleGetFunction)                                                                                             \
    X(cuLaunchKernel)

struct driver_api {
#define LOOM_CUDA_DECLARE(f) decltype(&::f) f = nullptr;
    LOOM_CUDA_DRIVER_FUNCTIONS(LOOM_CUDA_DECLARE)
#undef LOOM_CUDA_DECLARE
    // Only profiling needs it, and CUDA 13's cuda.h names cuEventElapsedTime_v2, which
    // drivers before 12.8 lack: the newer symbol where there is one, else the first (the
    // two take the same arguments); null when neither, and profiling then says so.
    CUresult (*event_elapsed_ms)(float* ms, CUevent start, CUevent end) = nullptr;
    std::string library; // the file it was opened from
};

// Opens a driver library and resolves every function. Throws loom::error naming the
// library (and dlerror) when it cannot be opened, or the first symbol it lacks.
// Each call opens a new table; tests use it on the toolkit's stub library.
std::unique_ptr<driver_api> load_driver(const std::string& library);

// The process's driver, from libcuda.so.1, opened once. Returns nullptr, with the reason
// as a phrase in *why ("the NVIDIA driver library libcuda.so.1 is not loadable (...)"),
// when it cannot be opened; never throws.
const driver_api* try_driver(std::string* why);

// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)", or the number when the driver has no name for it.
std::string result_text(const driver_api& api, CUresult result);

} // namespace loom::backend::cuda
