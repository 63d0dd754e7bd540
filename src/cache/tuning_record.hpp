// The tuned launch geometry of one kernel cache entry: <entry>/tuning.json. Tuning happens at a
// kernel's first large launch, after the entry was stored, so the record is a file of its own,
// written by temp file + rename; it names its entry's key, and a missing, unreadable, corrupt
// or foreign record is no record (the kernel launches with the default geometry).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace loom::cache {

inline constexpr const char* tuning_file_name = "tuning.json";

struct tuning_record {
    // The kernel's form: "chunked", "grid_stride", or "grid_rows" (a grid kernel launched on
    // rows in a non-chunked form: the choice is its group's shape, 0 the default one).
    std::string form;
    std::uint32_t choice = 0;   // the winning launch::geometry_choice value
    std::uint64_t elements = 0; // the launch it was measured on
    // Every candidate tried and its median time in microseconds, the default first.
    std::vector<std::pair<std::uint32_t, double>> measured;
};

// The record in entry_dir if it is whole and names `hex`; never throws.
std::optional<tuning_record> read_tuning(const std::filesystem::path& entry_dir, const std::string& hex);
// Writes the record into entry_dir atomically; empty on success, else why not. Never throws.
std::string write_tuning(const std::filesystem::path& entry_dir, const std::string& hex, const tuning_record& r);
// One line for people: "chunked, 8 work-items per compute unit (of 2, 4, 8, 16, 32: 2.41 ms ...)".
std::string describe(const tuning_record& r);

} // namespace loom::cache
