// loom::kernel (docs/custom-kernels.md): a hand-written kernel launched in statement order with
// Loom's own statements, fused or not, with vectors, device scalars and host values as arguments;
// its source cached like Loom's kernels; and its errors. Values are checked against the host.
#include <doctest/doctest.h>

#include <loom/kernel.hpp>
#include <loom/loom.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "../cache/cache_test_support.hpp"
#include "error_support.hpp"
#include "runtime/kernel_parameters.hpp"

using namespace loom_test_errors;

namespace {

// y[i] = a * x[i] + s[0] for i < n: a vector written, one read, a host value, a device scalar.
const char* axpb = R"(
__kernel void axpb(__global float* y, __global const float* x, float a, __global const float* s, ulong n) {
    ulong i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + s[0];
})";

} // namespace

TEST_CASE("a loom::kernel runs after the statements before it and before the ones after it, fused or not") {
    for (int fusion : {1, 0}) {
        CAPTURE(fusion);
        loom::context ctx(on_opencl(fusion));
        const std::size_t n = 1000; // not a multiple of any group size: the kernel tests its index
        loom::kernel k(ctx, "axpb", axpb);
        loom::vector<float> x(ctx, n), y(ctx, n, -1.0f);
        loom::scalar<float> s(ctx, 0.5f);
        x = loom::cast<float>(loom::index()) * 2.0f; // pending when the kernel launches
        k({n}, y, x, 3.0f, s, std::uint64_t(n));
        y = y + 1.0f; // sees what the kernel wrote
        const std::vector<float> got = y.to_host();
        for (std::size_t i = 0; i < n; ++i) REQUIRE(got[i] == 3.0f * (2.0f * float(i)) + 0.5f + 1.0f);
        CHECK(ctx.statistics().kernels_launched >= 2);
    }
}

TEST_CASE("a loom::kernel with an explicit group size, and a 2-D launch") {
    loom::context ctx(on_opencl(1));
    const char* fill2d = R"(
__kernel void fill2d(__global int* out, ulong nx, ulong ny) {
    ulong i = get_global_id(0), j = get_global_id(1);
    if (i < nx && j < ny) out[j * nx + i] = (int)(10 * j + i);
})";
    loom::kernel k(ctx, "fill2d", fill2d);
    const std::size_t nx = 13, ny = 7;
    loom::vector<int> out(ctx, nx * ny);
    k({nx, 4, ny, 2}, out, std::uint64_t(nx), std::uint64_t(ny));
    const std::vector<int> got = out.to_host();
    for (std::size_t j = 0; j < ny; ++j)
        for (std::size_t i = 0; i < nx; ++i) REQUIRE(got[j * nx + i] == int(10 * j + i));

    loom::kernel axpb_k(ctx, "axpb", axpb);
    loom::vector<float> x(ctx, 70, 1.0f), y(ctx, 70);
    loom::scalar<float> s(ctx, 0.0f);
    axpb_k({70, 32}, y, x, 2.0f, s, std::uint64_t(70)); // 96 work-items, 70 in range
    for (float v : y.to_host()) REQUIRE(v == 2.0f);
}

TEST_CASE("a loom::kernel is compiled once: a second one over the same source in another context is a cache hit") {
    loom::cache::test::scratch_dir dir;
    loom::cache::test::scoped_env cache_dir("LOOM_CACHE_DIR", dir.path().string());
    {
        loom::context first(on_opencl(1));
        loom::kernel k(first, "axpb", axpb);
        CHECK(first.statistics().kernels_compiled == 1);
    }
    loom::context second(on_opencl(1));
    loom::kernel k(second, "axpb", axpb);
    CHECK(second.statistics().kernels_compiled == 0);
    CHECK(second.statistics().disk_hits == 1);
    loom::vector<float> x(second, 5, 2.0f), y(second, 5);
    loom::scalar<float> s(second, 1.0f);
    k({5}, y, x, 2.0f, s, std::uint64_t(5));
    for (float v : y.to_host()) CHECK(v == 5.0f);
}

TEST_CASE("loom::kernel errors say what to fix, and a failed launch leaves vectors as they were") {
    loom::context ctx(on_opencl(1));
    SUBCASE("a build failure is a build_error with the compiler's log") {
        try {
            loom::kernel k(ctx, "broken", "__kernel void broken(__global float* y) { y[0] = undeclared; }");
            FAIL("built");
        } catch (const loom::build_error& e) {
            CHECK(has(e.log(), "undeclared"));
        }
    }
    SUBCASE("no source for the context's backend") {
        CHECK(has(error_of([&] {
                      loom::kernel k(ctx, "k", loom::kernel_sources{"", "extern \"C\" __global__ void k() {}"});
                  }),
                  "no OpenCL source given"));
    }
    SUBCASE("a name the source does not define") { CHECK_THROWS_AS(loom::kernel(ctx, "absent", axpb), loom::error); }
    SUBCASE("launch shapes, contexts and loop bodies") {
        loom::kernel k(ctx, "axpb", axpb);
        loom::vector<float> x(ctx, 8, 1.0f), y(ctx, 8, 4.0f);
        loom::scalar<float> s(ctx, 0.0f);
        CHECK(has(error_of([&] { k({0}, y, x, 1.0f, s, std::uint64_t(8)); }), "needs work-items"));
        CHECK(has(error_of([&] { k({8, 0, 2, 0}, y, x, 1.0f, s, std::uint64_t(8)); }), "both group sizes"));
        CHECK(has(error_of([&] { k({8, 1u << 30}, y, x, 1.0f, s, std::uint64_t(8)); }), "allows"));
        loom::context other(on_opencl(1));
        loom::vector<float> foreign(other, 8);
        CHECK(has(error_of([&] { k({8}, foreign, x, 1.0f, s, std::uint64_t(8)); }), "another context"));
        loom::scalar<int> go(ctx, 1);
        CHECK(has(error_of([&] {
                      loom::loop_while(ctx, go > 0, [&] {
                          k({8}, y, x, 1.0f, s, std::uint64_t(8));
                          go = go - 1;
                      });
                  }),
                  "loop_while"));
        for (float v : y.to_host()) CHECK(v == 4.0f);
    }
}

TEST_CASE("a loom::kernel launched with too few or too many arguments names the kernel and both counts") {
    loom::context ctx(on_opencl(1));
    loom::kernel k(ctx, "axpb", axpb);
    loom::vector<float> x(ctx, 8, 1.0f), y(ctx, 8, 4.0f);
    loom::scalar<float> s(ctx, 0.5f);
    std::string m = error_of([&] { k({8}, y, x, 2.0f, s); });
    CHECK_MESSAGE(has(m, "loom::kernel \"axpb\": the kernel takes 5 arguments and the launch gives 4"), m);
    CHECK_MESSAGE(!has(m, "CL_INVALID_KERNEL_ARGS"), m);
    m = error_of([&] { k({8}, y, x, 2.0f, s, std::uint64_t(8), 7); });
    CHECK_MESSAGE(has(m, "loom::kernel \"axpb\": the kernel takes 5 arguments and the launch gives 6"), m);
    for (float v : y.to_host()) CHECK(v == 4.0f); // refused before anything ran
    k({8}, y, x, 2.0f, s, std::uint64_t(8));
    for (float v : y.to_host()) CHECK(v == 2.5f);
}

TEST_CASE("a hand-written kernel's parameters are counted from its source where the driver cannot tell") {
    using loom::detail::parameters_in_source;
    const std::string cuda = "#define N 4\n"
                             "__device__ float twice(float v, float w) { return 2 * v; }\n"
                             "extern \"C\" __global__ void scale(float* y, const float* x, float a,\n"
                             "                                   unsigned long long n) { y[0] = twice(x[0], a); }\n"
                             "extern \"C\" __global__ void none() {}\n"
                             "extern \"C\" __global__ void nothing(void) {}\n"
                             "extern \"C\" __global__ void sized(float (*rows)[4], int pick[2]) {}\n";
    CHECK(parameters_in_source(cuda, "scale") == std::optional<std::size_t>(4));
    CHECK(parameters_in_source(cuda, "none") == std::optional<std::size_t>(0));
    CHECK(parameters_in_source(cuda, "nothing") == std::optional<std::size_t>(0));
    CHECK(parameters_in_source(cuda, "sized") == std::optional<std::size_t>(2));
    CHECK(parameters_in_source(cuda, "twice") == std::nullopt); // a device function, not a kernel
    CHECK(parameters_in_source(cuda, "absent") == std::nullopt);
    CHECK(parameters_in_source(axpb, "axpb") == std::optional<std::size_t>(5));
    CHECK(parameters_in_source("__kernel void cut(int a, int b", "cut") == std::nullopt);
}
