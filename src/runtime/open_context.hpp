// Making a context's state over a device, for every way a context is made (context.cpp defines it):
// the options and the environment are read before the device is opened, and the context joins
// the ones loom::finish() runs.
#pragma once

#include <functional>
#include <memory>

#include "backend/device.hpp"
#include "loom/context.hpp"

namespace loom::detail {

// `open` opens the device, with profiling on or off as the settings say.
context_ptr open_context(const context_options& options,
                         const std::function<std::unique_ptr<backend::device>(bool profiling)>& open);

} // namespace loom::detail
