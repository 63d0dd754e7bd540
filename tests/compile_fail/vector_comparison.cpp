// Must not compile: < on short vectors (OpenCL C gives a mask per component, C++ no meaning).
#include <loom/loom.hpp>

void compare(loom::vector<std::int32_t>& r, loom::vector<loom::float4>& a) { r = a < a; }
