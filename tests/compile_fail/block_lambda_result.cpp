// Must not compile: a block lambda that returns one value instead of a block.
#include <loom/loom.hpp>

void transform(const loom::matrix<float>& x, loom::matrix<float>& y) {
    loom::map_blocks<4, 4>(x, y, [](const loom::block<float, 4, 4>& b) { return b(0, 0) * 2.0f; });
}
