// Must not compile: < on complex vectors (complex numbers are not ordered).
#include <loom/loom.hpp>

#include <complex>

void ordering(loom::vector<std::int32_t>& r, loom::vector<std::complex<float>>& z) { r = z < z; }
