// Opening clFFT with dlopen, resolving the functions loom::fft calls and setting the library up
// once; the names of its status codes for error messages.
#include "fft/clfft_loader.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <optional>
#include <utility>

#include "loom/error.hpp"
#include "support/environment.hpp"

namespace loom::fourier {
namespace {

std::atomic<bool> torn_down{false};
const clfft_api* process_clfft = nullptr;

// Registered with std::atexit once clFFT is loaded, so it runs before the destructors of
// clFFT's statics (made when it was opened, earlier) and after those of every object made
// later. Contexts made before the library was opened are destroyed after it: their plans then
// call nothing (clfft_torn_down).
void tear_down_at_exit() {
    torn_down = true;
    if (process_clfft) process_clfft->teardown();
}

std::string missing_library(const std::string& library, const std::string& why) {
    return "loom::fft: clFFT, the OpenCL FFT library that loom::fft runs on OpenCL devices, could not be loaded "
           "from " +
           library + " (" + why +
           "). Install it with the Debian package libclfft2 (apt-get install libclfft2), or set " +
           clfft_library_variable +
           " to the path of a libclFFT.so. Nothing was changed: no statement ran and every vector keeps its value";
}

} // namespace

std::unique_ptr<clfft_api> load_clfft(const std::string& library) {
    dlerror();
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* why = dlerror();
        throw error(missing_library(library, why ? why : "no reason given"));
    }
    auto api = std::make_unique<clfft_api>();
    api->library = library;
    // The handle stays open, here and on failure: clFFT keeps its plans and kernels in statics.
    auto resolve = [&](const char* name) {
        void* f = dlsym(handle, name);
        if (!f) throw error(missing_library(library, std::string("it has no function ") + name));
        return f;
    };
    auto bind = [&](auto& slot, const char* name) {
        slot = reinterpret_cast<std::decay_t<decltype(slot)>>(resolve(name));
    };
    bind(api->get_version, "clfftGetVersion");
    bind(api->setup, "clfftSetup");
    bind(api->create_plan, "clfftCreateDefaultPlan");
    bind(api->destroy_plan, "clfftDestroyPlan");
    bind(api->set_precision, "clfftSetPlanPrecision");
    bind(api->set_scale, "clfftSetPlanScale");
    bind(api->set_layout, "clfftSetLayout");
    bind(api->set_result_location, "clfftSetResultLocation");
    bind(api->set_in_stride, "clfftSetPlanInStride");
    bind(api->set_out_stride, "clfftSetPlanOutStride");
    bind(api->set_distance, "clfftSetPlanDistance");
    bind(api->bake_plan, "clfftBakePlan");
    bind(api->enqueue, "clfftEnqueueTransform");
    bind(api->teardown, "clfftTeardown");
    // clfftSetup takes the caller's version (clfftInitSetupData, an inline function of the
    // header, fills it in); the library's own is the one it accepts whatever header Loom saw.
    clfft_api::setup_data setup;
    int status = api->get_version(&setup.major, &setup.minor, &setup.patch);
    if (status == clfft_success) status = api->setup(&setup);
    if (status != clfft_success)
        throw error("loom::fft: clfftSetup (" + library + ") failed with status " + clfft_status_text(status) +
                    ". Nothing was changed: no statement ran and every vector keeps its value");
    return api;
}

const clfft_api& clfft() {
    struct loaded_clfft {
        std::unique_ptr<clfft_api> api;
        std::string problem;
    };
    // Built once, thread-safely, and never destroyed: clFFT's own statics outlive every Loom
    // object (clfftTeardown is never called; the process's exit frees what it holds).
    static const loaded_clfft& loaded = *[] {
        auto* l = new loaded_clfft;
        const std::optional<std::string> chosen = environment::text(clfft_library_variable);
        try {
            l->api = load_clfft(chosen.value_or(clfft_library));
            process_clfft = l->api.get();
            std::atexit(tear_down_at_exit);
        } catch (const error& e) {
            l->problem = e.what();
        }
        return l;
    }();
    if (!loaded.api) throw error(loaded.problem);
    return *loaded.api;
}

bool clfft_torn_down() { return torn_down; }

std::string clfft_status_text(int status) {
    // clFFT.h's clfftStatus: its own codes, then the OpenCL codes it passes on.
    static const std::pair<int, const char*> names[] = {
        {4096, "CLFFT_BUGCHECK"},
        {4097, "CLFFT_NOTIMPLEMENTED"},
        {4098, "CLFFT_TRANSPOSED_NOTIMPLEMENTED"},
        {4099, "CLFFT_FILE_NOT_FOUND"},
        {4100, "CLFFT_FILE_CREATE_FAILURE"},
        {4101, "CLFFT_VERSION_MISMATCH"},
        {4102, "CLFFT_INVALID_PLAN"},
        {4103, "CLFFT_DEVICE_NO_DOUBLE"},
        {4104, "CLFFT_DEVICE_MISMATCH"},
        {-1, "CL_DEVICE_NOT_FOUND"},
        {-2, "CL_DEVICE_NOT_AVAILABLE"},
        {-3, "CL_COMPILER_NOT_AVAILABLE"},
        {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
        {-5, "CL_OUT_OF_RESOURCES"},
        {-6, "CL_OUT_OF_HOST_MEMORY"},
        {-11, "CL_BUILD_PROGRAM_FAILURE"},
        {-30, "CL_INVALID_VALUE"},
        {-34, "CL_INVALID_CONTEXT"},
        {-36, "CL_INVALID_COMMAND_QUEUE"},
        {-38, "CL_INVALID_MEM_OBJECT"},
        {-44, "CL_INVALID_PROGRAM"},
        {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
        {-48, "CL_INVALID_KERNEL"},
        {-52, "CL_INVALID_KERNEL_ARGS"},
        {-54, "CL_INVALID_WORK_GROUP_SIZE"},
        {-59, "CL_INVALID_OPERATION"},
        {-61, "CL_INVALID_BUFFER_SIZE"},
    };
    for (const auto& [code, name] : names)
        if (code == status) return std::to_string(status) + " (" + name + ")";
    return std::to_string(status);
}

} // namespace loom::fourier
