// CUDA C++ source to a cubin (or PTX) with NVRTC. Needs no GPU and no driver: this is
// also how CI checks every generated CUDA kernel on machines without one.
#pragma once

#include <string>
#include <vector>

namespace loom::backend::cuda {

struct nvrtc_output {
    std::vector<unsigned char> binary; // a cubin (ELF), or PTX text ending in '\0'
    std::string kind;                  // "cubin" or "ptx"
    std::string log;                   // NVRTC's log (warnings), possibly empty
    std::string target;                // the architecture compiled for: "sm_90" or "compute_90"
};

// Compiles for compute capability major*10+minor (80, 86, 90, ...). A cubin when
// want_cubin and this NVRTC knows the architecture; otherwise PTX for the newest
// architecture NVRTC knows that is not newer than the device (the driver JITs it).
// Throws build_failure with NVRTC's log when the source does not compile, or when
// the device is older than every architecture this NVRTC supports.
// `file_name` is the name NVRTC's messages give the source.
nvrtc_output nvrtc_compile(const std::string& source, int compute_capability, bool want_cubin = true,
                           const std::string& file_name = "loom_kernel.cu");

// The target nvrtc_compile chooses: "sm_90" (a cubin), "compute_90" (PTX), or "" when
// the device is older than every architecture this NVRTC supports.
std::string nvrtc_target(int compute_capability, bool want_cubin = true);

// The options every compile uses besides the architecture. --fmad=false: a fused
// kernel must round exactly like the statements run one by one, so a*b+c is never
// contracted into an fma the unfused code would not have.
const std::vector<std::string>& nvrtc_common_options();

// "NVRTC 13.0", for the kernel cache key and logs.
std::string nvrtc_version();

// The architectures this NVRTC compiles for, as compute capabilities (75, 80, ...).
const std::vector<int>& nvrtc_architectures();

} // namespace loom::backend::cuda
