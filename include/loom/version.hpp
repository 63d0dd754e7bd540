// Loom's version. CMake reads the project version from the three macros below, so this file is
// the one place it is written; loom::version() gives the compiled library's, which a program
// can compare with the headers' LOOM_VERSION_STRING.
#pragma once

#define LOOM_VERSION_MAJOR 0
#define LOOM_VERSION_MINOR 2
#define LOOM_VERSION_PATCH 0
#define LOOM_VERSION_STRING "0.2.0"
// One number that grows with every release: major * 10000 + minor * 100 + patch.
#define LOOM_VERSION (LOOM_VERSION_MAJOR * 10000 + LOOM_VERSION_MINOR * 100 + LOOM_VERSION_PATCH)

namespace loom {
// The version of the compiled library ("major.minor.patch").
const char* version() noexcept;
} // namespace loom
