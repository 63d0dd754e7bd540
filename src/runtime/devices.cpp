// loom::devices(): the backends' device listings, in the public form, with the device a
// default context would open marked by the rules it opens one by (backend/select.cpp).
#include "loom/devices.hpp"

#include <algorithm>

#include "backend/device.hpp"
#include "support/environment.hpp"

namespace loom {

std::vector<device_description> devices() {
    std::vector<device_description> all;
    const std::string named_backend = environment::text("LOOM_BACKEND").value_or("");
    const std::string named_device = environment::text("LOOM_DEVICE").value_or("");
    for (const backend::listed_device& d : backend::list_devices(named_backend, named_device)) {
        device_description out;
        out.backend = d.info.backend;
        out.index = d.index;
        out.name = d.info.name;
        out.vendor = d.info.vendor;
        out.platform = d.info.platform;
        out.driver_version = d.info.driver;
        out.global_memory_bytes = d.info.global_memory;
        // A backend with no limit of its own (CUDA) allows what the device holds.
        out.max_allocation_bytes =
            d.info.global_memory ? std::min(d.info.max_allocation, d.info.global_memory) : d.info.max_allocation;
        out.compute_units = d.info.compute_units;
        out.max_work_group_size = d.info.max_work_group;
        out.fp64 = d.info.fp64;
        out.is_gpu = d.info.gpu;
        out.is_default = d.chosen;
        all.push_back(std::move(out));
    }
    return all;
}

} // namespace loom
