// Must not compile: loom::cast from complex to a real type (the message points to loom::real).
#include <loom/loom.hpp>

#include <complex>

void narrowed(loom::vector<float>& x, loom::vector<std::complex<float>>& z) { x = loom::cast<float>(z); }
