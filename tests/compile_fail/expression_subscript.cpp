// Must not compile: an expression is computed element by element and has no subscript.
#include <loom/loom.hpp>

void subscript(loom::vector<float>& x, loom::vector<float>& y) { y = (x + y)[3]; }
