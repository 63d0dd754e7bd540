// Must not compile: a traced block value tested on the host (if), where loom::where chooses.
#include <loom/loom.hpp>

void transform(const loom::matrix<float>& x, loom::matrix<float>& y) {
    loom::map_blocks<4, 4>(x, y, [](const loom::block<float, 4, 4>& b) {
        loom::block<float, 4, 4> out = b;
        if (b(0, 0) > 0.0f) out(0, 0) = b(1, 1);
        return out;
    });
}
