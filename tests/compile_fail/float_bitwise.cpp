// Must not compile: & and << on a double expression.
#include <loom/loom.hpp>

void bits(loom::vector<double>& x, loom::vector<int>& i) { i = (x * 2.0) & i; }
