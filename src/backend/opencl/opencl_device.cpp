// OpenCL implementation of backend::device: one context, one in-order queue.
#include "backend/opencl/opencl_device.hpp"

#include <CL/opencl.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backend/kernel_clock.hpp"
#include "backend/opencl/opencl_errors.hpp"
#include "backend/opencl/profiling_events.hpp"
#include "support/log.hpp"

namespace loom::backend {
namespace {

struct opencl_memory final : memory {
    cl::Buffer buffer;
};

struct opencl_mark final : queue_mark {
    cl::Event event;
};

struct opencl_kernel final : kernel {
    cl::Program program;
    cl::Kernel entry;

    std::optional<std::size_t> parameter_count() const override {
        cl_uint count = 0;
        if (entry.getInfo(CL_KERNEL_NUM_ARGS, &count) != CL_SUCCESS) return std::nullopt;
        return count;
    }
};

// PoCL serialises a program as "poclbin" followed by its files, the program's bitcode
// among them. Under concurrent builds sharing PoCL's own kernel cache it has been seen to
// return a binary without the bitcode, and loading such a binary aborts inside PoCL
// (an assertion, not an error code). Such a binary is neither stored nor loaded.
bool usable_binary(const std::vector<unsigned char>& binary) {
    static const std::string pocl_magic = "poclbin", pocl_bitcode = "program.bc";
    if (binary.size() < pocl_magic.size() || !std::equal(pocl_magic.begin(), pocl_magic.end(), binary.begin()))
        return !binary.empty();
    return std::search(binary.begin(), binary.end(), pocl_bitcode.begin(), pocl_bitcode.end()) != binary.end();
}

// The ledger names a device by its cl_device_id: the driver hands every context of the process
// the same handle for one device.
std::string ledger_name(const cl::Device& dev) {
    return "opencl " + std::to_string(reinterpret_cast<std::uintptr_t>(dev()));
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

// What Loom knows of a device, read from the driver: an open device and a device listing
// report the same.
device_info describe(const cl::Platform& platform, const cl::Device& dev) {
    device_info info;
    info.backend = "opencl";
    info.name = dev.getInfo<CL_DEVICE_NAME>();
    info.vendor = dev.getInfo<CL_DEVICE_VENDOR>();
    info.driver = dev.getInfo<CL_DRIVER_VERSION>() + " / " + dev.getInfo<CL_DEVICE_VERSION>();
    info.platform = platform.getInfo<CL_PLATFORM_NAME>() + " " + platform.getInfo<CL_PLATFORM_VERSION>();
    info.fp64 = dev.getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() != 0;
    info.gpu = (dev.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) != 0;
    info.compute_units = dev.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
    info.max_work_group = dev.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    info.global_memory = dev.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
    info.max_allocation = dev.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
    info.max_parameter_bytes = dev.getInfo<CL_DEVICE_MAX_PARAMETER_SIZE>();
    return info;
}

// The build options of every program. Loom's results equal the host's (docs/type-promotion.md),
// and OpenCL lets a float divide or sqrt be 2.5 and 3 ulp off unless asked otherwise: NVIDIA's
// driver was (a / b, x / sqrt(s)); PoCL is exact either way. Asked wherever the device offers it.
std::string build_options(const cl::Device& dev) {
    std::string options = "-cl-std=CL1.2";
    if (dev.getInfo<CL_DEVICE_SINGLE_FP_CONFIG>() & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
        options += " -cl-fp32-correctly-rounded-divide-sqrt";
    return options;
}

class opencl_device final : public device {
public:
    opencl_device(const cl::Platform& platform, const cl::Device& dev, bool profiling)
        : device_(dev), context_(dev), ledger_(ledger_of(ledger_name(dev))),
          queue_(context_, dev, profiling ? cl::QueueProperties::Profiling : cl::QueueProperties::None),
          info_(describe(platform, dev)), options_(build_options(dev)), max_alloc_(info_.max_allocation) {
        if (profiling) clock_ = std::make_unique<kernel_clock<cl::Event, opencl_event_reader>>(reader_);
    }

    // Over a context and an in-order queue made elsewhere (interop, sub-devices): the handles hold
    // references. `physical` is the device whose memory the ledger counts (a sub-device's parent).
    opencl_device(const cl::Platform& platform, const cl::Device& dev, cl::Context context, cl::CommandQueue queue,
                  bool profiling, const cl::Device& physical)
        : device_(dev), context_(std::move(context)), ledger_(ledger_of(ledger_name(physical))),
          queue_(std::move(queue)), info_(describe(platform, dev)), options_(build_options(dev)),
          max_alloc_(info_.max_allocation) {
        if (profiling) clock_ = std::make_unique<kernel_clock<cl::Event, opencl_event_reader>>(reader_);
    }

    const device_info& info() const override { return info_; }
    const codegen::dialect& dialect() const override { return codegen::opencl_dialect(); }
    std::string compile_options() const override { return options_; }

    void write(memory& dst, std::size_t offset, const void* src, std::size_t bytes) override {
        if (bytes == 0) return;
        check(queue_.enqueueWriteBuffer(as(dst), CL_TRUE, offset, bytes, src), "copying to the device");
    }
    void read(const memory& src, std::size_t offset, void* dst, std::size_t bytes) override {
        if (bytes == 0) return;
        check(queue_.enqueueReadBuffer(as(src), CL_TRUE, offset, bytes, dst), "copying to the host");
    }
    void copy(const memory& src, memory& dst, std::size_t bytes) override {
        if (bytes == 0) return;
        check(queue_.enqueueCopyBuffer(as(src), as(dst), 0, 0, bytes), "copying on the device");
    }

    bool copies_from(const device& other) const override {
        const auto* cl = dynamic_cast<const opencl_device*>(&other);
        return cl && cl->context_() == context_();
    }
    void copy_between(const memory& src, std::size_t src_offset, memory& dst, std::size_t dst_offset,
                      std::size_t bytes) override {
        if (bytes == 0) return;
        check(queue_.enqueueCopyBuffer(as(src), as(dst), src_offset, dst_offset, bytes), "copying between devices");
    }
    std::unique_ptr<queue_mark> mark() override {
        auto m = std::make_unique<opencl_mark>();
        check(queue_.enqueueMarkerWithWaitList(nullptr, &m->event), "marking a queue's work");
        return m;
    }
    void wait_for(const queue_mark& m) override {
        const std::vector<cl::Event> events{static_cast<const opencl_mark&>(m).event};
        check(queue_.enqueueBarrierWithWaitList(&events), "ordering a queue after another's work");
    }

    // OpenCL allows building distinct programs of one context from several threads.
    bool concurrent_builds() const override { return true; }

    build_result build(const std::string& source, const std::string& entry) override {
        build_result r;
        auto k = std::make_unique<opencl_kernel>();
        k->program = cl::Program(context_, source);
        const cl_int status = k->program.build({device_}, compile_options().c_str());
        r.log = k->program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device_);
        if (status != CL_SUCCESS)
            throw build_failure("loom: the OpenCL compiler of " + info_.name + " rejected a generated kernel (" +
                                    error_name(status) + ")",
                                r.log);
        cl_int made = CL_SUCCESS;
        k->entry = cl::Kernel(k->program, entry.c_str(), &made);
        if (made != CL_SUCCESS)
            throw error("loom: the program built for " + info_.name + " has no kernel named \"" + entry + "\" (" +
                        error_name(made) + "); name the kernel function its source defines");
        auto binaries = k->program.getInfo<CL_PROGRAM_BINARIES>();
        if (!binaries.empty() && usable_binary(binaries.front())) r.binary = std::move(binaries.front());
        r.binary_kind = "opencl-binary";
        r.compiled = std::move(k);
        return r;
    }

    std::unique_ptr<kernel> load(const std::vector<unsigned char>& binary, const std::string& kind,
                                 const std::string& entry) override {
        if (kind != "opencl-binary" || !usable_binary(binary)) return nullptr;
        auto k = std::make_unique<opencl_kernel>();
        cl_int status = CL_SUCCESS;
        std::vector<cl_int> binary_status;
        k->program = cl::Program(context_, {device_}, cl::Program::Binaries{binary}, &binary_status, &status);
        if (status != CL_SUCCESS) return nullptr;
        if (k->program.build({device_}, compile_options().c_str()) != CL_SUCCESS) return nullptr;
        k->entry = cl::Kernel(k->program, entry.c_str(), &status);
        if (status != CL_SUCCESS) return nullptr;
        return k;
    }

    void launch(kernel& k, const kernel_arg* args, std::size_t count, const geometry& g) override {
        cl::Kernel& entry = static_cast<opencl_kernel&>(k).entry;
        for (cl_uint a = 0; a < count; ++a) {
            const cl_int status =
                args[a].buffer ? entry.setArg(a, as(*args[a].buffer)) : entry.setArg(a, args[a].size, args[a].value);
            check(status, "setting a kernel argument");
        }
        cl::Event* done = clock_ ? &event_ : nullptr; // no event at all unless profiling
        if (g.rows) {
            check(queue_.enqueueNDRangeKernel(entry, cl::NullRange, cl::NDRange(g.global_items, g.rows),
                                              cl::NDRange(g.group_size, g.group_rows), nullptr, done),
                  "launching a kernel");
        } else {
            const cl::NDRange local = g.group_size ? cl::NDRange(g.group_size) : cl::NullRange;
            check(queue_.enqueueNDRangeKernel(entry, cl::NullRange, cl::NDRange(g.global_items), local, nullptr, done),
                  "launching a kernel");
        }
        if (clock_) clock_->launched(std::move(event_));
    }

    void finish() override { check(queue_.finish(), "waiting for the device"); }

    kernel_timing timing() override { return clock_ ? clock_->collect() : kernel_timing{}; }

    native_handles native() const override {
        return {backend_kind::opencl, handle_bits(context_()), handle_bits(queue_()), handle_bits(device_())};
    }
    std::uint64_t native_memory(const memory& m) const override { return handle_bits(as(m)()); }

    // The caller's cl_mem, retained: OpenCL frees it once the caller has released it and Loom's
    // reference (the last buffer naming it) is gone, so work still queued on it stays valid.
    std::unique_ptr<memory> wrap_memory(std::uint64_t handle, std::size_t bytes) override {
        const auto mem = reinterpret_cast<cl_mem>(static_cast<std::uintptr_t>(handle));
        const std::string which = "loom::vector::wrap: the cl_mem given";
        if (!mem) throw error(which + " is null");
        cl_mem_object_type type = 0;
        const cl_int status = clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof type, &type, nullptr);
        if (status != CL_SUCCESS)
            throw error(which + " is not a valid OpenCL memory object (clGetMemObjectInfo: " + error_name(status) +
                        ")");
        if (type != CL_MEM_OBJECT_BUFFER) throw error(which + " is an image, not a buffer; wrap buffers only");
        cl_context owner = nullptr;
        std::size_t size = 0;
        check(clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof(cl_context), &owner, nullptr),
              "reading a cl_mem's context");
        check(clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, nullptr), "reading a cl_mem's size");
        if (owner != context_())
            throw error(which + " belongs to another cl_context than this loom::context's (" + info_.name +
                        "); wrap memory of the context's own cl_context (context::native_context()), or make the "
                        "loom::context over your cl_context with loom::context::from_opencl");
        if (size < bytes)
            throw error(which + " holds " + std::to_string(size) + " bytes, fewer than the " + std::to_string(bytes) +
                        " the vector's elements need");
        auto m = std::make_unique<opencl_memory>();
        m->buffer = cl::Buffer(mem, true);
        return m;
    }

private:
    std::unique_ptr<memory> allocate_memory(std::size_t bytes) override {
        if (bytes > max_alloc_)
            throw out_of_memory("loom: out of device memory: a vector of " + std::to_string(bytes) +
                                " bytes exceeds the largest allocation " + info_.name + " allows (" +
                                std::to_string(max_alloc_) + " bytes); use smaller vectors");
        auto m = std::make_unique<opencl_memory>();
        cl_int status = CL_SUCCESS;
        m->buffer = cl::Buffer(context_, CL_MEM_READ_WRITE, std::max<std::size_t>(bytes, 1), nullptr, &status);
        check(status, "allocating " + std::to_string(bytes) + " bytes");
        return m;
    }
    memory_ledger& ledger() const override { return ledger_; }

    template <class H> static std::uint64_t handle_bits(H handle) {
        return std::uint64_t(reinterpret_cast<std::uintptr_t>(handle));
    }
    static const cl::Buffer& as(const memory& m) { return static_cast<const opencl_memory&>(m).buffer; }
    static cl::Buffer& as(memory& m) { return static_cast<opencl_memory&>(m).buffer; }

    cl::Device device_;
    cl::Context context_;
    memory_ledger& ledger_;
    cl::CommandQueue queue_;
    device_info info_;
    std::string options_; // build_options(device_)
    std::size_t max_alloc_ = 0;
    opencl_event_reader reader_;
    std::unique_ptr<kernel_clock<cl::Event, opencl_event_reader>> clock_; // profiling on
    cl::Event event_;                                                     // the launch being enqueued
};

struct candidate {
    cl::Platform platform;
    cl::Device device;
};

// Every device of every platform, in the order a LOOM_DEVICE index counts them; `found` gets
// the platforms' names, for messages.
std::vector<candidate> find_devices(std::string& found) {
    std::vector<cl::Platform> platforms;
    cl::Platform::get(&platforms); // fails with CL_PLATFORM_NOT_FOUND_KHR when there are none
    std::vector<candidate> all;
    for (cl::Platform& p : platforms) {
        found += (found.empty() ? "" : ", ") + p.getInfo<CL_PLATFORM_NAME>();
        std::vector<cl::Device> devices;
        p.getDevices(CL_DEVICE_TYPE_ALL, &devices);
        for (cl::Device& d : devices) all.push_back({p, d});
    }
    return all;
}

// The index in `all` of the device `filter` names: an index or a name substring; empty, the
// first GPU, else the first device. Throws loom::no_device saying what was found.
std::size_t choose(const std::vector<candidate>& all, const std::string& filter, const std::string& found) {
    if (all.empty())
        throw no_device("loom: no OpenCL device found (platforms found: " + (found.empty() ? "none" : found) +
                        "). Install an OpenCL driver; on Debian or Ubuntu `sudo apt-get install pocl-opencl-icd` "
                        "provides a CPU device that works on every machine.");
    if (!filter.empty()) {
        // A number is a device index (one too large for any index matches nothing);
        // anything else is a name substring.
        std::size_t index = 0;
        const auto [end, parse_error] = std::from_chars(filter.data(), filter.data() + filter.size(), index);
        const bool numeric = parse_error != std::errc::invalid_argument && end == filter.data() + filter.size();
        const bool index_ok = numeric && parse_error == std::errc();
        for (std::size_t i = 0; i < all.size(); ++i) {
            const std::string name = all[i].device.getInfo<CL_DEVICE_NAME>();
            if ((index_ok && index == i) || (!numeric && lower(name).find(lower(filter)) != std::string::npos))
                return i;
        }
        std::string names;
        for (std::size_t i = 0; i < all.size(); ++i)
            names += "\n  " + std::to_string(i) + ": " + all[i].device.getInfo<CL_DEVICE_NAME>();
        throw no_device("loom: LOOM_DEVICE=" + filter + " matches no OpenCL device. Devices found:" + names);
    }
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) return i;
    return 0;
}

} // namespace

std::unique_ptr<device> open_opencl_device(const std::string& filter, bool profiling) {
    std::string found;
    const std::vector<candidate> all = find_devices(found);
    const candidate& c = all[choose(all, filter, found)];
    return std::make_unique<opencl_device>(c.platform, c.device, profiling);
}

std::vector<std::unique_ptr<device>> open_opencl_sub_devices(const std::string& filter, unsigned parts,
                                                             bool profiling) {
    std::string found;
    const std::vector<candidate> all = find_devices(found);
    const candidate& c = all[choose(all, filter, found)];
    const std::string name = c.device.getInfo<CL_DEVICE_NAME>();
    const cl_uint units = c.device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
    const std::vector<cl_device_partition_property> kinds = c.device.getInfo<CL_DEVICE_PARTITION_PROPERTIES>();
    const bool equally =
        std::find(kinds.begin(), kinds.end(), cl_device_partition_property(CL_DEVICE_PARTITION_EQUALLY)) != kinds.end();
    const std::string asked = "LOOM_DEVICE=" + filter + "/" + std::to_string(parts);
    if (parts < 2) throw error("loom: " + asked + ": a device splits into 2 or more parts");
    if (!equally)
        throw error("loom: " + asked + ": the OpenCL device " + name +
                    " cannot be split into equal sub-devices (no CL_DEVICE_PARTITION_EQUALLY); list whole devices "
                    "instead (LOOM_DEVICE=0,1)");
    if (units < parts || units % parts != 0)
        throw error("loom: " + asked + ": the OpenCL device " + name + " has " + std::to_string(units) +
                    " compute units, which do not split into " + std::to_string(parts) +
                    " equal parts; ask for a number of parts that divides them");
    const cl_device_partition_property properties[] = {CL_DEVICE_PARTITION_EQUALLY,
                                                       cl_device_partition_property(units / parts), 0};
    std::vector<cl::Device> subs;
    cl::Device whole = c.device; // createSubDevices is not const
    check(whole.createSubDevices(properties, &subs), "splitting " + name + " into sub-devices");
    if (subs.size() < parts)
        throw error("loom: " + asked + ": the OpenCL driver made " + std::to_string(subs.size()) + " sub-devices of " +
                    name + " where " + std::to_string(parts) + " were asked for");
    subs.resize(parts);
    // One cl_context over every part: buffers of one part may be copied into another's directly.
    const cl::Context context(subs);
    std::vector<std::unique_ptr<device>> devices;
    for (const cl::Device& d : subs)
        devices.push_back(std::make_unique<opencl_device>(
            c.platform, d, context,
            cl::CommandQueue(context, d, profiling ? cl::QueueProperties::Profiling : cl::QueueProperties::None),
            profiling, c.device));
    return devices;
}

std::unique_ptr<device> open_opencl_device_over(void* context_handle, void* queue_handle, bool profiling,
                                                bool profiling_asked) {
    const auto context = static_cast<cl_context>(context_handle);
    const auto queue = static_cast<cl_command_queue>(queue_handle);
    if (!context || !queue)
        throw error("loom::context::from_opencl: the cl_context and the cl_command_queue must not be null");
    cl_uint references = 0;
    cl_int status = clGetContextInfo(context, CL_CONTEXT_REFERENCE_COUNT, sizeof references, &references, nullptr);
    if (status != CL_SUCCESS)
        throw error(std::string("loom::context::from_opencl: the cl_context given is not a valid OpenCL context (") +
                    error_name(status) + ")");
    cl_context queue_context = nullptr;
    status = clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof(cl_context), &queue_context, nullptr);
    if (status != CL_SUCCESS)
        throw error(std::string("loom::context::from_opencl: the cl_command_queue given is not a valid queue (") +
                    error_name(status) + ")");
    if (queue_context != context)
        throw error("loom::context::from_opencl: the cl_command_queue given belongs to another cl_context than the "
                    "one given; pass a queue made on that context");
    cl_command_queue_properties properties = 0;
    cl_device_id dev = nullptr;
    check(clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof properties, &properties, nullptr),
          "reading a queue's properties");
    check(clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof(cl_device_id), &dev, nullptr),
          "reading a queue's device");
    // Loom's statements, transfers and the caller's own work keep their order only on an in-order queue.
    if (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        throw error("loom::context::from_opencl: the cl_command_queue given runs out of order "
                    "(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE); Loom needs an in-order queue: make one without that "
                    "property on the same context");
    if (profiling && !(properties & CL_QUEUE_PROFILING_ENABLE)) {
        const std::string problem =
            "the cl_command_queue given was made without CL_QUEUE_PROFILING_ENABLE, so its launches cannot be timed";
        if (profiling_asked)
            throw error("loom::context::from_opencl: context_options::profiling is 1, but " + problem +
                        "; make the queue with that property, or leave profiling off");
        logging::warn("loom::context::from_opencl: LOOM_PROFILE is on, but " + problem + "; this context runs untimed");
        profiling = false;
    }
    cl_platform_id platform = nullptr;
    check(clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof(cl_platform_id), &platform, nullptr),
          "reading a device's platform");
    const cl::Device device(dev, true);
    return std::make_unique<opencl_device>(cl::Platform(platform), device, cl::Context(context, true),
                                           cl::CommandQueue(queue, true), profiling, device);
}

device_listing list_opencl_devices(const std::string& filter) {
    std::string found;
    const std::vector<candidate> all = find_devices(found);
    device_listing listing;
    for (const candidate& c : all) listing.devices.push_back(describe(c.platform, c.device));
    try {
        if (!all.empty()) listing.chosen = choose(all, filter, found);
    } catch (const no_device&) {
        // open_opencl_device(filter) would throw: no device is chosen.
    }
    return listing;
}

} // namespace loom::backend
