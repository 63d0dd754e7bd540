// The CUDA backend on a real GPU: the device interface (transfers through the pinned
// staging buffers, device copies, cubin and PTX modules, launches, out of memory) and
// whole programs (saxpy, double math, integer ops, fusion on and off), checked against
// the host. With no CUDA device it exits 77, which ctest reports as skipped.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <loom/loom.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/nvrtc_compile.hpp"
#include "launch/policy.hpp"

namespace {

using loom::backend::cuda_staging_chunk;

loom::context cuda_context(int fusion = -1) {
    loom::context_options o;
    o.backend = "cuda";
    o.fusion = fusion;
    return loom::context(o);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// p1[i] = p2 * p0[i] + p1[i]
const char* saxpy_source =
    "extern \"C\" __global__ void loom_kernel(const float* __restrict__ p0, float* __restrict__ p1, float p2,"
    " unsigned long long n) {\n"
    "    for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;"
    " i += (unsigned long long)blockDim.x * gridDim.x) p1[i] = p2 * p0[i] + p1[i];\n}\n";

// Runs saxpy_source's kernel k over n elements on the device and returns y.
std::vector<float> run_saxpy(loom::backend::device& dev, loom::backend::kernel& k, const std::vector<float>& x,
                             const std::vector<float>& y, float a) {
    const std::size_t n = x.size();
    auto px = dev.allocate(n * sizeof(float)), py = dev.allocate(n * sizeof(float));
    dev.write(*px, 0, x.data(), n * sizeof(float));
    dev.write(*py, 0, y.data(), n * sizeof(float));
    const std::uint64_t count = n;
    const loom::backend::kernel_arg args[] = {
        {px.get(), nullptr, 0}, {py.get(), nullptr, 0}, {nullptr, &a, sizeof a}, {nullptr, &count, sizeof count}};
    dev.launch(k, args, 4, loom::launch::map_geometry(dev.info(), loom::ir::map_form::grid_stride, count));
    std::vector<float> out(n);
    dev.read(*py, 0, out.data(), n * sizeof(float));
    return out;
}

std::vector<float> host_saxpy(const std::vector<float>& x, std::vector<float> y, float a) {
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = a * x[i] + y[i];
    return y;
}

} // namespace

int main(int argc, char** argv) {
    if (!loom::backend::cuda_device_present()) {
        std::printf("SKIPPED: no CUDA device (%s)\n", loom::backend::cuda_absence_reason().c_str());
        return 77;
    }
    doctest::Context context;
    context.applyCommandLine(argc, argv);
    return context.run();
}

TEST_CASE("cuda_device_describes_itself_and_its_compile_options") {
    auto dev = loom::backend::open_cuda_device("");
    const auto& info = dev->info();
    MESSAGE("CUDA device: ", info.name, ", ", info.driver, ", ", info.compute_units,
            " SMs; options: ", dev->compile_options());
    CHECK(info.backend == "cuda");
    CHECK(info.gpu);
    CHECK(info.fp64);
    CHECK(info.compute_units >= 1);
    CHECK(info.max_work_group >= 256);
    CHECK(info.global_memory > 0);
    CHECK(std::string(dev->dialect().name) == "cuda");
    CHECK(contains(dev->compile_options(), "--fmad=false"));
    CHECK(contains(dev->compile_options(), "--gpu-architecture="));
    CHECK(contains(dev->compile_options(), "NVRTC"));
}

TEST_CASE("cuda_transfers_larger_than_the_staging_buffer_round_trip_at_any_offset") {
    auto dev = loom::backend::open_cuda_device("");
    const std::size_t bytes = 3 * cuda_staging_chunk + 4093; // four chunks, the last one odd
    std::vector<unsigned char> host(bytes);
    for (std::size_t i = 0; i < bytes; ++i) host[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
    auto a = dev->allocate(bytes), b = dev->allocate(bytes);
    dev->write(*a, 0, host.data(), bytes);

    std::vector<unsigned char> back(bytes, 0);
    dev->read(*a, 0, back.data(), bytes);
    CHECK(back == host);

    // A patch across a chunk boundary, at an odd offset, then a read of another odd range.
    const std::size_t offset = cuda_staging_chunk - 777, length = cuda_staging_chunk + 1555;
    std::vector<unsigned char> patch(length);
    for (std::size_t i = 0; i < length; ++i) patch[i] = static_cast<unsigned char>(255 - i % 251);
    dev->write(*a, offset, patch.data(), length);
    std::memcpy(host.data() + offset, patch.data(), length);
    std::vector<unsigned char> range(2 * cuda_staging_chunk + 3);
    dev->read(*a, 5, range.data(), range.size());
    CHECK(std::equal(range.begin(), range.end(), host.begin() + 5));

    // A device-to-device copy, ordered with the transfers around it.
    dev->copy(*a, *b, bytes);
    std::fill(back.begin(), back.end(), 0);
    dev->read(*b, 0, back.data(), bytes);
    CHECK(back == host);

    // One byte, and nothing.
    unsigned char one = 0;
    dev->read(*b, bytes - 1, &one, 1);
    CHECK(one == host.back());
    dev->write(*b, 0, nullptr, 0);
    dev->finish();
}

TEST_CASE("cuda_build_caches_a_cubin_that_loads_again_and_ptx_loads_too") {
    auto dev = loom::backend::open_cuda_device("");
    auto built = dev->build(saxpy_source, "loom_kernel");
    REQUIRE(built.compiled);
    CHECK((built.binary_kind == "cubin" || built.binary_kind == "ptx"));
    REQUIRE(!built.binary.empty());

    const std::size_t n = 100003;
    std::vector<float> x(n), y(n);
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = float(i % 1000) * 0.001f;
        y[i] = 1.0f - float(i % 7) * 0.125f;
    }
    const std::vector<float> expected = host_saxpy(x, y, 2.5f);
    CHECK(run_saxpy(*dev, *built.compiled, x, y, 2.5f) == expected);

    // The disk cache's path: the stored binary becomes a kernel without NVRTC.
    auto loaded = dev->load(built.binary, built.binary_kind, "loom_kernel");
    REQUIRE(loaded);
    CHECK(run_saxpy(*dev, *loaded, x, y, 2.5f) == expected);

    // PTX for the oldest architecture NVRTC knows: the driver JITs it for this GPU.
    const int oldest = loom::backend::cuda::nvrtc_architectures().front();
    const auto ptx = loom::backend::cuda::nvrtc_compile(saxpy_source, oldest, false);
    auto jitted = dev->load(ptx.binary, "ptx", "loom_kernel");
    REQUIRE(jitted);
    CHECK(run_saxpy(*dev, *jitted, x, y, 2.5f) == expected);

    // What the driver rejects is nullptr, never a crash.
    CHECK_FALSE(dev->load(std::vector<unsigned char>(64, 0xAB), "cubin", "loom_kernel"));
    CHECK_FALSE(dev->load(std::vector<unsigned char>(64, 0), "ptx", "loom_kernel"));
    CHECK_FALSE(dev->load(built.binary, "opencl-binary", "loom_kernel"));
    CHECK_FALSE(dev->load({}, "cubin", "loom_kernel"));
}

TEST_CASE("cuda_profiling_times_each_launch_between_its_events") {
    auto timed = loom::backend::open_cuda_device("", true);
    auto built = timed->build(saxpy_source, "loom_kernel");
    REQUIRE(built.compiled);
    CHECK(timed->timing().launches == 0);
    const std::size_t n = std::size_t(1) << 22;
    std::vector<float> x(n, 0.5f), y(n, 2.0f);
    const std::vector<float> expected = host_saxpy(x, y, 3.0f);
    CHECK(run_saxpy(*timed, *built.compiled, x, y, 3.0f) == expected); // ends with a read: the launch has run
    const loom::backend::kernel_timing t = timed->timing();
    CHECK(t.launches == 1);
    CHECK(t.ns > 0);
    // Twice more, and the pooled events serve again.
    run_saxpy(*timed, *built.compiled, x, y, 3.0f);
    run_saxpy(*timed, *built.compiled, x, y, 3.0f);
    CHECK(timed->timing().launches == 3);
    auto untimed = loom::backend::open_cuda_device("");
    auto plain = untimed->build(saxpy_source, "loom_kernel");
    REQUIRE(plain.compiled);
    CHECK(run_saxpy(*untimed, *plain.compiled, x, y, 3.0f) == expected);
    CHECK(untimed->timing().launches == 0); // profiling off: no events, nothing timed
}

TEST_CASE("cuda_build_failure_carries_the_nvrtc_log") {
    auto dev = loom::backend::open_cuda_device("");
    try {
        dev->build("extern \"C\" __global__ void loom_kernel(unsigned long long n) { undeclared_name = 1; }\n",
                   "loom_kernel");
        FAIL("a broken kernel built");
    } catch (const loom::backend::build_failure& e) {
        CHECK(contains(e.log, "undeclared_name"));
    }
}

TEST_CASE("cuda_out_of_memory_says_so_with_the_size") {
    auto dev = loom::backend::open_cuda_device("");
    const std::size_t huge = std::size_t(1) << 50; // 1 PiB
    try {
        dev->allocate(huge);
        FAIL("a 1 PiB allocation succeeded");
    } catch (const loom::error& e) {
        CHECK(contains(e.what(), "out of device memory"));
        CHECK(contains(e.what(), std::to_string(huge)));
    }
    // The device is still usable.
    auto small = dev->allocate(16);
    const int value = 7;
    dev->write(*small, 4, &value, sizeof value);
    int back = 0;
    dev->read(*small, 4, &back, sizeof back);
    CHECK(back == 7);
}

TEST_CASE("cuda_saxpy_equals_the_host_bit_for_bit") {
    loom::context ctx = cuda_context();
    CHECK(ctx.backend_name() == "cuda");
    CHECK(ctx.has_fp64());
    const std::size_t n = (std::size_t(1) << 20) + 3;
    std::vector<float> hx(n), hy(n);
    for (std::size_t i = 0; i < n; ++i) {
        hx[i] = float(i % 1000) * 0.001f;
        hy[i] = 1.0f - float(i % 7) * 0.125f;
    }
    loom::vector<float> x(ctx, hx), y(ctx, hy);
    y = 2.5f * x + y;
    CHECK(y.to_host() == host_saxpy(hx, hy, 2.5f));
}

TEST_CASE("cuda_fused_and_unfused_programs_round_alike") {
    // Fused, a * b + c must not become an fma: both must equal the host's float arithmetic.
    const std::size_t n = 50000;
    std::vector<float> ha(n), hb(n), hc(n), expected(n);
    for (std::size_t i = 0; i < n; ++i) {
        ha[i] = 1.0f + float(i % 997) / 7.0f;
        hb[i] = 0.5f - float(i % 13) / 3.0f;
        hc[i] = float(i % 101) * 1.1f;
        const float t = ha[i] * hb[i] + hc[i];
        const float u = t * t - ha[i];
        expected[i] = u / (hb[i] + 10.0f);
    }
    for (int fusion : {1, 0}) {
        CAPTURE(fusion);
        loom::context ctx = cuda_context(fusion);
        loom::vector<float> a(ctx, ha), b(ctx, hb), c(ctx, hc), t(ctx, n), u(ctx, n), y(ctx, n);
        t = a * b + c;
        u = t * t - a;
        y = u / (b + 10.0f);
        CHECK(y.to_host() == expected);
    }
}

TEST_CASE("cuda_double_math_matches_the_host") {
    loom::context ctx = cuda_context();
    const std::size_t n = 10000;
    std::vector<double> hx(n);
    for (std::size_t i = 0; i < n; ++i) hx[i] = 0.001 + double(i) * 0.37;
    loom::vector<double> x(ctx, hx), y(ctx, n), z(ctx, n);
    y = loom::sqrt(x) * 2.0 + loom::exp(-x / 1000.0);
    z = loom::where(x < 100.0, loom::sin(x), loom::log(x));
    const std::vector<double> hy = y.to_host(), hz = z.to_host();
    for (std::size_t i = 0; i < n; ++i) {
        const double ey = std::sqrt(hx[i]) * 2.0 + std::exp(-hx[i] / 1000.0);
        const double ez = hx[i] < 100.0 ? std::sin(hx[i]) : std::log(hx[i]);
        REQUIRE(std::fabs(hy[i] - ey) <= 1e-14 * std::fabs(ey));
        REQUIRE(std::fabs(hz[i] - ez) <= 1e-14 * std::fabs(ez) + 1e-300);
    }
}

TEST_CASE("cuda_integer_operations_match_the_host") {
    loom::context ctx = cuda_context();
    const std::size_t n = 70001;
    std::vector<std::int32_t> ha(n), hb(n);
    std::vector<std::uint8_t> hu(n), hv(n);
    std::vector<std::int64_t> hl(n);
    for (std::size_t i = 0; i < n; ++i) {
        ha[i] = std::int32_t(i * 7919 % 20011) - 10000;
        hb[i] = std::int32_t(i % 13) + 1;
        hu[i] = std::uint8_t(i * 31);
        hv[i] = std::uint8_t(i * 17 + 200);
        hl[i] = std::int64_t(i) * 3000000007LL - 5;
    }
    loom::vector<std::int32_t> a(ctx, ha), b(ctx, hb), r1(ctx, n), r2(ctx, n);
    loom::vector<std::uint8_t> u(ctx, hu), v(ctx, hv), r3(ctx, n);
    loom::vector<std::int64_t> l(ctx, hl), r4(ctx, n);
    loom::vector<std::uint64_t> r5(ctx, n);
    loom::vector<float> r6(ctx, n);
    r1 = (a * 3 + b) % b;
    r2 = loom::where(a < b, (b << 2) ^ a, a >> 1);
    r3 = u + v; // computed in int, wrapped on the store
    r4 = l / 7 - (l & 0xFFFF);
    r5 = loom::index() * 2u;
    r6 = loom::cast<float>(a) * 0.5f;
    const auto g1 = r1.to_host(), g2 = r2.to_host();
    const auto g3 = r3.to_host();
    const auto g4 = r4.to_host();
    const auto g5 = r5.to_host();
    const auto g6 = r6.to_host();
    for (std::size_t i = 0; i < n; ++i) {
        REQUIRE(g1[i] == (ha[i] * 3 + hb[i]) % hb[i]);
        REQUIRE(g2[i] == (ha[i] < hb[i] ? (hb[i] << 2) ^ ha[i] : ha[i] >> 1));
        REQUIRE(g3[i] == std::uint8_t(hu[i] + hv[i]));
        REQUIRE(g4[i] == hl[i] / 7 - (hl[i] & 0xFFFF));
        REQUIRE(g5[i] == std::uint64_t(i) * 2u);
        REQUIRE(g6[i] == float(ha[i]) * 0.5f);
    }
}

TEST_CASE("cuda_vectors_larger_than_the_staging_buffer_and_single_elements") {
    loom::context ctx = cuda_context();
    const std::size_t n = 5 * cuda_staging_chunk / sizeof(std::uint32_t) + 11;
    std::vector<std::uint32_t> hx(n);
    for (std::size_t i = 0; i < n; ++i) hx[i] = std::uint32_t(i * 2654435761u);
    loom::vector<std::uint32_t> x(ctx, hx), y(ctx, n);
    y = x + 1u;
    const std::vector<std::uint32_t> hy = y.to_host();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += hy[i] != hx[i] + 1u;
    CHECK(wrong == 0);
    y[n - 2] = 42u;
    CHECK(std::uint32_t(y[n - 2]) == 42u);
    CHECK(std::uint32_t(y[n - 1]) == hx[n - 1] + 1u);
}

TEST_CASE("cuda_two_contexts_on_one_device_are_independent") {
    loom::context c1 = cuda_context(), c2 = cuda_context();
    loom::vector<float> a(c1, 1000, 1.0f), b(c2, 1000, 2.0f);
    a = a * 3.0f;
    b = b + 0.5f;
    CHECK(a.to_host() == std::vector<float>(1000, 3.0f));
    CHECK(b.to_host() == std::vector<float>(1000, 2.5f));
    c1.finish();
    loom::finish();
}

TEST_CASE("cuda_device_scalars_and_loop_while_stop_at_the_exact_iteration") {
    loom::context ctx = cuda_context();
    const std::size_t n = 100003;
    std::vector<float> hx(n);
    for (std::size_t i = 0; i < n; ++i) hx[i] = float(i % 97) * 0.25f;
    loom::vector<float> x(ctx, hx), y(ctx, n);
    loom::scalar<float> total = loom::sum(x, loom::on_device);
    y = x / total;
    CHECK(total.value() == loom::sum(x));
    const std::vector<float> hy = y.to_host();
    CHECK(hy[5] == hx[5] / total.value());

    // Ping-pong until max(u) reaches 9, checked every 4 iterations: exactly 9 run.
    loom::vector<std::int32_t> u(ctx, n, 0), next(ctx, n, -1);
    loom::scalar<std::int32_t> top(ctx, 0);
    ctx.finish();
    const std::uint64_t launches_before = ctx.statistics().kernels_launched;
    const auto ran = loom::loop_while(
        ctx, top < 9,
        [&] {
            next = u + 1;
            loom::swap(u, next);
            top = loom::max(u, loom::on_device);
        },
        4);
    CHECK(ran == 9);
    // 12 iterations issued (checks after 4, 8, 12), each the reduction's two passes: the
    // first runs `next = u + 1` (map-reduce fusion), the second the loop's bookkeeping; plus
    // the loop's first flag statement.
    CHECK(ctx.statistics().kernels_launched - launches_before <= 12 * 2 + 1);
    CHECK(u.to_host() == std::vector<std::int32_t>(n, 9));
    CHECK(next.to_host() == std::vector<std::int32_t>(n, 8));
}
