// cuFFT, opened at run time with dlopen (libcufft.so.12, else libcufft.so.11), as cuBLAS is for
// loom::matmul: nothing of cuFFT is needed to build Loom, and only loom::fft on a CUDA device
// needs it at run time. The functions Loom calls are declared here with plain types (a
// cufftHandle is an int, a cudaStream_t a pointer, a CUdeviceptr a 64-bit integer, cufftResult
// and cufftType C enums), so no CUDA header is involved.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace loom::fourier {

// The sonames of the cuFFT versions Loom knows, newest first: cuFFT 12 comes with CUDA 13
// (NVIDIA's libcufft-13-0), cuFFT 11 with CUDA 12 (libcufft-12-x); pip's nvidia-cufft has both.
inline const std::vector<std::string>& cufft_libraries() {
    static const std::vector<std::string> names = {"libcufft.so.12", "libcufft.so.11"};
    return names;
}
// Names another file to open instead of those.
inline constexpr const char* cufft_library_variable = "LOOM_CUFFT_LIBRARY";

// cufft.h's values Loom passes.
inline constexpr int cufft_success = 0;
inline constexpr int cufft_forward = -1, cufft_inverse = 1;
inline constexpr int cufft_r2c = 0x2a, cufft_c2r = 0x2c, cufft_c2c = 0x29; // cufftType, float
inline constexpr int cufft_d2z = 0x6a, cufft_z2d = 0x6c, cufft_z2z = 0x69; // cufftType, double

struct cufft_api {
    // cufftPlanMany(plan*, rank, n, inembed, istride, idist, onembed, ostride, odist, type, batch)
    int (*plan_many)(int*, int, int*, int*, int, int, int*, int, int, int, int) = nullptr;
    int (*destroy)(int) = nullptr;           // cufftDestroy
    int (*set_stream)(int, void*) = nullptr; // cufftSetStream
    // cufftExecC2C / Z2Z (plan, in, out, direction); the others (plan, in, out). Pointers are
    // device addresses.
    int (*exec_c2c)(int, void*, void*, int) = nullptr;
    int (*exec_z2z)(int, void*, void*, int) = nullptr;
    int (*exec_r2c)(int, void*, void*) = nullptr;
    int (*exec_d2z)(int, void*, void*) = nullptr;
    int (*exec_c2r)(int, void*, void*) = nullptr;
    int (*exec_z2d)(int, void*, void*) = nullptr;
    std::string library; // the file it was opened from
};

// Opens the first of `libraries` that loads and resolves every function. Throws loom::error
// saying which libraries are missing (with dlerror's reasons), which packages provide them, and
// that nothing was changed. Each call opens a new table.
std::unique_ptr<cufft_api> load_cufft(const std::vector<std::string>& libraries);

// The process's cuFFT: from LOOM_CUFFT_LIBRARY when it is set, else cufft_libraries(), opened
// once (thread-safely) and never closed. Throws load_cufft's loom::error, on every call, when
// none can be opened.
const cufft_api& cufft();

// "CUFFT_INVALID_SIZE (8)", or "cufftResult 99" for a code cufft.h does not name.
std::string cufft_status_text(int status);

} // namespace loom::fourier
