// Rule 3 of fusion: a buffer written in a group is stored only if someone can still
// read it: a live loom::vector, or a statement after the group in the same flush.
#pragma once

#include <vector>

#include "fusion/grouping.hpp"

namespace loom::fusion {

// keep[class] for the group ending at statement `last`.
std::vector<bool> stores_to_keep(const plan_request& request, std::uint32_t last);

} // namespace loom::fusion
