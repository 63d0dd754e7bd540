// Loom's functions called unqualified under `using namespace loom;` (unqualified_calls.hpp).
#include <loom/loom.hpp>

using namespace loom; // NOLINT(google-build-using-namespace): what the test is about

#include "unqualified_calls.hpp"

TEST_CASE("every Loom function resolves unqualified under using namespace loom") {
    unqualified::check_unqualified_calls();
}
