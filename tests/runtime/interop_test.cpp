// Interop (docs/interop.md): a vector's memory handed to a handwritten OpenCL kernel on the
// context's own queue, vectors over memory the test made, contexts over the test's own OpenCL
// context and queue, a round trip with Boost.Compute, and the errors of each. The CUDA cases
// need a CUDA device; without one they check what can be checked and say they skipped the rest.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/transform.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/container/vector.hpp>
#include <boost/compute/context.hpp>
#include <boost/compute/iterator/buffer_iterator.hpp>
#include <boost/compute/lambda.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "../cache/cache_test_support.hpp"
#include "error_support.hpp"
#include "runtime/context_impl.hpp"
#ifdef LOOM_HAVE_CUDA
#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/driver_api.hpp"
#endif

using namespace loom_test_errors;

namespace {

std::vector<float> iota_floats(std::size_t n, float first = 1.0f) {
    std::vector<float> v(n);
    std::iota(v.begin(), v.end(), first);
    return v;
}

std::uint64_t loom_memory_in_use(const loom::context& ctx) { return ctx.impl()->device().memory_in_use(); }

cl_uint reference_count(cl_mem m) {
    cl_uint count = 0;
    REQUIRE(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof count, &count, nullptr) == CL_SUCCESS);
    return count;
}

// y[i] = 3 * y[i], built and enqueued with the plain OpenCL API.
void enqueue_triple(cl_context c, cl_device_id d, cl_command_queue q, cl_mem y, cl_uint n) {
    const char* source = "__kernel void triple(__global float* y, uint n) {\n"
                         "    size_t i = get_global_id(0);\n"
                         "    if (i < n) y[i] = 3.0f * y[i];\n"
                         "}\n";
    cl_int status = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(c, 1, &source, nullptr, &status);
    REQUIRE(status == CL_SUCCESS);
    REQUIRE(clBuildProgram(program, 1, &d, "", nullptr, nullptr) == CL_SUCCESS);
    cl_kernel kernel = clCreateKernel(program, "triple", &status);
    REQUIRE(status == CL_SUCCESS);
    REQUIRE(clSetKernelArg(kernel, 0, sizeof y, &y) == CL_SUCCESS);
    REQUIRE(clSetKernelArg(kernel, 1, sizeof n, &n) == CL_SUCCESS);
    const std::size_t global = n;
    REQUIRE(clEnqueueNDRangeKernel(q, kernel, 1, nullptr, &global, nullptr, 0, nullptr, nullptr) == CL_SUCCESS);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
}

// A buffer of the host values, made and filled by the test.
cl_mem make_buffer(cl_context c, cl_command_queue q, const std::vector<float>& host) {
    cl_int status = CL_SUCCESS;
    cl_mem m = clCreateBuffer(c, CL_MEM_READ_WRITE, host.size() * sizeof(float), nullptr, &status);
    REQUIRE(status == CL_SUCCESS);
    REQUIRE(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, host.size() * sizeof(float), host.data(), 0, nullptr, nullptr) ==
            CL_SUCCESS);
    return m;
}

std::vector<float> read_buffer(cl_command_queue q, cl_mem m, std::size_t n) {
    std::vector<float> host(n);
    REQUIRE(clEnqueueReadBuffer(q, m, CL_TRUE, 0, n * sizeof(float), host.data(), 0, nullptr, nullptr) == CL_SUCCESS);
    return host;
}

// The test's own OpenCL context and queue on the device a Loom context picked.
struct own_opencl {
    cl_device_id device = nullptr;
    cl_context context = nullptr;
    cl_command_queue queue = nullptr;

    explicit own_opencl(cl_device_id d, cl_command_queue_properties properties = 0) : device(d) {
        cl_int status = CL_SUCCESS;
        context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &status);
        REQUIRE(status == CL_SUCCESS);
        queue = clCreateCommandQueue(context, device, properties, &status);
        if (status != CL_SUCCESS) queue = nullptr; // an out-of-order queue the device does not offer
    }
    ~own_opencl() {
        if (queue) clReleaseCommandQueue(queue);
        clReleaseContext(context);
    }
    own_opencl(const own_opencl&) = delete;
    own_opencl& operator=(const own_opencl&) = delete;
};

cl_uint reference_count(cl_context c) {
    cl_uint count = 0;
    REQUIRE(clGetContextInfo(c, CL_CONTEXT_REFERENCE_COUNT, sizeof count, &count, nullptr) == CL_SUCCESS);
    return count;
}

cl_uint reference_count(cl_command_queue q) {
    cl_uint count = 0;
    REQUIRE(clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof count, &count, nullptr) == CL_SUCCESS);
    return count;
}

// The queue's reference count once the driver has let go of its finished commands. PoCL's events hold a
// reference to their queue and its worker threads free them a little after the commands complete, so right
// after clFinish the count may still be one or two above what the program holds (seen under ASan in CI).
cl_uint settled_reference_count(cl_command_queue q, cl_uint expected) {
    REQUIRE(clFinish(q) == CL_SUCCESS);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    cl_uint count = reference_count(q);
    while (count != expected && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        count = reference_count(q);
    }
    return count;
}

} // namespace

TEST_CASE("native_handle_enqueues_pending_statements_before_a_handwritten_kernel_on_the_context_queue") {
    loom::context ctx(on_opencl());
    const std::size_t n = 1000;
    const std::vector<float> host = iota_floats(n);
    loom::vector<float> x(ctx, host);
    loom::vector<float> y(ctx, n);
    y = 2.0f * x + 1.0f; // pending: native_handle() enqueues it first

    const loom::backend_handle h = y.native_handle();
    CHECK(h.backend() == loom::backend_kind::opencl);
    const auto mem = h.opencl<cl_mem>();
    REQUIRE(mem != nullptr);
    CHECK(y.native_handle().value() == h.value()); // the same memory every time
    std::size_t bytes = 0;
    REQUIRE(clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof bytes, &bytes, nullptr) == CL_SUCCESS);
    CHECK(bytes >= n * sizeof(float));

    const auto queue = ctx.native_queue().opencl<cl_command_queue>();
    const auto context = ctx.native_context().opencl<cl_context>();
    const auto device = ctx.native_device().opencl<cl_device_id>();
    cl_context queue_context = nullptr;
    REQUIRE(clGetCommandQueueInfo(queue, CL_QUEUE_CONTEXT, sizeof queue_context, &queue_context, nullptr) ==
            CL_SUCCESS);
    CHECK(queue_context == context);
    CHECK(ctx.native_stream().value() == ctx.native_queue().value());

    enqueue_triple(context, device, queue, mem, cl_uint(n)); // not waited for: Loom's read comes after it
    std::vector<float> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = 3.0f * (2.0f * host[i] + 1.0f);
    CHECK(y.to_host() == expected);

    // Loom's statements after the user's kernel read what it wrote.
    loom::vector<float> z = y - 1.0f;
    for (float& e : expected) e -= 1.0f;
    CHECK(z.to_host() == expected);
}

TEST_CASE("native_handle_allocates_a_vector_that_has_no_memory_yet_and_runs_its_fill") {
    loom::context ctx(on_opencl());
    const std::uint64_t before = loom_memory_in_use(ctx);
    loom::vector<float> z(ctx, 256, 7.0f); // the fill is pending, the memory not yet allocated
    const auto mem = z.native_handle().opencl<cl_mem>();
    CHECK(loom_memory_in_use(ctx) == before + 256 * sizeof(float)); // Loom's own memory is counted
    CHECK(read_buffer(ctx.native_queue().opencl<cl_command_queue>(), mem, 256) == std::vector<float>(256, 7.0f));

    loom::vector<float> empty;
    CHECK(has(error_of([&] { (void)empty.native_handle(); }), "native_handle() of an empty loom::vector"));
}

TEST_CASE("a_wrapped_cl_mem_works_in_expressions_reductions_scans_and_transfers_and_is_never_freed") {
    loom::context ctx(on_opencl());
    const auto context = ctx.native_context().opencl<cl_context>();
    const auto queue = ctx.native_queue().opencl<cl_command_queue>();
    const std::size_t n = 500;
    const std::vector<float> host = iota_floats(n);
    cl_mem mem = make_buffer(context, queue, host);
    const std::uint64_t before = loom_memory_in_use(ctx);
    {
        loom::vector<float> w = loom::vector<float>::wrap(ctx, mem, n);
        CHECK(loom_memory_in_use(ctx) == before); // not Loom's allocation
        CHECK(w.size() == n);
        CHECK(w.native_handle().opencl<cl_mem>() == mem);
        CHECK(w.to_host() == host); // no copy: the test's values are there

        // An expression reading and writing it, fused with a Loom vector.
        loom::vector<float> x(ctx, host);
        w = w * 2.0f + x; // 3 * host
        std::vector<float> expected(n);
        for (std::size_t i = 0; i < n; ++i) expected[i] = 3.0f * host[i];
        CHECK(w.to_host() == expected);

        // A reduction and scans, in and out.
        double sum = 0;
        for (float e : expected) sum += double(e);
        CHECK(double(loom::sum(w)) == doctest::Approx(sum));
        CHECK(loom::max(w) == expected.back());
        loom::vector<float> prefix(ctx, n);
        loom::inclusive_scan(w, prefix);
        std::vector<float> host_prefix(n);
        std::partial_sum(expected.begin(), expected.end(), host_prefix.begin());
        CHECK(prefix.to_host() == host_prefix);
        loom::vector<float> ones(ctx, n, 1.0f);
        loom::inclusive_scan(ones, w); // a scan's output in the caller's memory
        CHECK(w.to_host() == iota_floats(n));

        // Host transfers and elements.
        loom::copy(host, w);
        w[3] = 100.0f;
        CHECK(float(w[3]) == 100.0f);
        CHECK(float(w[4]) == host[4]);
        loom::vector<float> tail = w.slice(n - 10, 10);
        CHECK(tail.to_host() == std::vector<float>(host.end() - 10, host.end()));

        // What Loom wrote is in the test's buffer: read it with the plain API once Loom's work is enqueued.
        w = w + 0.5f;
        const std::vector<float> through_cl = read_buffer(ctx.native_queue().opencl<cl_command_queue>(), mem, n);
        CHECK(through_cl[3] == 100.5f);
        CHECK(through_cl[0] == host[0] + 0.5f);
        CHECK(through_cl[n - 1] == host[n - 1] + 0.5f);
        CHECK(reference_count(mem) == 2); // Loom holds a reference while a vector names it
    }
    ctx.finish();
    // The vectors are gone; the memory is the test's alone, and still holds Loom's last values.
    CHECK(reference_count(mem) == 1);
    const std::vector<float> left = read_buffer(queue, mem, n);
    CHECK(left[0] == host[0] + 0.5f);
    REQUIRE(clReleaseMemObject(mem) == CL_SUCCESS);
}

TEST_CASE("wrapping_one_handle_twice_gives_one_buffer_so_statements_through_either_keep_their_order") {
    loom::context ctx(on_opencl());
    const auto context = ctx.native_context().opencl<cl_context>();
    const auto queue = ctx.native_queue().opencl<cl_command_queue>();
    const std::size_t n = 64;
    cl_mem mem = make_buffer(context, queue, std::vector<float>(n, 5.0f));
    {
        loom::vector<float> a = loom::vector<float>::wrap(ctx, mem, n);
        loom::vector<float> b = loom::vector<float>::wrap(ctx, mem, n);
        CHECK(a.buffer() == b.buffer());
        a = 1.0f;
        loom::vector<float> y = b * 2.0f; // reads what `a = 1` wrote, in the same flush
        CHECK(y.to_host() == std::vector<float>(n, 2.0f));

        // A Loom vector's own handle, wrapped again, names the vector's buffer too.
        loom::vector<float> x(ctx, n, 4.0f);
        loom::vector<float> alias = loom::vector<float>::wrap(ctx, x.native_handle(), n);
        CHECK(alias.buffer() == x.buffer());
        x = 9.0f;
        loom::vector<float> z = alias + 1.0f;
        CHECK(z.to_host() == std::vector<float>(n, 10.0f));
    }
    ctx.finish();
    REQUIRE(clReleaseMemObject(mem) == CL_SUCCESS);
}

TEST_CASE("a_context_over_the_callers_cl_context_and_queue_retains_them_and_runs_on_them") {
    const cl_device_id device = loom::context(on_opencl()).native_device().opencl<cl_device_id>();
    own_opencl own(device);
    REQUIRE(own.queue);
    const cl_uint context_refs = reference_count(own.context), queue_refs = reference_count(own.queue);
    const std::size_t n = 300;
    const std::vector<float> host = iota_floats(n);
    cl_mem mem = make_buffer(own.context, own.queue, host);
    {
        loom::context ctx = loom::context::from_opencl(own.context, own.queue);
        CHECK(ctx.backend_name() == "opencl");
        CHECK(ctx.native_context().opencl<cl_context>() == own.context);
        CHECK(ctx.native_queue().opencl<cl_command_queue>() == own.queue);
        CHECK(ctx.native_device().opencl<cl_device_id>() == device);
        CHECK(reference_count(own.context) > context_refs);
        CHECK(reference_count(own.queue) > queue_refs);

        loom::vector<float> w = loom::vector<float>::wrap(ctx, mem, n);
        loom::vector<float> x(ctx, host);
        w = x * x - w; // host^2 - host
        loom::vector<float> y(ctx, n);
        y = w + 1.0f;
        // The test's own kernel on its own queue, after Loom's work (enqueued by native_handle).
        enqueue_triple(own.context, device, own.queue, y.native_handle().opencl<cl_mem>(), cl_uint(n));
        const std::vector<float> got = y.to_host();
        const std::vector<float> wrapped = read_buffer(own.queue, mem, n);
        for (std::size_t i = 0; i < n; ++i) {
            CHECK(wrapped[i] == host[i] * host[i] - host[i]);
            CHECK(got[i] == 3.0f * (host[i] * host[i] - host[i] + 1.0f));
        }
    }
    // The last copy of the context is gone: Loom's references to the context and queue too.
    REQUIRE(clReleaseMemObject(mem) == CL_SUCCESS);
    CHECK(settled_reference_count(own.queue, queue_refs) == queue_refs);
    CHECK(reference_count(own.context) == context_refs);
}

TEST_CASE("boost_compute_round_trip_through_wrap_and_native_handle") {
    namespace compute = boost::compute;
    using compute::lambda::_1;
    loom::context ctx(on_opencl());
    const compute::context bctx(ctx.native_context().opencl<cl_context>());
    compute::command_queue bq(ctx.native_queue().opencl<cl_command_queue>());
    const std::size_t n = 200;
    const std::vector<float> host = iota_floats(n);

    SUBCASE("a boost::compute::vector's buffer wrapped by Loom") {
        compute::vector<float> bv(host.begin(), host.end(), bq);
        {
            loom::vector<float> w = loom::vector<float>::wrap(ctx, bv.get_buffer().get(), n);
            w = w * 4.0f - 1.0f;
            CHECK(loom::sum(w) == doctest::Approx(4.0 * n * (n + 1) / 2 - double(n)));
            (void)ctx.native_queue(); // Loom's work enqueued before Boost.Compute's on the same queue
            std::vector<float> back(n);
            compute::copy(bv.begin(), bv.end(), back.begin(), bq);
            for (std::size_t i = 0; i < n; ++i) CHECK(back[i] == 4.0f * host[i] - 1.0f);
        }
        ctx.finish();
    }
    SUBCASE("a Loom vector's memory used as a boost::compute::buffer") {
        loom::vector<float> x(ctx, host);
        x = x + 1.0f; // pending until native_handle()
        const compute::buffer xb(x.native_handle().opencl<cl_mem>());
        CHECK(xb.size() >= n * sizeof(float));
        compute::transform(compute::make_buffer_iterator<float>(xb, 0), compute::make_buffer_iterator<float>(xb, n),
                           compute::make_buffer_iterator<float>(xb, 0), _1 * 2.0f, bq);
        const std::vector<float> got = x.to_host(); // Loom reads after Boost.Compute's kernel
        for (std::size_t i = 0; i < n; ++i) CHECK(got[i] == 2.0f * (host[i] + 1.0f));
    }
    SUBCASE("a Loom context over Boost.Compute's context and queue") {
        loom::context over = loom::context::from_opencl(bctx.get(), bq.get());
        compute::vector<float> bv(host.begin(), host.end(), bq);
        loom::vector<float> w = loom::vector<float>::wrap(over, bv.get_buffer().get(), n);
        loom::vector<float> squares = w * w;
        const std::vector<float> got = squares.to_host();
        for (std::size_t i = 0; i < n; ++i) CHECK(got[i] == host[i] * host[i]);
    }
}

TEST_CASE("interop_errors_name_the_backend_the_context_and_the_sizes") {
    loom::context ctx(on_opencl());
    loom::vector<float> x(ctx, 16, 1.0f);
    const loom::backend_handle h = x.native_handle();

    SUBCASE("a handle asked for as the other backend's") {
        std::string m = error_of([&] { (void)h.cuda<std::uint64_t>(); });
        CHECK_MESSAGE(has(m, "the memory of a loom::vector is OpenCL's"), m);
        CHECK_MESSAGE(has(m, "asked for as CUDA's"), m);
        m = error_of([&] { (void)ctx.native_stream().cuda<void*>(); });
        CHECK_MESSAGE(has(m, "the queue of a loom::context is OpenCL's"), m);
        m = error_of([&] { (void)ctx.native_context().cuda<void*>(); });
        CHECK_MESSAGE(has(m, "the context of a loom::context is OpenCL's"), m);
        m = error_of([&] { (void)ctx.native_device().cuda<int>(); });
        CHECK_MESSAGE(has(m, "the device of a loom::context is OpenCL's"), m);
        m = error_of([&] { (void)loom::vector<float>::wrap(ctx, std::uint64_t(0x1000), 4); });
        CHECK_MESSAGE(has(m, "the memory given is a CUdeviceptr (CUDA), and the context runs on OpenCL"), m);
    }
    SUBCASE("memory of another cl_context") {
        own_opencl other(ctx.native_device().opencl<cl_device_id>());
        REQUIRE(other.queue);
        cl_mem foreign = make_buffer(other.context, other.queue, std::vector<float>(16, 0.0f));
        const std::string m = error_of([&] { (void)loom::vector<float>::wrap(ctx, foreign, 16); });
        CHECK_MESSAGE(has(m, "belongs to another cl_context than this loom::context's"), m);
        clReleaseMemObject(foreign);
    }
    SUBCASE("too small a buffer, a null one, an image") {
        const auto context = ctx.native_context().opencl<cl_context>();
        cl_int status = CL_SUCCESS;
        cl_mem small = clCreateBuffer(context, CL_MEM_READ_WRITE, 16, nullptr, &status);
        REQUIRE(status == CL_SUCCESS);
        std::string m = error_of([&] { (void)loom::vector<float>::wrap(ctx, small, 5); });
        CHECK_MESSAGE(has(m, "holds 16 bytes, fewer than the 20 the vector's elements need"), m);
        CHECK(loom::vector<float>::wrap(ctx, small, 4).size() == 4); // exactly enough
        clReleaseMemObject(small);
        m = error_of([&] { (void)loom::vector<float>::wrap(ctx, static_cast<cl_mem>(nullptr), 4); });
        CHECK_MESSAGE(has(m, "the cl_mem given is null"), m);
    }
    SUBCASE("an out-of-order queue, a queue of another context, null handles, a device chosen twice") {
        const cl_device_id device = ctx.native_device().opencl<cl_device_id>();
        own_opencl in_order(device), other(device);
        REQUIRE(in_order.queue);
        std::string m = error_of([&] { (void)loom::context::from_opencl(in_order.context, other.queue); });
        CHECK_MESSAGE(has(m, "belongs to another cl_context than the one given"), m);
        m = error_of([&] { (void)loom::context::from_opencl(nullptr, in_order.queue); });
        CHECK_MESSAGE(has(m, "must not be null"), m);
        loom::context_options options;
        options.device = "0";
        m = error_of([&] { (void)loom::context::from_opencl(in_order.context, in_order.queue, options); });
        CHECK_MESSAGE(has(m, "context_options::device"), m);
        options = {};
        options.profiling = 1;
        m = error_of([&] { (void)loom::context::from_opencl(in_order.context, in_order.queue, options); });
        CHECK_MESSAGE(has(m, "context_options::profiling is 1, but the cl_command_queue given was made without "
                             "CL_QUEUE_PROFILING_ENABLE"),
                      m);
        {
            // LOOM_PROFILE asks every context to time its launches: this one cannot, says so, and runs.
            loom::cache::test::scoped_env profile("LOOM_PROFILE", "1");
            std::string said;
            loom::set_log_handler([&](const std::string& line) { said += line + "\n"; });
            {
                loom::context untimed = loom::context::from_opencl(in_order.context, in_order.queue);
                loom::vector<float> y(untimed, 8, 2.0f);
                CHECK(loom::sum(y) == 16.0f);
                CHECK(untimed.statistics().kernels_timed == 0);
            }
            loom::set_log_handler(nullptr);
            CHECK_MESSAGE(has(said, "LOOM_PROFILE is on, but"), said);
        }

        own_opencl out_of_order(device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
        if (!out_of_order.queue) {
            MESSAGE("SKIPPED: the device offers no out-of-order queue; that rejection is not checked");
            return;
        }
        m = error_of([&] { (void)loom::context::from_opencl(out_of_order.context, out_of_order.queue); });
        CHECK_MESSAGE(has(m, "runs out of order"), m);
        CHECK_MESSAGE(has(m, "in-order queue"), m);
    }
}

TEST_CASE("cuda_interop_runs_on_a_cuda_device_and_says_so_when_there_is_none") {
#ifndef LOOM_HAVE_CUDA
    CHECK_THROWS_AS(loom::context::from_cuda(nullptr, nullptr), loom::no_device);
    MESSAGE("SKIPPED: the CUDA interop cases: this Loom is built without the CUDA backend");
#else
    if (!loom::backend::cuda_device_present()) {
        const std::string m = error_of([] { (void)loom::context::from_cuda(nullptr, nullptr); });
        CHECK_MESSAGE(has(m, "loom::context::from_cuda: " + loom::backend::cuda_absence_reason()), m);
        CHECK_THROWS_AS(loom::context::from_cuda(nullptr, nullptr), loom::no_device);
        const std::string skipped =
            "SKIPPED: the CUDA interop cases on a device: " + loom::backend::cuda_absence_reason();
        MESSAGE(skipped);
        return;
    }
    namespace cu = loom::backend::cuda;
    const cu::driver_api& api = *cu::try_driver(nullptr);
    loom::context_options options;
    options.backend = "cuda";
    loom::context ctx(options);
    const std::size_t n = 1000;
    const std::vector<float> host = iota_floats(n);
    const auto stream = ctx.native_stream().cuda<CUstream>();
    const auto context = ctx.native_context().cuda<CUcontext>();
    CHECK(ctx.native_device().cuda<CUdevice>() >= 0);
    CHECK(ctx.native_queue().value() == ctx.native_stream().value());
    REQUIRE(api.cuCtxPushCurrent(context) == CUDA_SUCCESS);

    SUBCASE("a vector's CUdeviceptr read on the context's stream after the pending statements") {
        loom::vector<float> x(ctx, host);
        loom::vector<float> y(ctx, n);
        y = 2.0f * x + 1.0f;
        const auto ptr = y.native_handle().cuda<CUdeviceptr>();
        CHECK(ptr != 0);
        std::vector<float> got(n);
        REQUIRE(api.cuMemcpyDtoHAsync(got.data(), ptr, n * sizeof(float), stream) == CUDA_SUCCESS);
        REQUIRE(api.cuStreamSynchronize(stream) == CUDA_SUCCESS);
        for (std::size_t i = 0; i < n; ++i) CHECK(got[i] == 2.0f * host[i] + 1.0f);
        CHECK_THROWS_AS((void)y.native_handle().opencl<cl_mem>(), loom::error);
    }
    SUBCASE("memory the test allocated, wrapped, computed on and read back") {
        CUdeviceptr mem = 0;
        REQUIRE(api.cuMemAlloc(&mem, n * sizeof(float)) == CUDA_SUCCESS);
        REQUIRE(api.cuMemcpyHtoDAsync(mem, host.data(), n * sizeof(float), stream) == CUDA_SUCCESS);
        REQUIRE(api.cuStreamSynchronize(stream) == CUDA_SUCCESS);
        const std::uint64_t before = loom_memory_in_use(ctx);
        {
            loom::vector<float> w = loom::vector<float>::wrap(ctx, std::uint64_t(mem), n);
            CHECK(loom_memory_in_use(ctx) == before);
            w = w * w;
            CHECK(loom::sum(w) == doctest::Approx(double(n) * (n + 1) * (2 * n + 1) / 6).epsilon(1e-4));
            (void)ctx.native_stream();
            std::vector<float> got(n);
            REQUIRE(api.cuMemcpyDtoHAsync(got.data(), mem, n * sizeof(float), stream) == CUDA_SUCCESS);
            REQUIRE(api.cuStreamSynchronize(stream) == CUDA_SUCCESS);
            for (std::size_t i = 0; i < n; ++i) CHECK(got[i] == host[i] * host[i]);
            const std::string m = error_of([&] { (void)loom::vector<float>::wrap(ctx, std::uint64_t(mem), n + 1); });
            CHECK_MESSAGE(has(m, "fewer than the"), m);
        }
        ctx.finish();
        REQUIRE(api.cuMemFree(mem) == CUDA_SUCCESS);
    }
    SUBCASE("memory wrapped 4 bytes past its allocation's start: maps take the scalar loop, not float4s") {
        CUdeviceptr mem = 0;
        REQUIRE(api.cuMemAlloc(&mem, (n + 1) * sizeof(float)) == CUDA_SUCCESS);
        const CUdeviceptr inside = mem + sizeof(float); // 4 bytes past a 256-byte boundary
        REQUIRE(api.cuMemcpyHtoDAsync(inside, host.data(), n * sizeof(float), stream) == CUDA_SUCCESS);
        REQUIRE(api.cuStreamSynchronize(stream) == CUDA_SUCCESS);
        {
            loom::vector<float> w = loom::vector<float>::wrap(ctx, std::uint64_t(inside), n);
            loom::vector<float> x(ctx, host), y(ctx, n);
            y = 3.0f * w + x; // a misaligned read beside aligned ones
            w = w + 1.0f;     // a misaligned write
            std::vector<float> want_y(n), want_w(n);
            for (std::size_t i = 0; i < n; ++i) {
                want_y[i] = 3.0f * host[i] + host[i];
                want_w[i] = host[i] + 1.0f;
            }
            CHECK(y.to_host() == want_y);
            CHECK(w.to_host() == want_w);
        }
        ctx.finish();
        REQUIRE(api.cuMemFree(mem) == CUDA_SUCCESS);
    }
    SUBCASE("a context over the test's own CUcontext and stream") {
        CUstream own_stream = nullptr;
        REQUIRE(api.cuStreamCreate(&own_stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
        {
            loom::context over = loom::context::from_cuda(context, own_stream);
            CHECK(over.native_stream().cuda<CUstream>() == own_stream);
            CHECK(over.native_context().cuda<CUcontext>() == context);
            loom::vector<float> x(over, host);
            loom::vector<float> y = x - 1.0f;
            CHECK(y.to_host() == iota_floats(n, 0.0f));
        }
        REQUIRE(api.cuStreamDestroy(own_stream) == CUDA_SUCCESS);
        const std::string m = error_of([&] { (void)loom::context::from_cuda(nullptr, nullptr); });
        CHECK_MESSAGE(has(m, "the CUcontext given is null"), m);
    }
    CUcontext popped = nullptr;
    api.cuCtxPopCurrent(&popped);
#endif
}
