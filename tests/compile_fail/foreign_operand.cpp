// Must not compile: a std::vector is no operand of a device expression.
#include <loom/loom.hpp>

#include <vector>

void foreign(loom::vector<float>& x, const std::vector<float>& host) { x = x + host; }
