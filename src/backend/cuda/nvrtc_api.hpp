// NVRTC, opened at run time with dlopen like the driver, so that nothing of CUDA is on the
// link line of Loom or of its consumers: one binary runs where no CUDA is installed, and uses
// NVRTC where it is. nvrtc.h is included for its types only; every call goes through the table.
#pragma once

#include <nvrtc.h>

#include <string>

namespace loom::backend::cuda {

#define LOOM_NVRTC_FUNCTIONS(X)                                                                                        \
    X(nvrtcVersion)                                                                                                    \
    X(nvrtcGetNumSupportedArchs)                                                                                       \
    X(nvrtcGetSupportedArchs)                                                                                          \
    X(nvrtcGetErrorString)                                                                                             \
    X(nvrtcCreateProgram)                                                                                              \
    X(nvrtcDestroyProgram)                                                                                             \
    X(nvrtcCompileProgram)                                                                                             \
    X(nvrtcGetProgramLogSize)                                                                                          \
    X(nvrtcGetProgramLog)                                                                                              \
    X(nvrtcGetPTXSize)                                                                                                 \
    X(nvrtcGetPTX)                                                                                                     \
    X(nvrtcGetCUBINSize)                                                                                               \
    X(nvrtcGetCUBIN)

struct nvrtc_api {
#define LOOM_NVRTC_DECLARE(f) decltype(&::f) f = nullptr;
    LOOM_NVRTC_FUNCTIONS(LOOM_NVRTC_DECLARE)
#undef LOOM_NVRTC_DECLARE
    std::string library; // the file it was opened from
};

// The process's NVRTC, opened once (the soname of the toolkit Loom was built with, then that
// toolkit's own copy, then any libnvrtc.so). Throws loom::error saying what to install when
// none can be opened or one lacks a function.
const nvrtc_api& nvrtc();

} // namespace loom::backend::cuda
