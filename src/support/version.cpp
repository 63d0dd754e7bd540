// The compiled library's version (include/loom/version.hpp).
#include "loom/version.hpp"

namespace loom {

const char* version() noexcept { return LOOM_VERSION_STRING; }

} // namespace loom
