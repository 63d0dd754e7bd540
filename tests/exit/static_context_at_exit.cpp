// A program whose context and vectors are statics, ending with a statement still pending: the
// context's last flush runs during static destruction, after statics the library made later
// (the shape registry, the log sink) would have been destroyed. Run under AddressSanitizer in
// CI, where a use after free fails it; the exit status says whether the flush computed right.
#include <loom/loom.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace {

loom::context& ctx() {
    static loom::context c; // made first, destroyed last
    return c;
}

} // namespace

int main() {
    static loom::vector<float> x(ctx(), 1024, 1.5f);
    static loom::vector<float> y(ctx(), 1024);
    y = x * 2.0f + loom::sqrt(x); // a new shape, registered after the context was made
    if (y[3] != 1.5f * 2.0f + std::sqrt(1.5f)) return EXIT_FAILURE; // reads and flushes
    y = x * 3.0f - loom::exp(x); // still pending at exit: the context's last flush runs it
    std::puts("static_context_at_exit: the last statement is left to the context's destruction");
    return EXIT_SUCCESS;
}
