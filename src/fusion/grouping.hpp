// Rule 1 of fusion: which consecutive statements share a kernel.
#pragma once

#include <vector>

#include "fusion/plan.hpp"

namespace loom::fusion {

struct group_bounds {
    std::uint32_t first, last;
    boundary reason;
    std::uint32_t reason_buffer = no_buffer;
    std::uint32_t reason_statement = 0;
};

std::vector<group_bounds> group_statements(const plan_request& request);

} // namespace loom::fusion
