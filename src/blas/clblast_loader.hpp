// CLBlast's C API, opened at run time with dlopen("libclblast.so.1"), so that Loom builds and
// starts where CLBlast is not installed and only loom::matmul on an OpenCL device needs it. The
// two functions Loom calls are declared here with plain types (cl_mem and cl_command_queue are
// pointers, CLBlast's enumerations are C enums), so no CLBlast or OpenCL header is involved.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace loom::blas {

// The soname Debian's libclblast1 installs.
inline constexpr const char* clblast_library = "libclblast.so.1";
// Names another file to open instead (a CLBlast built from source, or a missing one in tests).
inline constexpr const char* clblast_library_variable = "LOOM_CLBLAST_LIBRARY";

// clblast_c.h's CLBlastLayoutRowMajor, CLBlastTransposeNo and CLBlastSuccess.
inline constexpr int clblast_row_major = 101;
inline constexpr int clblast_no_transpose = 111;
inline constexpr int clblast_success = 0;

struct clblast_api {
    // CLBlastSgemm and CLBlastDgemm: (layout, a_transpose, b_transpose, m, n, k, alpha, a, a_offset,
    // a_ld, b, b_offset, b_ld, beta, c, c_offset, c_ld, queue, event) -> CLBlastStatusCode.
    template <class T> using gemm_fn = int (*)(int, int, int, std::size_t, std::size_t, std::size_t, T, void*,
                                               std::size_t, std::size_t, void*, std::size_t, std::size_t, T, void*,
                                               std::size_t, std::size_t, void**, void**);
    gemm_fn<float> sgemm = nullptr;
    gemm_fn<double> dgemm = nullptr;
    std::string library; // the file it was opened from
};

// Opens `library` and resolves both functions. Throws loom::error saying which library is
// missing (with dlerror's reason), which package provides it, and that nothing was changed.
// Each call opens a new table: tests point it at a missing file.
std::unique_ptr<clblast_api> load_clblast(const std::string& library);

// The process's CLBlast: from LOOM_CLBLAST_LIBRARY when it is set, else libclblast.so.1, opened
// once (thread-safely) and never closed. Throws load_clblast's loom::error, on every call, when
// it cannot be opened.
const clblast_api& clblast();

// "-1024 (CLBlastNotImplemented)", or the number alone for a code clblast_c.h does not name.
std::string clblast_status_text(int status);

} // namespace loom::blas
