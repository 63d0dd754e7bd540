// Must compile as C++20: there, argument-dependent lookup also finds function templates called
// with explicit template arguments, so `cast<int>(x * 2.0)` reaches loom::cast unqualified (C++17
// needs loom::cast<int> or `using namespace loom;`, docs/coming-from.md).
#include <loom/loom.hpp>

void cxx20_unqualified_cast(loom::vector<double>& x, loom::vector<int>& y) {
    y = cast<int>(x * 2.0) + cast<int>(loom::index()) + cast<int>(sin(x));
}
