// A transform as a baked clFFT plan on the OpenCL device's own queue. The queue is in order
// (the OpenCL backend makes it so), so the transform's kernels run after the statements
// enqueued before it and before those enqueued after: no event is asked for or waited on.
// Plans are out of place, interleaved, and unscaled both ways: loom::ifft scales by 1/N in the
// expression it returns, so that the scaling fuses into what follows and both backends agree.
#include <array>
#include <cstdint>
#include <string>

#include "fft/library_plan.hpp"
#include "loom/error.hpp"

namespace loom::fourier {
namespace {

void* handle(std::uint64_t bits) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(bits)); }

class clfft_plan final : public library_plan {
public:
    clfft_plan(const clfft_api& api, const backend::native_handles& device, const transform& t)
        : api_(api), queue_(handle(device.queue)), what_(describe(t)), kind_(t.kind) {
        // clFFT counts lengths and strides fastest first; Loom's extents are slowest first.
        std::array<std::size_t, 3> lengths{1, 1, 1};
        for (unsigned d = 0; d < t.rank; ++d) lengths[d] = std::size_t(t.extents[t.rank - 1 - d]);
        check("clfftCreateDefaultPlan", api.create_plan(&plan_, handle(device.context), int(t.rank), lengths.data()));
        try {
            configure_and_bake(t, lengths);
        } catch (...) {
            api.destroy_plan(&plan_); // a constructor that throws runs no destructor
            throw;
        }
    }
    ~clfft_plan() override {
        if (!clfft_torn_down()) api_.destroy_plan(&plan_);
    }
    clfft_plan(const clfft_plan&) = delete;
    clfft_plan& operator=(const clfft_plan&) = delete;

    void enqueue(bool inverse, std::uint64_t input, std::uint64_t output) override {
        const int direction = kind_ == transform_kind::real_to_complex   ? clfft_forward
                              : kind_ == transform_kind::complex_to_real ? clfft_backward
                              : inverse                                  ? clfft_backward
                                                                         : clfft_forward;
        void* queue = queue_;
        void* in = handle(input);
        void* out = handle(output);
        check("clfftEnqueueTransform",
              api_.enqueue(plan_, direction, 1, &queue, 0, nullptr, nullptr, &in, &out, nullptr));
    }

private:
    void configure_and_bake(const transform& t, const std::array<std::size_t, 3>& lengths) {
        const clfft_api& api = api_;
        check("clfftSetPlanPrecision",
              api.set_precision(plan_, t.precision == dtype::f64 ? clfft_double : clfft_single));
        check("clfftSetResultLocation", api.set_result_location(plan_, clfft_out_of_place));
        check("clfftSetPlanScale", api.set_scale(plan_, clfft_forward, 1.0f));
        check("clfftSetPlanScale", api.set_scale(plan_, clfft_backward, 1.0f));
        // Contiguous strides of each side: the half spectrum's fastest extent is n/2 + 1.
        const bool real_in = t.kind == transform_kind::real_to_complex;
        const bool real_out = t.kind == transform_kind::complex_to_real;
        std::array<std::size_t, 3> full{1, 1, 1}, half{1, 1, 1};
        for (unsigned d = 1; d < t.rank; ++d) {
            full[d] = full[d - 1] * lengths[d - 1];
            half[d] = half[d - 1] * (d == 1 ? lengths[0] / 2 + 1 : lengths[d - 1]);
        }
        const bool real = real_in || real_out;
        std::array<std::size_t, 3> in = real_out ? half : full, out = real_in ? half : full;
        check("clfftSetLayout", api.set_layout(plan_,
                                               real_in    ? clfft_real
                                               : real_out ? clfft_hermitian_interleaved
                                                          : clfft_complex_interleaved,
                                               real_in    ? clfft_hermitian_interleaved
                                               : real_out ? clfft_real
                                                          : clfft_complex_interleaved));
        if (real) {
            check("clfftSetPlanInStride", api.set_in_stride(plan_, int(t.rank), in.data()));
            check("clfftSetPlanOutStride", api.set_out_stride(plan_, int(t.rank), out.data()));
            check("clfftSetPlanDistance",
                  api.set_distance(plan_, std::size_t(t.input_elements()), std::size_t(t.output_elements())));
        }
        void* queue = queue_;
        check("clfftBakePlan", api.bake_plan(plan_, 1, &queue, nullptr, nullptr));
    }

    void check(const char* routine, int status) const {
        if (status == clfft_success) return;
        throw error("loom::fft: clFFT's " + std::string(routine) + " (" + api_.library + ") failed with status " +
                    clfft_status_text(status) + " for a " + what_ +
                    ". Nothing was changed: every vector keeps its value");
    }

    const clfft_api& api_;
    void* queue_;
    std::string what_;
    transform_kind kind_;
    clfft_api::plan plan_ = 0;
};

} // namespace

std::unique_ptr<library_plan> make_clfft_plan(const clfft_api& api, const backend::native_handles& device,
                                              const transform& t) {
    return std::make_unique<clfft_plan>(api, device, t);
}

} // namespace loom::fourier
