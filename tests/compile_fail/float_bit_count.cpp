// Must not compile: popcount of a float vector (bit counts take integers of 8 to 64 bits).
#include <loom/loom.hpp>

void bits(loom::vector<float>& x, loom::vector<int>& n) { n = loom::popcount(x * 2.0f); }
