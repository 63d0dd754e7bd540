// Backend selection: LOOM_BACKEND=opencl|cuda|auto. auto prefers a CUDA device when the
// CUDA backend is built and a driver with a device is present, else OpenCL. Opening and
// listing devices is serialised process-wide: PoCL's first-time platform and device setup
// is not thread-safe (contexts made on several threads at once crashed inside
// clGetDeviceInfo), and serialising it costs nothing after the first context.
#include <mutex>
#include <string>
#include <vector>

#include "backend/opencl/opencl_device.hpp"
#include "support/log.hpp"
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
        throw no_device("loom: LOOM_BACKEND=cuda, but this Loom was built without CUDA support; rebuild with the "
                        "CUDA toolkit installed (LOOM_WITH_CUDA=ON), or use LOOM_BACKEND=opencl");
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

// The rules of open_device_alone, over listings: a backend named opens its own choice; auto
// opens CUDA's when there is a CUDA device the filter names, else OpenCL's.
std::vector<listed_device> list_devices_alone(const std::string& backend, const std::string& device_filter) {
    device_listing cuda;
#ifdef LOOM_HAVE_CUDA
    try {
        cuda = list_cuda_devices(device_filter);
    } catch (const error& e) {
        logging::warn(std::string("the CUDA devices could not be listed: ") + e.what());
    }
#endif
    const device_listing opencl = list_opencl_devices(device_filter);
    const bool any = backend.empty() || backend == "auto";
    const bool cuda_opens = backend == "cuda" || (any && cuda.chosen);
    const bool opencl_opens = backend == "opencl" || (any && !cuda.chosen);
    std::vector<listed_device> all;
    const auto add = [&](const device_listing& listing, bool opens) {
        for (std::size_t i = 0; i < listing.devices.size(); ++i)
            all.push_back({listing.devices[i], i, opens && listing.chosen == i});
    };
    add(cuda, cuda_opens);
    add(opencl, opencl_opens);
    return all;
}

std::mutex& discovery_lock() {
    static std::mutex& discovery = *new std::mutex; // never destroyed: contexts may be made at exit
    return discovery;
}

} // namespace

std::unique_ptr<device> open_device(const std::string& backend, const std::string& device_filter, bool profiling) {
    std::lock_guard<std::mutex> alone(discovery_lock());
    return open_device_alone(backend, device_filter, profiling);
}

std::vector<std::unique_ptr<device>> open_sub_devices(const std::string& backend, const std::string& device_filter,
                                                      unsigned parts, bool profiling) {
    std::lock_guard<std::mutex> alone(discovery_lock());
    if (backend == "cuda")
        throw error("loom: LOOM_DEVICE=" + device_filter + "/" + std::to_string(parts) +
                    ": only OpenCL devices split into sub-devices; list CUDA devices whole (LOOM_DEVICE=0,1)");
    if (!backend.empty() && backend != "auto" && backend != "opencl")
        throw error("loom: LOOM_BACKEND=" + backend + " is not a backend; use opencl, cuda or auto");
    return open_opencl_sub_devices(device_filter, parts, profiling);
}

std::vector<listed_device> list_devices(const std::string& backend, const std::string& device_filter) {
    std::lock_guard<std::mutex> alone(discovery_lock());
    return list_devices_alone(backend, device_filter);
}

} // namespace loom::backend
