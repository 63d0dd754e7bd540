// A transform planned by a library for one device, ready to enqueue: clFFT's baked plan or a
// cuFFT plan. Made once per transform and context (plan_cache.hpp), because planning is the
// costly step (clfftBakePlan generates and compiles OpenCL kernels).
#pragma once

#include <cstdint>
#include <memory>

#include "backend/device.hpp"
#include "fft/clfft_loader.hpp"
#include "fft/cufft_loader.hpp"
#include "fft/transform.hpp"

namespace loom::fourier {

class library_plan {
public:
    virtual ~library_plan() = default;
    // Enqueue the transform from `input` to `output` (cl_mem handles or CUdeviceptrs, as
    // device::native_memory gives them, of input_elements() and output_elements()) on the
    // device's queue or stream, after what is there; nothing waits. `inverse` chooses the
    // direction of a complex-to-complex plan (one plan serves both). A failure is a loom::error
    // naming the library's status; `output` is then unspecified and `input` unchanged.
    virtual void enqueue(bool inverse, std::uint64_t input, std::uint64_t output) = 0;
};

// Plan `t` for the device `device` names. A failure is a loom::error naming the transform and
// the library's status; nothing has been enqueued.
std::unique_ptr<library_plan> make_clfft_plan(const clfft_api& api, const backend::native_handles& device,
                                              const transform& t);
std::unique_ptr<library_plan> make_cufft_plan(const cufft_api& api, const backend::native_handles& device,
                                              const transform& t);

} // namespace loom::fourier
