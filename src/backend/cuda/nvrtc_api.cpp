// Opening NVRTC and resolving its functions (nvrtc_api.hpp).
#include "backend/cuda/nvrtc_api.hpp"

#include <dlfcn.h>

#include <vector>

#include "loom/error.hpp"

#ifndef LOOM_NVRTC_SONAME
#define LOOM_NVRTC_SONAME "libnvrtc.so"
#endif
#ifndef LOOM_NVRTC_TOOLKIT_PATH
#define LOOM_NVRTC_TOOLKIT_PATH ""
#endif

namespace loom::backend::cuda {
namespace {

// nullptr, with the reason in `problem`, when no candidate opens or one lacks a function.
const nvrtc_api* open_nvrtc(std::string& problem) {
    std::vector<std::string> candidates = {LOOM_NVRTC_SONAME};
    if (*LOOM_NVRTC_TOOLKIT_PATH) candidates.push_back(LOOM_NVRTC_TOOLKIT_PATH);
    candidates.push_back("libnvrtc.so");
    std::string tried;
    for (const std::string& library : candidates) {
        dlerror();
        void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* why = dlerror();
            tried += (tried.empty() ? "" : "; ") + library + ": " + (why ? why : "not loadable");
            continue;
        }
        auto* api = new nvrtc_api; // never freed: kernels may be compiled until the process ends
        api->library = library;
        const char* missing = nullptr;
#define LOOM_NVRTC_RESOLVE(f)                                                                                          \
    api->f = reinterpret_cast<decltype(api->f)>(dlsym(handle, #f));                                                    \
    if (!api->f && !missing) missing = #f;
        LOOM_NVRTC_FUNCTIONS(LOOM_NVRTC_RESOLVE)
#undef LOOM_NVRTC_RESOLVE
        if (!missing) return api;
        delete api;
        tried += (tried.empty() ? "" : "; ") + library + " has no " + missing;
    }
    problem = "NVRTC could not be opened (" + tried + ")";
    return nullptr;
}

} // namespace

const nvrtc_api& nvrtc() {
    static std::string* const problem = new std::string;
    static const nvrtc_api* const api = open_nvrtc(*problem);
    if (!api)
        throw error("loom: " + *problem +
                    ". The CUDA backend compiles kernels with NVRTC: install the CUDA toolkit's NVRTC "
                    "(cuda-nvrtc) where the NVIDIA driver is, or use LOOM_BACKEND=opencl");
    return *api;
}

} // namespace loom::backend::cuda
