// Must not compile: % on a float vector (the message points to loom::fmod).
#include <loom/loom.hpp>

void remainder(loom::vector<float>& x) { x = x % 2.0f; }
