// A context's settings, read once when it is made (context_options, else the environment).
#pragma once

#include <optional>

#include "ir/kernel.hpp"

namespace loom::detail {

struct context_settings {
    bool fusion = true;               // LOOM_FUSION
    bool fp_contract = false;         // LOOM_FP_CONTRACT: plans use the contracted form of each statement's shape
    bool tune = false;                // LOOM_TUNE: a kernel's first large launch measures its geometries (map_tuning.cpp)
    std::optional<ir::map_form> form; // LOOM_KERNEL_FORM, else the device's (launch::map_form_for)
};

} // namespace loom::detail
