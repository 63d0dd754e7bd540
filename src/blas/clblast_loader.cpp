// Opening CLBlast with dlopen and resolving the GEMM functions loom::matmul calls; the names of
// its status codes for error messages.
#include "blas/clblast_loader.hpp"

#include <dlfcn.h>

#include <utility>

#include "loom/error.hpp"
#include "support/environment.hpp"

namespace loom::blas {
namespace {

std::string missing_library(const std::string& library, const std::string& why) {
    return "loom::matmul: CLBlast, the OpenCL BLAS library that loom::matmul runs on OpenCL devices, could not be "
           "loaded from " +
           library + " (" + why +
           "). Install it with the Debian package libclblast1 (apt-get install libclblast1), or set " +
           clblast_library_variable +
           " to the path of a libclblast.so. Nothing was changed: no statement ran and every matrix keeps its value";
}

} // namespace

std::unique_ptr<clblast_api> load_clblast(const std::string& library) {
    dlerror();
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        throw error(missing_library(library, why ? why : "no reason given"));
    }
    auto api = std::make_unique<clblast_api>();
    api->library = library;
    // The handle stays open, here and on failure: CLBlast keeps compiled programs in statics.
    auto resolve = [&](const char* name) {
        void* f = dlsym(handle, name);
        if (!f) throw error(missing_library(library, std::string("it has no function ") + name));
        return f;
    };
    api->sgemm = reinterpret_cast<clblast_api::gemm_fn<float>>(resolve("CLBlastSgemm"));
    api->dgemm = reinterpret_cast<clblast_api::gemm_fn<double>>(resolve("CLBlastDgemm"));
    return api;
}

const clblast_api& clblast() {
    struct loaded_clblast {
        std::unique_ptr<clblast_api> api;
        std::string problem;
    };
    // Built once, thread-safely, and never destroyed: CLBlast's own statics outlive every Loom object.
    static const loaded_clblast& loaded = *[] {
        auto* l = new loaded_clblast;
        const std::optional<std::string> chosen = environment::text(clblast_library_variable);
        try {
            l->api = load_clblast(chosen.value_or(clblast_library));
        } catch (const error& e) {
            l->problem = e.what();
        }
        return l;
    }();
    if (!loaded.api) throw error(loaded.problem);
    return *loaded.api;
}

std::string clblast_status_text(int status) {
    // clblast_c.h's CLBlastStatusCode.
    static const std::pair<int, const char*> names[] = {
        {-3, "CLBlastOpenCLCompilerNotAvailable"},
        {-4, "CLBlastTempBufferAllocFailure"},
        {-5, "CLBlastOpenCLOutOfResources"},
        {-6, "CLBlastOpenCLOutOfHostMemory"},
        {-11, "CLBlastOpenCLBuildProgramFailure"},
        {-30, "CLBlastInvalidValue"},
        {-36, "CLBlastInvalidCommandQueue"},
        {-38, "CLBlastInvalidMemObject"},
        {-42, "CLBlastInvalidBinary"},
        {-43, "CLBlastInvalidBuildOptions"},
        {-44, "CLBlastInvalidProgram"},
        {-45, "CLBlastInvalidProgramExecutable"},
        {-46, "CLBlastInvalidKernelName"},
        {-47, "CLBlastInvalidKernelDefinition"},
        {-48, "CLBlastInvalidKernel"},
        {-49, "CLBlastInvalidArgIndex"},
        {-50, "CLBlastInvalidArgValue"},
        {-51, "CLBlastInvalidArgSize"},
        {-52, "CLBlastInvalidKernelArgs"},
        {-53, "CLBlastInvalidLocalNumDimensions"},
        {-54, "CLBlastInvalidLocalThreadsTotal"},
        {-55, "CLBlastInvalidLocalThreadsDim"},
        {-56, "CLBlastInvalidGlobalOffset"},
        {-57, "CLBlastInvalidEventWaitList"},
        {-58, "CLBlastInvalidEvent"},
        {-59, "CLBlastInvalidOperation"},
        {-61, "CLBlastInvalidBufferSize"},
        {-63, "CLBlastInvalidGlobalWorkSize"},
        {-1024, "CLBlastNotImplemented"},
        {-1022, "CLBlastInvalidMatrixA"},
        {-1021, "CLBlastInvalidMatrixB"},
        {-1020, "CLBlastInvalidMatrixC"},
        {-1017, "CLBlastInvalidDimension"},
        {-1016, "CLBlastInvalidLeadDimA"},
        {-1015, "CLBlastInvalidLeadDimB"},
        {-1014, "CLBlastInvalidLeadDimC"},
        {-1011, "CLBlastInsufficientMemoryA"},
        {-1010, "CLBlastInsufficientMemoryB"},
        {-1009, "CLBlastInsufficientMemoryC"},
        {-2050, "CLBlastInsufficientMemoryTemp"},
        {-2046, "CLBlastInvalidLocalMemUsage"},
        {-2044, "CLBlastNoDoublePrecision"},
        {-2041, "CLBlastDatabaseError"},
        {-2040, "CLBlastUnknownError"},
        {-2039, "CLBlastUnexpectedError"},
    };
    for (const auto& [code, name] : names)
        if (code == status) return std::to_string(status) + " (" + name + ")";
    return std::to_string(status);
}

} // namespace loom::blas
