// A whole cache directory at once: which entries it holds, which are damaged, what else lies
// there, and removing entries by age, size, damage or all together. Used by loom-cache and by
// disk_cache's size limit.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cache/disk_cache.hpp"
#include "loom/error.hpp"

namespace loom::cache {

// A cache directory could not be read or changed; loom-cache exits with status 3 for it.
class io_error : public loom::error {
public:
    using loom::error::error;
};

// One entry directory (a 32-hex-digit name) as the file system sees it; no file is opened.
struct entry_on_disk {
    std::string hex;
    std::filesystem::path path;
    std::uint64_t bytes = 0;                   // all of the entry's files
    std::filesystem::file_time_type last_used; // mtime of meta.json, which load() touches
};

// Entry directories in `dir` that Loom wrote (written_by_loom), least recently used first: what
// prune, clear and the size limit may remove. A missing directory has none. Throws io_error
// when the directory cannot be read.
std::vector<entry_on_disk> list_entries(const std::filesystem::path& dir);

// Staging and removal areas of writers that died mid-way: older than this, nobody owns them.
inline constexpr std::chrono::hours leftover_age{1};

struct inventory {
    struct good_entry {
        entry_on_disk files;
        stored_entry meta;
    };
    struct bad_entry {
        entry_on_disk files;
        std::string problem;
    };
    struct foreign_item {
        std::filesystem::path path;
        std::string problem; // for an entry's name: why it is not Loom's; else empty
    };
    std::filesystem::path dir;
    bool dir_exists = false;
    std::vector<good_entry> good;                 // complete, every checksum holds
    std::vector<bad_entry> bad;                   // an entry Loom wrote, damaged since (removable)
    std::vector<std::filesystem::path> leftovers; // Loom's staging or removal areas older than leftover_age
    std::vector<foreign_item> foreign;            // anything else, entry names included: never touched

    std::uint64_t total_bytes() const;
};

// Reads and checks every entry (metadata, files, checksums). Throws io_error.
inventory take_inventory(const std::filesystem::path& dir);

struct prune_result {
    std::vector<entry_on_disk> removed;
    std::uint64_t removed_bytes = 0;
    std::size_t kept_entries = 0;
    std::uint64_t kept_bytes = 0;
};

// Removes entries not used for `older_than`, then least-recently-used entries until the rest
// fit in `max_bytes`. Throws io_error when the directory cannot be read or an entry removed.
prune_result prune(const std::filesystem::path& dir, std::optional<std::uint64_t> max_bytes,
                   std::optional<std::chrono::seconds> older_than);

// Removes every entry and every leftover Loom wrote; keeps the directory and what is not Loom's.
// Returns the number of entries removed. Throws io_error.
std::size_t clear(const std::filesystem::path& dir);

// Removes the damaged entries and the leftovers an inventory found. Throws io_error.
void remove_damage(const inventory& inv);

// "90s", "45m", "12h", "30d", "2w" -> seconds; nullopt if malformed.
std::optional<std::chrono::seconds> parse_duration(std::string_view text);

} // namespace loom::cache
