// Store elision; see dead_stores.hpp.
#include "fusion/dead_stores.hpp"

namespace loom::fusion {

std::vector<bool> stores_to_keep(const plan_request& request, std::uint32_t last) {
    std::vector<bool> keep = request.buffer_live;
    for (std::uint32_t s = last + 1; s < request.statements.size(); ++s)
        for (std::uint32_t cls : request.statements[s].slot_buffer)
            if (cls != no_buffer) keep[cls] = true;
    return keep;
}

} // namespace loom::fusion
