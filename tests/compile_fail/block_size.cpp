// Must not compile: a block of more elements than a work-item holds in registers.
#include <loom/loom.hpp>

void transform(const loom::matrix<float>& x, loom::matrix<float>& y) {
    loom::map_blocks<16, 32>(x, y, [](const loom::block<float, 16, 32>& b) { return b; });
}
