// Opening libcuda.so.1 and resolving the driver functions Loom calls, by the symbol
// names cuda.h maps them to.
#include "backend/cuda/driver_api.hpp"

#include <dlfcn.h>

#include "loom/error.hpp"

namespace loom::backend::cuda {
namespace {

#define LOOM_CUDA_SYMBOL_NAME(f) #f
// Expands f first (cuMemAlloc -> cuMemAlloc_v2), then spells it.
#define LOOM_CUDA_SYMBOL(f) LOOM_CUDA_SYMBOL_NAME(f)

// nullptr, with the reason as a phrase in `problem`, when the library or a symbol is missing.
std::unique_ptr<driver_api> open_driver(const std::string& library, std::string& problem) {
    dlerror();
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        problem = "the NVIDIA driver library " + library + " is not loadable (" + (why ? why : "no reason given") +
                  "): no NVIDIA driver is installed";
        return nullptr;
    }
    auto api = std::make_unique<driver_api>();
    api->library = library;
    const char* missing = nullptr;
    auto resolve = [&](const char* name) {
        void* f = dlsym(handle, name);
        if (!f && !missing) missing = name;
        return f;
    };
#define LOOM_CUDA_RESOLVE(f) api->f = reinterpret_cast<decltype(api->f)>(resolve(LOOM_CUDA_SYMBOL(f)));
    LOOM_CUDA_DRIVER_FUNCTIONS(LOOM_CUDA_RESOLVE)
#undef LOOM_CUDA_RESOLVE
    for (const char* name : {"cuEventElapsedTime_v2", "cuEventElapsedTime"})
        if (!api->event_elapsed_ms)
            api->event_elapsed_ms = reinterpret_cast<decltype(api->event_elapsed_ms)>(dlsym(handle, name));
    if (missing) {
        problem = "the NVIDIA driver library " + library + " has no function " + missing +
                  ": the driver is older than this Loom needs";
        return nullptr; // the handle stays open: closing a driver library is never worth the risk
    }
    return api;
}

} // namespace

std::unique_ptr<driver_api> load_driver(const std::string& library) {
    std::string problem;
    auto api = open_driver(library, problem);
    if (!api) throw error("loom: " + problem + ". Install or update the NVIDIA driver, or use LOOM_BACKEND=opencl");
    return api;
}

const driver_api* try_driver(std::string* why) {
    // Opened once and never freed or closed: objects destroyed at exit may still call the
    // driver, and the driver's own threads and atexit handlers outlive every Loom object.
    static std::string* const problem = new std::string;
    static const driver_api* const api = open_driver(driver_library, *problem).release();
    if (!api && why) *why = *problem;
    return api;
}

std::string result_text(const driver_api& api, CUresult result) {
    const char* name = nullptr;
    const char* text = nullptr;
    if (api.cuGetErrorName(result, &name) != CUDA_SUCCESS || !name) return "CUresult " + std::to_string(int(result));
    std::string s = name;
    if (api.cuGetErrorString(result, &text) == CUDA_SUCCESS && text) s += std::string(" (") + text + ")";
    return s;
}

} // namespace loom::backend::cuda
