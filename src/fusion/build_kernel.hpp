// Rule 2 of fusion: one group of statements becomes one kernel body.
#pragma once

#include <vector>

#include "fusion/grouping.hpp"

namespace loom::fusion {

// Merges the group's statements into one kernel: a read of a buffer written earlier in
// the group takes the value from a register, every other buffer is loaded once, and
// equal sub-expressions become one node (the node list hash-conses). A written buffer
// is stored once, with its last value, when keep[class] is set, and reported elided
// otherwise.
kernel_group build_kernel(const plan_request& request, const group_bounds& bounds, const std::vector<bool>& keep);

} // namespace loom::fusion
