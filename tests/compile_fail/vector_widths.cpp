// Must not compile: a float2 with a float4 (no common width).
#include <loom/loom.hpp>

void widths(loom::vector<loom::float4>& r, loom::vector<loom::float2>& a, loom::vector<loom::float4>& b) { r = a + b; }
