// Handwritten OpenCL baselines: the same device Loom picks, a kernel built from source the
// way a competent programmer writes it, and the work-group tuning every baseline goes through
// before it is timed (a weak baseline proves nothing).
#pragma once

#include <CL/opencl.hpp>

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "harness.hpp" // bench::tuning, bench::tune_configs

namespace bench::ocl {

struct environment {
    cl::Platform platform;
    cl::Device device;
    cl::Context context;
    cl::CommandQueue queue;
    std::string name, driver, platform_name;
    unsigned compute_units = 1;
    std::size_t max_work_group = 1;
};

// The device Loom chooses by default (LOOM_DEVICE, else the first GPU, else the first device),
// in a context and in-order queue of its own.
environment& env();

// A new object for the kernel `name` of `source`, whose program is built once per process with
// Loom's options (-cl-std=CL1.2).
cl::Kernel kernel(const std::string& source, const std::string& name);
// Builds a fresh program every call (for first-call latency): build + create kernel.
cl::Kernel build_uncached(const std::string& source, const std::string& name);

cl::Buffer upload(const float* host, std::size_t n);
cl::Buffer allocate(std::size_t n);
void fill_nan(const cl::Buffer& b, std::size_t n);
std::vector<float> download(const cl::Buffer& b, std::size_t n);

inline std::size_t round_up(std::size_t n, std::size_t group) { return (n + group - 1) / group * group; }

// Enqueues k over n items: group 0 lets the runtime choose the work-group size (global = n),
// otherwise global = round_up(n, group). Does not wait.
void enqueue(const cl::Kernel& k, std::size_t n, std::size_t group);
// Enqueues k over any range (local cl::NullRange: the runtime's choice). Does not wait. Every
// kernel a baseline times goes through here or enqueue(), so that its device time counts in
// bench::device_ns().
void launch(const cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local);
// clEnqueueCopyBuffer of n floats, its device time counted likewise. Does not wait.
void copy_buffer(const cl::Buffer& from, const cl::Buffer& to, std::size_t n);

// The work-group sizes a baseline is tried with: the runtime's choice (0), 16, 64, 128, 256,
// 1024, 4096, as far as the kernel allows.
std::vector<std::size_t> candidate_groups(const cl::Kernel& k);

// bench::tune_configs over work-group sizes: `run(group)` enqueues and finishes; `best` is the
// winning group (0: the runtime's choice), the summary "wg NULL 1.20ms 16 3.4ms ... -> 256".
tuning tune(const std::string& what, const std::vector<std::size_t>& groups,
            const std::function<void(std::size_t)>& run, int reps = 3);

std::string group_name(std::size_t group); // "NULL" or the number

// ---- kernel shapes --------------------------------------------------------------------------
// A handwritten element-wise kernel walks its elements with `LOOM_EACH_ELEMENT(i) statement`
// (i a uint below the kernel's `n`), and is tuned over shapes as well as group sizes: one
// work-item per element (the NDRange covers n), and a contiguous chunk per work-item (a few
// work-items in groups of one, each looping over its chunk, which is what VexCL and
// Boost.Compute launch on CPUs). A baseline tuned over group sizes alone shares the weakness of
// a one-shape runtime and once made a 2.3x gap read as parity.
enum class shape { per_element, chunked };

struct shaped_launch {
    shape form = shape::per_element;
    std::size_t group = 0; // per element: the work-group size (0: the runtime's choice)
    std::size_t items = 0; // chunked: the work-items launched
};
std::string launch_name(const shaped_launch& l); // "elem:256", "elem:NULL", "chunk:16"

// `forms` once per vector width, each copy with "$W" replaced by the width ("8", "16"): one
// handwritten kernel written once for several floatN loads.
std::string for_widths(const std::string& forms, std::initializer_list<const char*> widths);

// `source` with the shape's LOOM_EACH_ELEMENT defined before it.
std::string shaped_source(const std::string& source, shape s);
// Enqueues k (built from shaped_source(..., l.form)) over n elements. Does not wait.
void enqueue(const cl::Kernel& k, std::size_t n, const shaped_launch& l);

struct shaped_kernel {
    cl::Kernel kernel;    // of the winning shape, its arguments bound
    shaped_launch launch; // the winning shape and geometry
    tuning tuned;         // its summary lists every configuration tried
};
// Builds kernel `name` of `source` in every shape, binds its arguments with `bind`, and times
// every shape at every geometry (per element: candidate_groups; chunked: 1, 2, 4, 8, 16 and 32
// work-items per compute unit) over n elements; the fastest wins.
shaped_kernel tune_shapes(const std::string& what, const std::string& source, const std::string& name, std::size_t n,
                          const std::function<void(cl::Kernel&)>& bind, int reps = 3);

} // namespace bench::ocl
