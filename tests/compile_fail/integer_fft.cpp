// Must not compile: loom::fft of an integer vector.
#include <loom/loom.hpp>

#include <cstdint>

auto spectrum(const loom::vector<std::int32_t>& x) { return loom::fft(x); }
