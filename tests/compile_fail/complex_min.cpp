// Must not compile: loom::min of complex operands.
#include <loom/loom.hpp>

#include <complex>

void smaller(loom::vector<std::complex<double>>& z) { z = loom::min(z, z); }
