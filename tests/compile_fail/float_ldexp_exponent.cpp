// Must not compile: ldexp with a floating-point exponent (std::ldexp takes an int).
#include <loom/loom.hpp>

void scale(loom::vector<double>& x, loom::vector<float>& e) { x = loom::ldexp(x, e); }
