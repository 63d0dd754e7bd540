// Must not compile: a uniform draw of an integer type (random_bits gives integers).
#include <loom/loom.hpp>

void draw(loom::vector<int>& x) { x = loom::random_uniform<int>(7); }
