// The doctest main shared by every test executable. A run with LOOM_BACKEND=cuda (the
// expr_cuda ctest entry) exits 77, which ctest reports as skipped, when there is no
// CUDA device to run on, and says why.
// Test cases named "after_suite: ..." look at what the others did (every kernel they generated,
// say): an unfiltered run runs them last, in a second pass. A run given its own test-case or
// file filters runs exactly what they select, in doctest's order.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#ifdef LOOM_HAVE_CUDA
namespace loom::backend {
// From src/backend/cuda/cuda_device.hpp (this file is built without src/ on its include path).
bool cuda_device_present();
std::string cuda_absence_reason();
} // namespace loom::backend
#endif

namespace {

// Empty when the run can go ahead.
std::string skip_reason() {
    const char* backend = std::getenv("LOOM_BACKEND");
    if (!backend || std::string(backend) != "cuda") return {};
#ifdef LOOM_HAVE_CUDA
    if (loom::backend::cuda_device_present()) return {};
    return loom::backend::cuda_absence_reason();
#else
    return "this Loom is built without the CUDA backend (LOOM_WITH_CUDA=OFF, or no CUDA toolkit at configure time)";
#endif
}

} // namespace

int main(int argc, char** argv) {
    const std::string reason = skip_reason();
    if (!reason.empty()) {
        std::printf("SKIPPED: LOOM_BACKEND=cuda but %s\n", reason.c_str());
        return 77;
    }
    bool filtered = false;
    for (int a = 1; a < argc; ++a) {
        const std::string arg = argv[a];
        for (const char* f : {"-tc", "--test-case", "-sf", "--source-file", "-ts", "--test-suite"})
            filtered = filtered || arg.rfind(std::string(f) + "=", 0) == 0;
    }
    doctest::Context suite;
    suite.applyCommandLine(argc, argv);
    if (filtered) return suite.run();
    suite.addFilter("test-case-exclude", "after_suite:*");
    const int rc = suite.run();
    if (suite.shouldExit()) return rc;
    doctest::Context after;
    after.applyCommandLine(argc, argv);
    after.addFilter("test-case", "after_suite:*");
    const int after_rc = after.run();
    return rc != 0 ? rc : after_rc;
}
