// cuBLAS, opened at run time with dlopen (libcublas.so.13, else libcublas.so.12), as the CUDA
// driver and NVRTC are: nothing of cuBLAS is needed to build Loom, and only loom::matmul on a
// CUDA device needs it at run time. The functions Loom calls are declared here with plain types
// (a cublasHandle_t and a cudaStream_t are pointers, cublasStatus_t and cublasOperation_t C
// enums), so no CUDA header is involved.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace loom::blas {

// The sonames of the cuBLAS versions Loom knows, newest first (NVIDIA's packages
// libcublas-13-0 / libcublas-12-x, or pip's nvidia-cublas).
inline const std::vector<std::string>& cublas_libraries() {
    static const std::vector<std::string> names = {"libcublas.so.13", "libcublas.so.12"};
    return names;
}
// Names another file to open instead of those.
inline constexpr const char* cublas_library_variable = "LOOM_CUBLAS_LIBRARY";

// cublas_api.h's CUBLAS_OP_N and CUBLAS_STATUS_SUCCESS.
inline constexpr int cublas_no_transpose = 0;
inline constexpr int cublas_success = 0;

struct cublas_api {
    // cublasSgemm_v2 and cublasDgemm_v2, column-major: (handle, transa, transb, m, n, k, &alpha,
    // A, lda, B, ldb, &beta, C, ldc) -> cublasStatus_t.
    template <class T>
    using gemm_fn = int (*)(void*, int, int, int, int, int, const T*, const T*, int, const T*, int, const T*, T*, int);
    int (*create)(void** handle) = nullptr;                  // cublasCreate_v2
    int (*destroy)(void* handle) = nullptr;                  // cublasDestroy_v2
    int (*set_stream)(void* handle, void* stream) = nullptr; // cublasSetStream_v2
    gemm_fn<float> sgemm = nullptr;
    gemm_fn<double> dgemm = nullptr;
    // cublasGetStatusName (cuBLAS 11.4 and later); null when the library has none.
    const char* (*status_name)(int status) = nullptr;
    std::string library; // the file it was opened from
};

// Opens the first of `libraries` that loads and resolves every function. Throws loom::error
// saying which libraries are missing (with dlerror's reasons), which packages provide them, and
// that nothing was changed. Each call opens a new table.
std::unique_ptr<cublas_api> load_cublas(const std::vector<std::string>& libraries);

// The process's cuBLAS: from LOOM_CUBLAS_LIBRARY when it is set, else cublas_libraries(), opened
// once (thread-safely) and never closed. Throws load_cublas's loom::error, on every call, when
// none can be opened.
const cublas_api& cublas();

// "CUBLAS_STATUS_EXECUTION_FAILED (13)", or the number alone.
std::string cublas_status_text(const cublas_api& api, int status);

} // namespace loom::blas
