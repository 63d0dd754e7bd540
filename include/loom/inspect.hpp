// What the last flush of a context did: its kernels, which statements each holds, what
// it loaded, stored and elided, and why each kernel ends. For tests and for tools.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "loom/context.hpp"

namespace loom {

struct kernel_report {
    std::uint32_t first_statement = 0, last_statement = 0; // statement numbers within the flush
    std::string ends;                                      // boundary name, as the fusion log prints it
    std::uint32_t loads = 0, stores = 0, elided = 0;       // buffers
    std::uint32_t parameters = 0;
    // The kernel is a reduction's first pass, which also runs these statements (map-reduce
    // fusion); `ends` is "reduction".
    bool in_reduction = false;
};

struct flush_report {
    std::uint32_t statements = 0;
    std::vector<kernel_report> kernels;
};

// The plan of the context's most recent flush that ran statements.
flush_report last_flush(const context& ctx);

} // namespace loom
