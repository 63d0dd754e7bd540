// A transform as a cuFFT plan on the CUDA device's own stream, which orders it after the
// statements enqueued before it. cuFFT works in the current context, so the device's context
// is made current around every call (through the driver table the CUDA backend opened) and the
// caller's restored afterwards. cuFFT does not scale; loom::ifft scales by 1/N in the expression
// it returns, as on clFFT. A complex-to-real cuFFT overwrites its input: loom::ifft_real hands
// it a copy (fft.cpp).
#include <climits>
#include <cstdint>
#include <string>

#include "fft/library_plan.hpp"
#include "loom/error.hpp"
#ifdef LOOM_HAVE_CUDA
#include "backend/cuda/driver_api.hpp"
#include "backend/cuda/library_context.hpp"
#endif

namespace loom::fourier {

#ifdef LOOM_HAVE_CUDA
namespace {

using backend::cuda::driver_api;

template <class P> P from_bits(std::uint64_t bits) { return reinterpret_cast<P>(static_cast<std::uintptr_t>(bits)); }

[[noreturn]] void fail(const std::string& what) {
    throw error("loom::fft: " + what + ". Nothing was changed: every vector keeps its value");
}

const driver_api& driver() {
    std::string why;
    const driver_api* d = backend::cuda::try_driver(&why);
    if (!d) fail("the CUDA driver is not usable: " + why);
    return *d;
}

class cufft_plan final : public library_plan {
public:
    cufft_plan(const cufft_api& api, const backend::native_handles& device, const transform& t)
        : api_(api), driver_(driver()), context_(device.context), stream_(device.queue), what_(describe(t)),
          kind_(t.kind), f64_(t.precision == dtype::f64) {
        int n[3] = {1, 1, 1};
        for (unsigned d = 0; d < t.rank; ++d) {
            if (t.extents[d] > INT_MAX)
                fail("a " + what_ + " has an extent over 2^31 - 1, which cufftPlanMany does not take");
            n[d] = int(t.extents[d]);
        }
        const int type = kind_ == transform_kind::real_to_complex   ? (f64_ ? cufft_d2z : cufft_r2c)
                         : kind_ == transform_kind::complex_to_real ? (f64_ ? cufft_z2d : cufft_c2r)
                                                                    : (f64_ ? cufft_z2z : cufft_c2c);
        const backend::cuda::library_context scope(driver_, context_, "loom::fft", "cuFFT");
        // Contiguous data (no embedding), one transform per call.
        check("cufftPlanMany", api.plan_many(&plan_, int(t.rank), n, nullptr, 1, 0, nullptr, 1, 0, type, 1));
    }
    ~cufft_plan() override {
        CUcontext popped = nullptr;
        if (driver_.cuCtxPushCurrent(from_bits<CUcontext>(context_)) != CUDA_SUCCESS) return;
        api_.destroy(plan_);
        driver_.cuCtxPopCurrent(&popped);
    }
    cufft_plan(const cufft_plan&) = delete;
    cufft_plan& operator=(const cufft_plan&) = delete;

    void enqueue(bool inverse, std::uint64_t input, std::uint64_t output) override {
        const backend::cuda::library_context scope(driver_, context_, "loom::fft", "cuFFT");
        check("cufftSetStream", api_.set_stream(plan_, from_bits<void*>(stream_)));
        void* in = from_bits<void*>(input);
        void* out = from_bits<void*>(output);
        const int direction = inverse ? cufft_inverse : cufft_forward;
        switch (kind_) {
        case transform_kind::real_to_complex:
            check(f64_ ? "cufftExecD2Z" : "cufftExecR2C", (f64_ ? api_.exec_d2z : api_.exec_r2c)(plan_, in, out));
            break;
        case transform_kind::complex_to_real:
            check(f64_ ? "cufftExecZ2D" : "cufftExecC2R", (f64_ ? api_.exec_z2d : api_.exec_c2r)(plan_, in, out));
            break;
        case transform_kind::complex_to_complex:
            check(f64_ ? "cufftExecZ2Z" : "cufftExecC2C",
                  (f64_ ? api_.exec_z2z : api_.exec_c2c)(plan_, in, out, direction));
            break;
        }
    }

private:
    void check(const char* routine, int status) const {
        if (status != cufft_success)
            fail(std::string(routine) + " (" + api_.library + ") failed with " + cufft_status_text(status) + " for a " +
                 what_);
    }

    const cufft_api& api_;
    const driver_api& driver_;
    std::uint64_t context_, stream_;
    std::string what_;
    transform_kind kind_;
    bool f64_;
    int plan_ = 0;
};

} // namespace

std::unique_ptr<library_plan> make_cufft_plan(const cufft_api& api, const backend::native_handles& device,
                                              const transform& t) {
    return std::make_unique<cufft_plan>(api, device, t);
}

#else

std::unique_ptr<library_plan> make_cufft_plan(const cufft_api&, const backend::native_handles&, const transform&) {
    throw error("loom::fft: this Loom was built without the CUDA backend, so it cannot transform on a CUDA device");
}

#endif

} // namespace loom::fourier
