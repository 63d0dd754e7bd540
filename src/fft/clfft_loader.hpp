// clFFT's C API, opened at run time with dlopen("libclFFT.so.2"), as CLBlast is for
// loom::matmul: Loom builds and starts where clFFT is not installed, and only loom::fft on an
// OpenCL device needs it. The functions Loom calls are declared here with plain types (a
// clfftPlanHandle is a size_t, cl_context, cl_command_queue and cl_mem are pointers, clFFT's
// enumerations are C enums), so no clFFT or OpenCL header is involved.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace loom::fourier {

// The soname Debian's libclfft2 (pulled in by libclfft-dev) installs.
inline constexpr const char* clfft_library = "libclFFT.so.2";
// Names another file to open instead (a clFFT built from source, or a missing one in tests).
inline constexpr const char* clfft_library_variable = "LOOM_CLFFT_LIBRARY";

// clFFT.h's enumerations, the values Loom passes.
inline constexpr int clfft_success = 0;
inline constexpr int clfft_forward = -1, clfft_backward = 1;                                         // clfftDirection
inline constexpr int clfft_single = 1, clfft_double = 2;                                             // clfftPrecision
inline constexpr int clfft_complex_interleaved = 1, clfft_hermitian_interleaved = 3, clfft_real = 5; // clfftLayout
inline constexpr int clfft_out_of_place = 2; // clfftResultLocation

struct clfft_api {
    using plan = std::size_t; // clfftPlanHandle
    // clfftSetupData: {cl_uint major, minor, patch; cl_ulong debugFlags}.
    struct setup_data {
        std::uint32_t major = 0, minor = 0, patch = 0;
        std::uint64_t debug_flags = 0;
    };
    int (*get_version)(std::uint32_t*, std::uint32_t*, std::uint32_t*) = nullptr; // clfftGetVersion
    int (*setup)(const setup_data*) = nullptr;                                    // clfftSetup
    // clfftCreateDefaultPlan(plan*, cl_context, clfftDim, const size_t* lengths)
    int (*create_plan)(plan*, void*, int, const std::size_t*) = nullptr;
    int (*destroy_plan)(plan*) = nullptr;                          // clfftDestroyPlan
    int (*set_precision)(plan, int) = nullptr;                     // clfftSetPlanPrecision
    int (*set_scale)(plan, int, float) = nullptr;                  // clfftSetPlanScale(plan, direction, scale)
    int (*set_layout)(plan, int, int) = nullptr;                   // clfftSetLayout(plan, in, out)
    int (*set_result_location)(plan, int) = nullptr;               // clfftSetResultLocation
    int (*set_in_stride)(plan, int, std::size_t*) = nullptr;       // clfftSetPlanInStride(plan, dim, strides)
    int (*set_out_stride)(plan, int, std::size_t*) = nullptr;      // clfftSetPlanOutStride
    int (*set_distance)(plan, std::size_t, std::size_t) = nullptr; // clfftSetPlanDistance
    // clfftBakePlan(plan, queue count, queues, callback, user data)
    int (*bake_plan)(plan, std::uint32_t, void**, void*, void*) = nullptr;
    int (*teardown)() = nullptr; // clfftTeardown
    // clfftEnqueueTransform(plan, direction, queue count, queues, wait count, wait events,
    // out events, inputs, outputs, temporary buffer)
    int (*enqueue)(plan, int, std::uint32_t, void**, std::uint32_t, const void*, void**, void**, void**,
                   void*) = nullptr;
    std::string library; // the file it was opened from
};

// Opens `library`, resolves every function and calls clfftSetup once. Throws loom::error
// saying which library is missing (with dlerror's reason), which package provides it, and that
// nothing was changed. Each call opens a new table: tests point it at a missing file.
std::unique_ptr<clfft_api> load_clfft(const std::string& library);

// The process's clFFT: from LOOM_CLFFT_LIBRARY when it is set, else libclFFT.so.2, opened once
// (thread-safely) and never closed. Throws load_clfft's loom::error, on every call, when it
// cannot be opened.
const clfft_api& clfft();

// Whether the process's clFFT has been torn down: at exit, before clFFT's own statics are
// destroyed (which would otherwise warn on stderr that clfftTeardown was never called). A plan
// destroyed after that, by a context that outlives it (a static one), must not call clFFT.
bool clfft_torn_down();

// "4098 (CLFFT_NOTIMPLEMENTED)", "-5 (CL_OUT_OF_RESOURCES)", or the number alone.
std::string clfft_status_text(int status);

} // namespace loom::fourier
