// Opening cuBLAS with dlopen and resolving the functions loom::matmul calls; the names of its
// status codes for error messages.
#include "blas/cublas_loader.hpp"

#include <dlfcn.h>

#include "loom/error.hpp"
#include "support/environment.hpp"

namespace loom::blas {
namespace {

// The table of the library `handle` opened, or nullptr with the first missing function's name.
std::unique_ptr<cublas_api> resolve(void* handle, const std::string& library, std::string& missing) {
    auto api = std::make_unique<cublas_api>();
    api->library = library;
    auto find = [&](const char* name) {
        void* f = dlsym(handle, name);
        if (!f && missing.empty()) missing = name;
        return f;
    };
    api->create = reinterpret_cast<decltype(api->create)>(find("cublasCreate_v2"));
    api->destroy = reinterpret_cast<decltype(api->destroy)>(find("cublasDestroy_v2"));
    api->set_stream = reinterpret_cast<decltype(api->set_stream)>(find("cublasSetStream_v2"));
    api->sgemm = reinterpret_cast<cublas_api::gemm_fn<float>>(find("cublasSgemm_v2"));
    api->dgemm = reinterpret_cast<cublas_api::gemm_fn<double>>(find("cublasDgemm_v2"));
    if (!missing.empty()) return nullptr;
    api->status_name = reinterpret_cast<decltype(api->status_name)>(dlsym(handle, "cublasGetStatusName"));
    return api;
}

} // namespace

std::unique_ptr<cublas_api> load_cublas(const std::vector<std::string>& libraries) {
    std::string tried;
    for (const std::string& library : libraries) {
        dlerror();
        // Left open, here and when a function is missing: cuBLAS keeps device state in statics.
        void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
        std::string missing;
        if (handle) {
            if (auto api = resolve(handle, library, missing)) return api;
        }
        const char* why = handle ? nullptr : dlerror();
        tried += (tried.empty() ? "" : "; ") + library + " (" +
                 (handle ? "it has no function " + missing
                  : why  ? std::string(why)
                         : std::string("no reason given")) +
                 ")";
    }
    throw error("loom::matmul: cuBLAS, the CUDA BLAS library that loom::matmul runs on CUDA devices, could not be "
                "loaded: " +
                tried +
                ". Install NVIDIA's cuBLAS (the package libcublas-13-0 or libcublas-12-<minor> from NVIDIA's CUDA "
                "repository, Debian's libcublas12 from non-free, or pip's nvidia-cublas) and put its directory on "
                "the loader's path (ldconfig or LD_LIBRARY_PATH), or set " +
                cublas_library_variable +
                " to the path of a libcublas.so. Nothing was changed: no statement ran and every matrix keeps its "
                "value");
}

const cublas_api& cublas() {
    struct loaded_cublas {
        std::unique_ptr<cublas_api> api;
        std::string problem;
    };
    // Built once, thread-safely, and never destroyed: cuBLAS's own statics outlive every Loom object.
    static const loaded_cublas& loaded = *[] {
        auto* l = new loaded_cublas;
        const std::optional<std::string> chosen = environment::text(cublas_library_variable);
        try {
            l->api = load_cublas(chosen ? std::vector<std::string>{*chosen} : cublas_libraries());
        } catch (const error& e) {
            l->problem = e.what();
        }
        return l;
    }();
    if (!loaded.api) throw error(loaded.problem);
    return *loaded.api;
}

std::string cublas_status_text(const cublas_api& api, int status) {
    const char* name = api.status_name ? api.status_name(status) : nullptr;
    if (!name || !*name) return "cublasStatus_t " + std::to_string(status);
    return std::string(name) + " (" + std::to_string(status) + ")";
}

} // namespace loom::blas
