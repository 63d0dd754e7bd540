// Storage for the test-only kernel observer.
#include "runtime/kernel_observer.hpp"

namespace loom::detail {
namespace {
kernel_observer& slot() {
    static kernel_observer& o = *new kernel_observer; // never destroyed: a static context flushes at exit
    return o;
}
} // namespace

void set_kernel_observer(kernel_observer observer) { slot() = std::move(observer); }
const kernel_observer& current_kernel_observer() { return slot(); }

} // namespace loom::detail
