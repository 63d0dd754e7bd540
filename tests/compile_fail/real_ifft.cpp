// Must not compile: loom::ifft of a real vector (a half spectrum is inverted by loom::ifft_real).
#include <loom/loom.hpp>

void invert(const loom::vector<float>& r) { loom::ifft(r); }
