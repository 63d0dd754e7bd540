// Byte counts as the tools print them: "512 B", "1.5 KiB", "7.2 GiB".
#pragma once

#include <cstdint>
#include <cstdio>
#include <iterator>
#include <string>

namespace loom::tools {

inline std::string human_bytes(std::uint64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = double(bytes);
    unsigned unit = 0;
    while (value >= 1024 && unit + 1 < std::size(units)) {
        value /= 1024;
        ++unit;
    }
    char text[32];
    if (unit == 0)
        std::snprintf(text, sizeof text, "%llu B", static_cast<unsigned long long>(bytes));
    else
        std::snprintf(text, sizeof text, "%.1f %s", value, units[unit]);
    return text;
}

} // namespace loom::tools
