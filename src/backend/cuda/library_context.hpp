// The device's CUDA context made current for the scope of a call into an NVIDIA library (cuBLAS
// for loom::matmul, cuFFT for loom::fft), which runs on whatever context is current. The context
// comes as the integer handle the backend gives (docs/interop.md).
#pragma once

#include <cstdint>
#include <string>

#include "backend/cuda/driver_api.hpp"
#include "loom/error.hpp"

namespace loom::backend::cuda {

class library_context {
public:
    // `caller` ("loom::matmul") and `library` ("cuBLAS") name them in the error thrown when the
    // context cannot be made current; nothing has run then.
    library_context(const driver_api& driver, std::uint64_t context, const char* caller, const char* library)
        : driver_(driver) {
        const CUresult r =
            driver.cuCtxPushCurrent(reinterpret_cast<CUcontext>(static_cast<std::uintptr_t>(context)));
        if (r != CUDA_SUCCESS)
            throw error(std::string(caller) + ": making the CUDA context current for " + library +
                        " failed: " + result_text(driver, r) + ". Nothing was changed: every vector keeps its value");
    }
    ~library_context() {
        CUcontext popped = nullptr;
        driver_.cuCtxPopCurrent(&popped);
    }
    library_context(const library_context&) = delete;
    library_context& operator=(const library_context&) = delete;

private:
    const driver_api& driver_;
};

} // namespace loom::backend::cuda
