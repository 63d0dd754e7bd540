// The device of a context over several devices (docs/multi-device.md). Such a context runs
// nothing itself: each of its parts is a one-device context, and what runs across the parts
// (element-wise statements, reductions, transfers) is routed to them before any device is
// touched. Its own device stands in for the members a context is built with, and refuses every
// operation with a loom::error, so a call that does not yet run across parts stops with a
// message instead of running on a device that holds none of the data.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/device.hpp"

namespace loom::detail {

// `info` describes the parts together (their names joined, fp64 where every part has it).
// `first` is the first part's device, whose dialect and options planners may read.
std::unique_ptr<backend::device> make_parts_device(backend::device_info info, const backend::device& first,
                                                   std::size_t parts);

// The message of the refusal, for `what` ("this operation" when null).
std::string needs_one_device(const char* what, std::size_t parts);

} // namespace loom::detail
