// Every kernel the expression suite generates, compiled once more for CUDA with NVRTC
// (sm_80 and sm_90), so that the CUDA emitter is checked wherever NVRTC is installed,
// with no GPU. A kernel observer collects the IR while the suite runs on OpenCL; the
// test case below compiles it all. Its name starts with "after_suite:", so the test main runs
// it after every other test case (tests/main.cpp), whatever the file names.
#ifdef LOOM_HAVE_CUDA

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "backend/cuda/cuda_device.hpp"
#include "backend/cuda/nvrtc_compile.hpp"
#include "codegen/emit.hpp"
#include "ir/source_function.hpp"
#include "runtime/kernel_observer.hpp"

namespace {

struct collected_kernels {
    std::mutex lock;
    std::set<std::string> sources;   // emitted CUDA bodies: equal kernels compile once
    std::vector<std::string> errors; // the emitter itself threw
};

collected_kernels& collected() {
    static collected_kernels c;
    return c;
}

// Registered before main, so it sees every plan of every test case.
const bool observing = [] {
    loom::detail::set_kernel_observer([](const loom::ir::kernel& k) {
        // A test's source function made not to compile (named does_not_compile...) fails here too.
        for (const loom::ir::node& n : k.body)
            if (n.op == loom::opcode::call &&
                loom::ir::source_function_of(n.slot).name.rfind("does_not_compile", 0) == 0)
                return;
        collected_kernels& c = collected();
        try {
            // The form the suite's device ran, and the GPU form a CUDA device runs.
            loom::ir::kernel on_gpu = k;
            on_gpu.form = loom::ir::map_form::grid_stride;
            // Bodies: each kernel's own name tells it from the others in a batch (kernel_source.hpp).
            std::string source = loom::codegen::emit(k, loom::codegen::cuda_dialect()).body;
            std::string gpu_source = loom::codegen::emit(on_gpu, loom::codegen::cuda_dialect()).body;
            std::lock_guard<std::mutex> guard(c.lock);
            c.sources.insert(std::move(source));
            c.sources.insert(std::move(gpu_source));
        } catch (const std::exception& e) {
            std::lock_guard<std::mutex> guard(c.lock);
            c.errors.push_back(e.what());
        }
    });
    return true;
}();

// The suite's kernels were compiled by NVRTC already when it ran on a CUDA device.
bool suite_runs_on_cuda() {
    const char* backend = std::getenv("LOOM_BACKEND");
    const std::string b = backend ? backend : "";
    if (b == "cuda") return true;
    if (b == "opencl") return false;
    return loom::backend::cuda_device_present(); // auto prefers CUDA
}

} // namespace

TEST_CASE("after_suite: nvrtc_compiles_every_kernel_the_expression_suite_generated") {
    REQUIRE(observing);
    loom::detail::set_kernel_observer(nullptr);
    if (suite_runs_on_cuda()) {
        MESSAGE("the suite ran on CUDA: its kernels were compiled by NVRTC as it went");
        return;
    }
    collected_kernels& c = collected();
    for (const std::string& e : c.errors) FAIL_CHECK("the CUDA emitter threw: ", e);

    // NVRTC's fixed cost per program dominates small kernels, so kernels are compiled in
    // batches, several to a program: each is named after its own text, so their names differ.
    // A batch that fails is compiled again one kernel at a time, to report exactly which
    // kernel and why.
    const std::vector<std::string> sources(c.sources.begin(), c.sources.end());
    const std::size_t per_batch = 8;
    struct job {
        std::size_t first, last; // sources[first, last)
        int arch;
        std::vector<std::string> failures;
    };
    std::vector<job> jobs;
    for (std::size_t first = 0; first < sources.size(); first += per_batch)
        for (int arch : {80, 90}) jobs.push_back({first, std::min(first + per_batch, sources.size()), arch, {}});

    auto compile = [](const std::string& source, int arch) -> std::string {
        try {
            const auto out = loom::backend::cuda::nvrtc_compile(source, arch);
            if (out.kind == "cubin" && !out.binary.empty()) return {};
            return "no cubin came out (" + out.target + ")";
        } catch (const std::exception& e) {
            const auto* b = dynamic_cast<const loom::backend::build_failure*>(&e);
            return std::string(e.what()) + "\n" + (b ? b->log : std::string());
        }
    };
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t j; (j = next++) < jobs.size();) {
            job& b = jobs[j];
            std::string batch;
            for (std::size_t k = b.first; k < b.last; ++k) batch += sources[k];
            if (compile(batch, b.arch).empty()) continue;
            for (std::size_t k = b.first; k < b.last; ++k) {
                const std::string failure = compile(sources[k], b.arch);
                if (!failure.empty()) b.failures.push_back(failure + "\nsource:\n" + sources[k]);
            }
            if (b.failures.empty())
                b.failures.push_back("a batch failed while each of its kernels compiles alone:\n" + batch);
        }
    };
    std::vector<std::thread> threads;
    const unsigned workers = std::min(4u, std::max(2u, std::thread::hardware_concurrency()));
    for (unsigned w = 1; w < workers; ++w) threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();

    std::size_t failed = 0;
    for (const job& j : jobs)
        for (const std::string& f : j.failures) {
            ++failed;
            FAIL_CHECK("NVRTC rejected a kernel for sm_", j.arch, ": ", f);
        }
    MESSAGE("NVRTC compiled the ", sources.size(), " distinct kernels of the expression suite for sm_80 and sm_90 (",
            jobs.size(), " programs; ", failed, " failures)");
    CHECK(failed == 0);
}

#endif // LOOM_HAVE_CUDA
