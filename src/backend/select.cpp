// Backend selection: LOOM_BACKEND=opencl|cuda|auto. auto prefers a CUDA device when the
// CUDA backend is built and a driver with a device is present, else OpenCL. Opening a
// device is serialised process-wide: PoCL's first-time platform and device setup is not
// thread-safe (contexts made on several threads at once crashed inside clGetDeviceInfo),
// and serialising it costs nothing after the first context.
#include <mutex>
#include <string>

#include "backend/opencl/opencl_device.hpp"
#ifdef LOOM_HAVE_CUDA
#include "backend/cuda/cuda_device.hpp"
#endif

namespace loom::backend {

namespace {

std::unique_ptr<device> open_device_alone(const std::string& backend, const std::string& device_filter,
                                          bool profiling) {
    if (backend == "opencl") return open_opencl_device(device_filter, profiling);
    if (backend == "cuda") {
#ifdef LOOM_HAVE_CUDA
        return open_cuda_device(device_filter, profiling);
#else
        throw error("loom: LOOM_BACKEND=cuda, but this Loom was built without CUDA support; rebuild with the CUDA "
                    "toolkit installed (LOOM_WITH_CUDA=ON), or use LOOM_BACKEND=opencl");
#endif
    }
    if (!backend.empty() && backend != "auto")
        throw error("loom: LOOM_BACKEND=" + backend + " is not a backend; use opencl, cuda or auto");
#ifdef LOOM_HAVE_CUDA
    if (cuda_device_present()) {
        if (device_filter.empty()) return open_cuda_device(device_filter, profiling);
        try {
            return open_cuda_device(device_filter, profiling);
        } catch (const error&) {
            // The filter names no CUDA device; it may name an OpenCL one.
        }
    }
#endif
    return open_opencl_device(device_filter, profiling);
}

} // namespace

std::unique_ptr<device> open_device(const std::string& backend, const std::string& device_filter, bool profiling) {
    static std::mutex& discovery = *new std::mutex; // never destroyed: contexts may be made at exit
    std::lock_guard<std::mutex> alone(discovery);
    return open_device_alone(backend, device_filter, profiling);
}

} // namespace loom::backend
