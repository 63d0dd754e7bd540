// The parameter wall removed: a kernel with more parameters than the device takes passes its
// last scalars in one packed buffer instead of splitting (plan_request::pack_scalars).
#pragma once

#include <cstdint>

#include "fusion/plan.hpp"

namespace loom::fusion {

// Marks scalar parameters of g, from the last, as packed until the remaining arguments and
// the packed buffer fit in max_parameters. Grouping has kept the buffers within the limit.
void pack_scalars(kernel_group& g, std::uint32_t max_parameters);

} // namespace loom::fusion
