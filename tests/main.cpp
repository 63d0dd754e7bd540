// The doctest main shared by every test executable. A run with LOOM_BACKEND=cuda (the
// expr_cuda ctest entry) exits 77, which ctest reports as skipped, when there is no
// CUDA device to run on, and says why.
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
    doctest::Context context;
    context.applyCommandLine(argc, argv);
    return context.run();
}
