// Must not compile: <cmath> functions take host numbers, not Loom vectors or expressions.
#include <loom/loom.hpp>

#include <cmath>

void std_math(loom::vector<float>& x, loom::vector<float>& y) { y = std::sin(x) + std::exp(x * 2.0f); }
