// loom::kernel: a whole kernel written by hand, the escape hatch for what expressions, traced
// lambdas and the skeletons cannot say. It is compiled once per context (and cached on disk
// like Loom's own kernels), launched with Loom vectors, device scalars and host values as its
// arguments, in statement order with everything else the context runs. docs/custom-kernels.md.
//
//   loom::kernel scale(ctx, "scale", R"(
//       __kernel void scale(__global float* y, __global const float* x, float a, ulong n) {
//           ulong i = get_global_id(0);
//           if (i < n) y[i] = a * x[i];
//       })");
//   scale({n}, y, x, 2.0f, std::uint64_t(n));
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "loom/context.hpp"
#include "loom/detail/runtime.hpp"
#include "loom/error.hpp"
#include "loom/scalar.hpp"
#include "loom/vector.hpp"

namespace loom {

// The work-items of a launch. `items` is rounded up to whole groups (both backends), so the
// kernel must test its index against its own count. group 0: the runtime chooses (1-D only).
struct launch_shape {
    std::uint64_t items = 0;      // work-items (threads) along the first dimension
    std::uint32_t group = 0;      // work-group (block) size along it
    std::uint64_t rows = 0;       // a 2-D launch: work-items along the second dimension (0: 1-D)
    std::uint32_t group_rows = 0; // ... and the group's size along it (required for 2-D)
};

// Source text for each backend; the context's backend picks one. Empty: none for that backend.
struct kernel_sources {
    std::string opencl; // OpenCL C
    std::string cuda;   // CUDA C++; the entry point declared extern "C" __global__
};

class kernel {
public:
    // `name` is the kernel function's name in the source. The source is written for the
    // context's backend (OpenCL C, or CUDA C++ with an extern "C" __global__ entry point).
    // Compiles now: a build failure throws loom::build_error with the compiler's log.
    kernel(const context& ctx, const std::string& name, const std::string& source)
        : state_(detail::build_custom_kernel(*ctx.impl(), name, source)) {}
    kernel(const context& ctx, const std::string& name, const kernel_sources& sources)
        : kernel(ctx, name, pick(ctx, name, sources)) {}

    // Launches over `shape` with these arguments, in the order of the kernel's parameters:
    // loom::vector<T> (its device memory, T* in the kernel), loom::scalar<T> (a pointer to its
    // one element), or a host value (an arithmetic type, passed by value: write the type the
    // kernel declares, e.g. std::uint64_t for ulong). The pending statements run first; the
    // launch is enqueued, not waited for, and what it writes is seen by later statements.
    template <class... Args> void operator()(const launch_shape& shape, const Args&... args) const {
        const detail::custom_argument list[] = {argument(args)..., detail::custom_argument{}};
        detail::launch_custom_kernel(*state_, list, sizeof...(Args), shape.items, shape.group, shape.rows,
                                     shape.group_rows);
    }

private:
    template <class T> detail::custom_argument argument(const vector<T>& v) const {
        if (!v.buffer())
            throw error("loom::kernel: an argument is an empty loom::vector (default-constructed or moved "
                        "from); construct it with a context and a size first");
        return {&v.buffer(), nullptr, 0};
    }
    template <class T> detail::custom_argument argument(const scalar<T>& s) const { return {&s.buffer(), nullptr, 0}; }
    template <class T> detail::custom_argument argument(const T& value) const {
        static_assert(std::is_arithmetic_v<T>,
                      "loom::kernel: an argument must be a loom::vector, a loom::scalar or an arithmetic host value");
        return {nullptr, &value, sizeof(T)};
    }

    static const std::string& pick(const context& ctx, const std::string& name, const kernel_sources& sources) {
        const bool cuda = ctx.backend_name() == "cuda";
        const std::string& source = cuda ? sources.cuda : sources.opencl;
        if (source.empty())
            throw error("loom::kernel \"" + name + "\": no " + (cuda ? "CUDA" : "OpenCL") +
                        " source given, and the context runs on " + ctx.backend_name() +
                        "; give kernel_sources{opencl, cuda} both, or make the context on the other backend");
        return source;
    }

    std::shared_ptr<detail::custom_kernel> state_; // holds the context: it lives as long as the kernel
};

} // namespace loom
