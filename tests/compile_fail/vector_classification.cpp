// Must not compile: isnan of a short vector (one answer per component, as a comparison would give).
#include <loom/loom.hpp>

void classify(loom::vector<std::int32_t>& r, loom::vector<loom::float4>& a) { r = loom::isnan(a); }
