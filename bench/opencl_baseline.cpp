// Handwritten OpenCL baselines: device selection mirrored from Loom, a program cache, and
// work-group tuning.
#include "opencl_baseline.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <stdexcept>

#include "backend/kernel_clock.hpp"
#include "backend/opencl/profiling_events.hpp"

namespace bench::ocl {
namespace {

const char* build_options = "-cl-std=CL1.2"; // the options Loom builds with

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

environment make_environment() {
    std::vector<cl::Platform> platforms;
    cl::Platform::get(&platforms);
    std::vector<std::pair<cl::Platform, cl::Device>> all;
    for (cl::Platform& p : platforms) {
        std::vector<cl::Device> devices;
        p.getDevices(CL_DEVICE_TYPE_ALL, &devices);
        for (cl::Device& d : devices) all.emplace_back(p, d);
    }
    if (all.empty()) throw std::runtime_error("bench: no OpenCL device found");
    std::size_t chosen = 0;
    const char* filter = std::getenv("LOOM_DEVICE");
    if (filter && *filter) {
        const std::string f = filter;
        const bool numeric = std::all_of(f.begin(), f.end(), [](unsigned char c) { return std::isdigit(c); });
        chosen = all.size();
        for (std::size_t i = 0; i < all.size() && chosen == all.size(); ++i)
            if ((numeric && std::stoul(f) == i) ||
                (!numeric && lower(all[i].second.getInfo<CL_DEVICE_NAME>()).find(lower(f)) != std::string::npos))
                chosen = i;
        if (chosen == all.size()) throw std::runtime_error("bench: LOOM_DEVICE=" + f + " matches no OpenCL device");
    } else {
        for (std::size_t i = all.size(); i-- > 0;)
            if (all[i].second.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) chosen = i;
    }
    environment e;
    e.platform = all[chosen].first;
    e.device = all[chosen].second;
    e.context = cl::Context(e.device);
    e.queue = cl::CommandQueue(e.context, e.device,
                               device_timing() ? cl::QueueProperties::Profiling : cl::QueueProperties::None);
    e.name = e.device.getInfo<CL_DEVICE_NAME>();
    e.driver = e.device.getInfo<CL_DRIVER_VERSION>() + " / " + e.device.getInfo<CL_DEVICE_VERSION>();
    e.platform_name = e.platform.getInfo<CL_PLATFORM_NAME>() + " " + e.platform.getInfo<CL_PLATFORM_VERSION>();
    e.compute_units = e.device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
    e.max_work_group = e.device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    return e;
}

void check(cl_int status, const char* what) {
    if (status != CL_SUCCESS)
        throw std::runtime_error(std::string("bench: OpenCL error ") + std::to_string(status) + " " + what);
}

// The baselines' timed commands (device timing on), read by the rule Loom's own OpenCL
// backend reads its launches with.
using launch_clock = loom::backend::kernel_clock<cl::Event, loom::backend::opencl_event_reader>;

launch_clock& timed_launches() {
    static loom::backend::opencl_event_reader reader;
    static launch_clock clock(reader);
    return clock;
}

// Enqueues a command through `enqueue(event pointer)`, keeping its event when timing is on.
template <class Enqueue> void timed(Enqueue&& enqueue, const char* what) {
    if (!device_timing()) {
        check(enqueue(nullptr), what);
        return;
    }
    cl::Event done;
    check(enqueue(&done), what);
    timed_launches().launched(std::move(done));
}

} // namespace

environment& env() {
    static environment e = [] {
        environment made = make_environment();
        if (device_timing()) count_device_time([] { return timed_launches().collect().ns; });
        return made;
    }();
    return e;
}

namespace {
cl::Program build(const std::string& source) {
    environment& e = env();
    cl::Program program(e.context, source);
    if (program.build({e.device}, build_options) != CL_SUCCESS)
        throw std::runtime_error("bench: a handwritten kernel failed to build:\n" +
                                 program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(e.device) + "\n" + source);
    return program;
}
} // namespace

cl::Kernel build_uncached(const std::string& source, const std::string& name) {
    return cl::Kernel(build(source), name.c_str());
}

cl::Kernel kernel(const std::string& source, const std::string& name) {
    static std::map<std::string, cl::Program> built;
    auto it = built.find(source);
    if (it == built.end()) it = built.emplace(source, build(source)).first;
    // A new kernel object each time: instances set their arguments once, and two of them may be
    // alive together (bench::prepared keeps two); a shared object would carry the last one's.
    return cl::Kernel(it->second, name.c_str());
}

cl::Buffer upload(const float* host, std::size_t n) {
    cl::Buffer b = allocate(n);
    check(env().queue.enqueueWriteBuffer(b, CL_TRUE, 0, n * sizeof(float), host), "writing a buffer");
    return b;
}

cl::Buffer allocate(std::size_t n) {
    cl_int status = CL_SUCCESS;
    cl::Buffer b(env().context, CL_MEM_READ_WRITE, n * sizeof(float), nullptr, &status);
    check(status, "allocating a buffer");
    return b;
}

void fill_nan(const cl::Buffer& b, std::size_t n) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    check(env().queue.enqueueFillBuffer(b, nan, 0, n * sizeof(float)), "filling a buffer");
    check(env().queue.finish(), "finishing");
}

std::vector<float> download(const cl::Buffer& b, std::size_t n) {
    std::vector<float> host(n);
    check(env().queue.enqueueReadBuffer(b, CL_TRUE, 0, n * sizeof(float), host.data()), "reading a buffer");
    return host;
}

void enqueue(const cl::Kernel& k, std::size_t n, std::size_t group) {
    const cl::NDRange global(group ? round_up(n, group) : n);
    launch(k, global, group ? cl::NDRange(group) : cl::NullRange);
}

void launch(const cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local) {
    timed(
        [&](cl::Event* done) {
            return env().queue.enqueueNDRangeKernel(k, cl::NullRange, global, local, nullptr, done);
        },
        "launching a kernel");
}

void copy_buffer(const cl::Buffer& from, const cl::Buffer& to, std::size_t n) {
    timed(
        [&](cl::Event* done) {
            return env().queue.enqueueCopyBuffer(from, to, 0, 0, n * sizeof(float), nullptr, done);
        },
        "copying a buffer");
}

std::vector<std::size_t> candidate_groups(const cl::Kernel& k) {
    const std::size_t limit = k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(env().device);
    std::vector<std::size_t> groups{0};
    for (std::size_t g : {16, 64, 128, 256, 1024, 4096})
        if (g <= limit) groups.push_back(g);
    return groups;
}

std::string group_name(std::size_t group) { return group ? std::to_string(group) : std::string("NULL"); }

tuning tune(const std::string& what, const std::vector<std::size_t>& groups,
            const std::function<void(std::size_t)>& run, int reps) {
    std::vector<std::string> names;
    for (std::size_t g : groups) names.push_back(group_name(g));
    tuning t = tune_configs(
        what, names, [&](std::size_t k) { run(groups[k]); }, reps, "wg");
    t.best = groups[t.best];
    return t;
}

std::string launch_name(const shaped_launch& l) {
    return l.form == shape::chunked ? "chunk:" + std::to_string(l.items) : "elem:" + group_name(l.group);
}

std::string for_widths(const std::string& forms, std::initializer_list<const char*> widths) {
    std::string out;
    for (const char* width : widths) {
        std::string v = forms;
        for (std::size_t at = v.find("$W"); at != std::string::npos; at = v.find("$W", at)) v.replace(at, 2, width);
        out += v;
    }
    return out;
}

std::string shaped_source(const std::string& source, shape s) {
    if (s == shape::per_element)
        return "#define LOOM_EACH_ELEMENT(i) const uint i = get_global_id(0); if (i < n)\n" + source;
    // Chunks a multiple of 16 elements long, so that every chunk starts on a 64-byte line.
    return "#define LOOM_EACH_ELEMENT(i) \\\n"
           "    const uint chunk_ = ((n + get_global_size(0) - 1) / get_global_size(0) + 15) & ~15u; \\\n"
           "    const uint begin_ = min((uint)get_global_id(0) * chunk_, n), end_ = min(begin_ + chunk_, n); \\\n"
           "    for (uint i = begin_; i < end_; ++i)\n" +
           source;
}

void enqueue(const cl::Kernel& k, std::size_t n, const shaped_launch& l) {
    if (l.form == shape::per_element) return enqueue(k, n, l.group);
    launch(k, cl::NDRange(l.items), cl::NDRange(1));
}

shaped_kernel tune_shapes(const std::string& what, const std::string& source, const std::string& name, std::size_t n,
                          const std::function<void(cl::Kernel&)>& bind, int reps) {
    cl::Kernel per_element = kernel(shaped_source(source, shape::per_element), name);
    cl::Kernel chunked = kernel(shaped_source(source, shape::chunked), name);
    bind(per_element);
    bind(chunked);
    std::vector<shaped_launch> launches;
    for (std::size_t g : candidate_groups(per_element)) launches.push_back({shape::per_element, g, 0});
    for (std::size_t per_unit : {1, 2, 4, 8, 16, 32})
        launches.push_back({shape::chunked, 1, std::size_t(env().compute_units) * per_unit});
    std::vector<std::string> names;
    for (const shaped_launch& l : launches) names.push_back(launch_name(l));
    shaped_kernel out;
    out.tuned = tune_configs(
        what, names,
        [&](std::size_t c) {
            enqueue(launches[c].form == shape::chunked ? chunked : per_element, n, launches[c]);
            check(env().queue.finish(), "finishing");
        },
        reps, "shape");
    out.launch = launches[out.tuned.best];
    out.kernel = out.launch.form == shape::chunked ? chunked : per_element;
    return out;
}

} // namespace bench::ocl
