// Opening cuFFT with dlopen and resolving the functions loom::fft calls; the names of its
// status codes for error messages (cuFFT has no function that names them).
#include "fft/cufft_loader.hpp"

#include <dlfcn.h>

#include <optional>
#include <type_traits>
#include <utility>

#include "loom/error.hpp"
#include "support/environment.hpp"

namespace loom::fourier {
namespace {

// The table of the library `handle` opened, or nullptr with the first missing function's name.
std::unique_ptr<cufft_api> resolve(void* handle, const std::string& library, std::string& missing) {
    auto api = std::make_unique<cufft_api>();
    api->library = library;
    auto bind = [&](auto& slot, const char* name) {
        void* f = dlsym(handle, name);
        if (!f && missing.empty()) missing = name;
        slot = reinterpret_cast<std::decay_t<decltype(slot)>>(f);
    };
    bind(api->plan_many, "cufftPlanMany");
    bind(api->destroy, "cufftDestroy");
    bind(api->set_stream, "cufftSetStream");
    bind(api->exec_c2c, "cufftExecC2C");
    bind(api->exec_z2z, "cufftExecZ2Z");
    bind(api->exec_r2c, "cufftExecR2C");
    bind(api->exec_d2z, "cufftExecD2Z");
    bind(api->exec_c2r, "cufftExecC2R");
    bind(api->exec_z2d, "cufftExecZ2D");
    if (!missing.empty()) return nullptr;
    return api;
}

} // namespace

std::unique_ptr<cufft_api> load_cufft(const std::vector<std::string>& libraries) {
    std::string tried;
    for (const std::string& library : libraries) {
        dlerror();
        // Left open, here and when a function is missing: cuFFT keeps device state in statics.
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
    throw error(
        "loom::fft: cuFFT, the CUDA FFT library that loom::fft runs on CUDA devices, could not be loaded: " + tried +
        ". Install NVIDIA's cuFFT (the package libcufft-13-0 or libcufft-12-<minor> from NVIDIA's CUDA "
        "repository, or pip's nvidia-cufft) and put its directory on the loader's path (ldconfig or "
        "LD_LIBRARY_PATH), or set " +
        cufft_library_variable +
        " to the path of a libcufft.so. Nothing was changed: no statement ran and every vector keeps its "
        "value");
}

const cufft_api& cufft() {
    struct loaded_cufft {
        std::unique_ptr<cufft_api> api;
        std::string problem;
    };
    // Built once, thread-safely, and never destroyed: cuFFT's own statics outlive every Loom object.
    static const loaded_cufft& loaded = *[] {
        auto* l = new loaded_cufft;
        const std::optional<std::string> chosen = environment::text(cufft_library_variable);
        try {
            l->api = load_cufft(chosen ? std::vector<std::string>{*chosen} : cufft_libraries());
        } catch (const error& e) {
            l->problem = e.what();
        }
        return l;
    }();
    if (!loaded.api) throw error(loaded.problem);
    return *loaded.api;
}

std::string cufft_status_text(int status) {
    // cufft.h's cufftResult.
    static const std::pair<int, const char*> names[] = {
        {1, "CUFFT_INVALID_PLAN"},       {2, "CUFFT_ALLOC_FAILED"},        {3, "CUFFT_INVALID_TYPE"},
        {4, "CUFFT_INVALID_VALUE"},      {5, "CUFFT_INTERNAL_ERROR"},      {6, "CUFFT_EXEC_FAILED"},
        {7, "CUFFT_SETUP_FAILED"},       {8, "CUFFT_INVALID_SIZE"},        {9, "CUFFT_UNALIGNED_DATA"},
        {11, "CUFFT_INVALID_DEVICE"},    {13, "CUFFT_NO_WORKSPACE"},       {14, "CUFFT_NOT_IMPLEMENTED"},
        {16, "CUFFT_NOT_SUPPORTED"},     {17, "CUFFT_MISSING_DEPENDENCY"}, {18, "CUFFT_NVRTC_FAILURE"},
        {19, "CUFFT_NVJITLINK_FAILURE"}, {20, "CUFFT_NVSHMEM_FAILURE"},
    };
    for (const auto& [code, name] : names)
        if (code == status) return std::string(name) + " (" + std::to_string(status) + ")";
    return "cufftResult " + std::to_string(status);
}

} // namespace loom::fourier
