// The CUDA backend where no GPU is needed: NVRTC compiles what the emitter writes (for
// every opcode and element type, through the planner), build failures carry NVRTC's log,
// and without an NVIDIA driver LOOM_BACKEND=cuda says which part is missing while
// OpenCL keeps working.
#ifdef LOOM_HAVE_CUDA

#include <doctest/doctest.h>
#include <loom/loom.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/driver_api.hpp"
#include "backend/cuda/nvrtc_compile.hpp"
#include "codegen/emit.hpp"
#include "fusion/plan.hpp"
#include "ir/op_table.hpp"
#include "ir/promotion.hpp"
#include "ir/shape.hpp"
#include "loom/detail/shape_builder.hpp"

namespace {

using loom::dtype;
using loom::opcode;
using loom::backend::build_failure;
using loom::backend::cuda::nvrtc_compile;

// Decided before any test can load a library named libcuda.so.1 (the stub test does).
const bool driver_loadable = [] {
    void* h = dlopen(loom::backend::cuda::driver_library, RTLD_LAZY | RTLD_LOCAL);
    if (h) dlclose(h);
    return h != nullptr;
}();

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

bool is_elf(const std::vector<unsigned char>& b) {
    return b.size() > 4 && b[0] == 0x7F && b[1] == 'E' && b[2] == 'L' && b[3] == 'F';
}

const dtype element_types[] = {dtype::i8,  dtype::i16, dtype::i32, dtype::i64, dtype::u8,
                               dtype::u16, dtype::u32, dtype::u64, dtype::f32, dtype::f64};

// One statement per opcode (and per cast target) that applies to operands of type t,
// `out_k = op(x, y, z)` with x, y, z vectors of type t, planned as one fused program.
loom::fusion::kernel_plan every_operation_on(dtype t) {
    loom::fusion::plan_request request;
    request.buffer_types = {t, t, t};
    // One kernel per type keeps NVRTC's start-up cost to a few runs.
    request.limits.max_parameters = 1024;
    request.limits.max_statements = 1024;
    auto add = [&](loom::detail::shape_builder& b, loom::detail::node_ref root) {
        dtype target = b.type_of(root);
        if (target == dtype::boolean) target = dtype::i32; // comparisons are stored in integer vectors
        loom::fusion::planned_statement st;
        st.shape = b.finish_assignment(root, target);
        st.slot_buffer = {0, 1, 2};
        st.target = std::uint32_t(request.buffer_types.size());
        request.buffer_types.push_back(target);
        request.statements.push_back(st);
    };
    for (int o = int(opcode::cast) + 1; o < int(opcode::count_); ++o) {
        loom::detail::shape_builder b;
        const auto x = b.vector_slot(t), y = b.vector_slot(t), z = b.vector_slot(t);
        // On integer operands a math function is the double one after a conversion: two
        // stand for all (the f64 kernel compiles every one), which keeps ptxas quick.
        const bool math = loom::ir::info(opcode(o)).cls == loom::ir::op_class::float_math;
        if (math && !loom::ir::is_float(t) && opcode(o) != opcode::sqrt && opcode(o) != opcode::pow) continue;
        loom::detail::node_ref root;
        try {
            const unsigned arity = loom::ir::info(opcode(o)).arity;
            root = arity == 1   ? b.apply(opcode(o), x)
                   : arity == 2 ? b.apply(opcode(o), x, y)
                                : b.apply(opcode(o), x, y, z);
        } catch (const loom::error&) {
            continue; // not defined for this type (a bit operation on float, say)
        }
        add(b, root);
    }
    for (dtype to : element_types) {
        loom::detail::shape_builder b;
        const auto x = b.vector_slot(t);
        b.vector_slot(t);
        b.vector_slot(t);
        add(b, b.cast(to, x));
    }
    {
        loom::detail::shape_builder b;
        const auto x = b.vector_slot(t);
        b.vector_slot(t);
        b.vector_slot(t);
        add(b, b.apply(opcode::add, b.index(), x));
    }
    request.buffer_live.assign(request.buffer_types.size(), true);
    return loom::fusion::plan_kernels(request);
}

} // namespace

TEST_CASE("nvrtc_compiles_every_operation_on_every_element_type_for_sm_80_and_sm_90") {
    struct job {
        std::string label, source;
        int arch;
        std::string failure; // empty: a cubin for sm_<arch> came out
    };
    std::vector<job> jobs;
    std::size_t statements = 0;
    for (dtype t : element_types)
        for (const loom::fusion::kernel_group& g : every_operation_on(t).groups) {
            statements += g.last - g.first + 1;
            const std::string source = loom::codegen::emit(g.kernel, loom::codegen::cuda_dialect()).text();
            for (int arch : {80, 90}) jobs.push_back({loom::name_of(t), source, arch, {}});
        }
    // NVRTC compiles independent programs concurrently; ptxas dominates on these kernels.
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t j; (j = next++) < jobs.size();) {
            try {
                const auto out = nvrtc_compile(jobs[j].source, jobs[j].arch);
                if (out.kind != "cubin" || out.target != "sm_" + std::to_string(jobs[j].arch) || !is_elf(out.binary))
                    jobs[j].failure = "no sm_" + std::to_string(jobs[j].arch) + " cubin (got " + out.kind + " for " +
                                      out.target + ")";
            } catch (const std::exception& e) {
                const auto* b = dynamic_cast<const build_failure*>(&e);
                jobs[j].failure = std::string(e.what()) + "\n" + (b ? b->log : std::string());
            }
        }
    };
    std::vector<std::thread> threads;
    const unsigned workers = std::min(4u, std::max(2u, std::thread::hardware_concurrency()));
    for (unsigned w = 1; w < workers; ++w) threads.emplace_back(work);
    work();
    for (std::thread& th : threads) th.join();

    for (const job& j : jobs) {
        INFO(j.label, " sm_", j.arch, "\n", j.source);
        CHECK_MESSAGE(j.failure.empty(), j.failure);
    }
    MESSAGE("NVRTC compiled ", jobs.size() / 2, " kernels holding ", statements, " statements, for sm_80 and sm_90");
    CHECK(statements > 300);
}

TEST_CASE("nvrtc_ptx_names_the_entry_point_and_keeps_multiply_add_unfused") {
    // y = a * x + y: with --fmad=false the product is rounded before the sum, like the
    // unfused statements and the host.
    loom::detail::shape_builder b;
    const auto a = b.scalar_slot(dtype::f32), x = b.vector_slot(dtype::f32), y = b.vector_slot(dtype::f32);
    loom::fusion::plan_request request;
    request.buffer_types = {dtype::f32, dtype::f32};
    request.buffer_live = {true, true};
    loom::fusion::planned_statement st;
    st.shape = b.finish_assignment(b.apply(opcode::add, b.apply(opcode::mul, a, x), y), dtype::f32);
    st.slot_buffer = {loom::fusion::no_buffer, 0, 1};
    st.target = 1;
    request.statements.push_back(st);
    const auto plan = loom::fusion::plan_kernels(request);
    REQUIRE(plan.groups.size() == 1);
    const loom::codegen::kernel_source kernel =
        loom::codegen::emit(plan.groups[0].kernel, loom::codegen::cuda_dialect());
    const std::string source = kernel.text();

    const auto out = nvrtc_compile(source, 80, false);
    CHECK(out.kind == "ptx");
    CHECK(out.target == "compute_80");
    REQUIRE(!out.binary.empty());
    CHECK(out.binary.back() == 0); // the driver needs NUL-terminated PTX
    const std::string ptx(reinterpret_cast<const char*>(out.binary.data()));
    CHECK(contains(ptx, ".entry " + kernel.name + "(")); // extern "C": the name as it was written
    CHECK(contains(ptx, ".target sm_80"));
    CHECK(contains(ptx, "mul.rn.f32"));
    CHECK_FALSE(contains(ptx, "fma.rn.f32"));
}

TEST_CASE("nvrtc_build_failure_carries_the_nvrtc_log") {
    const std::string broken = "extern \"C\" __global__ void loom_kernel(float* p0, unsigned long long n) {\n"
                               "    p0[0] = no_such_variable;\n}\n";
    try {
        nvrtc_compile(broken, 80);
        FAIL("NVRTC accepted a broken kernel");
    } catch (const build_failure& e) {
        CHECK(contains(e.what(), "NVRTC"));
        CHECK(contains(e.what(), "sm_80"));
        CHECK(contains(e.what(), "NVRTC_ERROR_COMPILATION"));
        CHECK(contains(e.log, "no_such_variable"));
        CHECK(contains(e.log, "error"));
    }
}

TEST_CASE("nvrtc_gives_ptx_for_architectures_it_does_not_know_and_refuses_older_ones") {
    const auto& archs = loom::backend::cuda::nvrtc_architectures();
    REQUIRE(!archs.empty());
    const std::string source =
        "extern \"C\" __global__ void loom_kernel(float* p0, unsigned long long n) {\n"
        "    for (unsigned long long i = threadIdx.x; i < n; i += blockDim.x) p0[i] = 2.0f * p0[i];\n}\n";
    // A GPU newer than this NVRTC: PTX for the newest architecture it knows, which the driver JITs.
    const auto newer = nvrtc_compile(source, archs.back() + 10);
    CHECK(newer.kind == "ptx");
    CHECK(newer.target == "compute_" + std::to_string(archs.back()));
    CHECK(loom::backend::cuda::nvrtc_target(archs.back() + 10).empty() == false);
    // Older than every architecture it supports: a clear refusal.
    CHECK(loom::backend::cuda::nvrtc_target(archs.front() - 1).empty());
    try {
        nvrtc_compile(source, archs.front() - 1);
        FAIL("NVRTC compiled for an architecture it does not support");
    } catch (const build_failure& e) {
        CHECK(contains(e.what(), "cannot compile for compute capability"));
        CHECK(contains(e.what(), "sm_" + std::to_string(archs.front())));
    }
}

TEST_CASE("cuda_backend_without_a_driver_names_the_missing_driver_and_opencl_still_runs") {
    if (driver_loadable) {
        // A machine with the NVIDIA driver: presence and context creation agree.
        loom::context_options cuda;
        cuda.backend = "cuda";
        if (loom::backend::cuda_device_present()) {
            CHECK(loom::context(cuda).backend_name() == "cuda");
        } else {
            CHECK(contains(loom::backend::cuda_absence_reason(), "0 CUDA devices"));
            CHECK_THROWS_AS(loom::context{cuda}, loom::error);
        }
        return;
    }
    CHECK_FALSE(loom::backend::cuda_device_present());
    const std::string reason = loom::backend::cuda_absence_reason();
    CHECK(contains(reason, "libcuda.so.1"));
    CHECK(contains(reason, "not loadable"));

    // LOOM_BACKEND=cuda from the environment, as a user sets it.
    const char* saved = std::getenv("LOOM_BACKEND");
    const std::string saved_value = saved ? saved : "";
    setenv("LOOM_BACKEND", "cuda", 1);
    std::string message;
    try {
        loom::context ctx;
    } catch (const loom::error& e) {
        message = e.what();
    }
    if (saved)
        setenv("LOOM_BACKEND", saved_value.c_str(), 1);
    else
        unsetenv("LOOM_BACKEND");
    CHECK(contains(message, "LOOM_BACKEND=cuda"));
    CHECK(contains(message, "libcuda.so.1 is not loadable"));
    CHECK(contains(message, "no NVIDIA driver is installed"));
    CHECK(contains(message, "LOOM_BACKEND=opencl"));

    // auto falls back to OpenCL, which runs.
    loom::context_options automatic;
    automatic.backend = "auto";
    loom::context ctx(automatic);
    CHECK(ctx.backend_name() == "opencl");
    loom::vector<float> x(ctx, std::vector<float>{1.0f, 2.0f, 3.0f});
    loom::vector<float> y(ctx, 3);
    y = 2.0f * x + 1.0f;
    CHECK(y.to_host() == std::vector<float>{3.0f, 5.0f, 7.0f});
}

TEST_CASE("cuda_driver_loader_resolves_every_function_and_reports_a_missing_library") {
    // Fix the process's own driver lookup before a library named libcuda.so.1 is loaded here.
    (void)loom::backend::cuda_device_present();
    try {
        loom::backend::cuda::load_driver("/nonexistent/libcuda.so.1");
        FAIL("a missing driver library loaded");
    } catch (const loom::error& e) {
        CHECK(contains(e.what(), "/nonexistent/libcuda.so.1 is not loadable"));
    }
#ifdef LOOM_CUDA_STUB_DRIVER
    // The toolkit's link stub exports every driver function under cuda.h's names (the _v2
    // ones included); its cuInit answers CUDA_ERROR_STUB_LIBRARY.
    const auto api = loom::backend::cuda::load_driver(LOOM_CUDA_STUB_DRIVER);
    REQUIRE(api);
    CHECK(bool(api->cuMemAlloc));
    CHECK(bool(api->cuLaunchKernel));
    if (!driver_loadable) {
        const CUresult r = api->cuInit(0);
        CHECK(r == CUDA_ERROR_STUB_LIBRARY);
        // The stub cannot name its own results: the number still reaches the message.
        MESSAGE("stub cuInit: ", loom::backend::cuda::result_text(*api, r));
        CHECK(contains(loom::backend::cuda::result_text(*api, r), "34"));
    }
#else
    MESSAGE("the CUDA toolkit's stub libcuda.so was not found; symbol names not checked");
#endif
}

#endif // LOOM_HAVE_CUDA
