// Listing, checking and pruning a cache directory; see cache_inventory.hpp.
#include "cache/cache_inventory.hpp"

#include <algorithm>
#include <string_view>
#include <tuple>

namespace loom::cache {
namespace fs = std::filesystem;

namespace {

bool all_digits(std::string_view text) {
    return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// A staging or removal area as disk_cache names them: .tmp-<key>-<pid>-<n> or .trash-<key>-<pid>-<n>,
// a directory. Anything else with a dot is somebody else's.
bool is_leftover(const fs::path& path, const std::string& name) {
    std::string_view rest = name;
    if (rest.rfind(".tmp-", 0) == 0)
        rest.remove_prefix(5);
    else if (rest.rfind(".trash-", 0) == 0)
        rest.remove_prefix(7);
    else
        return false;
    if (rest.size() < 33 || !key_from_hex(rest.substr(0, 32)) || rest[32] != '-') return false;
    rest.remove_prefix(33);
    const std::size_t dash = rest.find('-');
    if (dash == std::string_view::npos || !all_digits(rest.substr(0, dash)) || !all_digits(rest.substr(dash + 1)))
        return false;
    std::error_code ec;
    return fs::is_directory(fs::symlink_status(path, ec));
}

// Sizes and times of one entry; false when it vanished meanwhile (another process removed it).
bool measure_entry(const fs::path& path, entry_on_disk& out) {
    std::error_code ec;
    out.path = path;
    out.hex = path.filename().string();
    out.bytes = 0;
    if (fs::is_directory(fs::symlink_status(path, ec))) {
        for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
            const std::uintmax_t size = it->is_regular_file(ec) ? fs::file_size(it->path(), ec) : 0;
            if (!ec) out.bytes += size;
            ec.clear();
        }
    } else {
        const std::uintmax_t size = fs::file_size(path, ec);
        out.bytes = ec ? 0 : size;
    }
    out.last_used = fs::last_write_time(path / metadata_file_name, ec);
    if (ec) out.last_used = fs::last_write_time(path, ec);
    return !ec;
}

// Calls visit(path, name) for every item of dir; a missing dir has none.
template <typename Visit> bool for_each_item(const fs::path& dir, Visit visit) {
    std::error_code ec;
    const fs::file_status status = fs::status(dir, ec);
    if (!fs::exists(status)) return false;
    if (!fs::is_directory(status)) throw io_error("cache directory " + dir.string() + " is not a directory");
    fs::directory_iterator it(dir, ec), end;
    for (; !ec && it != end; it.increment(ec)) visit(it->path(), it->path().filename().string());
    if (ec) throw io_error("cannot read cache directory " + dir.string() + ": " + ec.message());
    return true;
}

bool is_old_leftover(const fs::path& path) {
    std::error_code ec;
    const auto written = fs::last_write_time(path, ec);
    return !ec && fs::file_time_type::clock::now() - written > leftover_age;
}

void remove_or_throw(const entry_on_disk& e) {
    std::string why;
    if (!remove_entry(e.path, &why)) throw io_error("cannot remove " + e.path.string() + ": " + why);
}

void remove_leftover(const fs::path& path) {
    std::error_code ec;
    fs::remove_all(path, ec);
    if (ec) throw io_error("cannot remove " + path.string() + ": " + ec.message());
}

} // namespace

std::vector<entry_on_disk> list_entries(const fs::path& dir) {
    std::vector<entry_on_disk> entries;
    for_each_item(dir, [&](const fs::path& path, const std::string& name) {
        entry_on_disk e;
        if (key_from_hex(name) && written_by_loom(path) && measure_entry(path, e)) entries.push_back(std::move(e));
    });
    std::sort(entries.begin(), entries.end(), [](const entry_on_disk& a, const entry_on_disk& b) {
        return std::tie(a.last_used, a.hex) < std::tie(b.last_used, b.hex);
    });
    return entries;
}

std::uint64_t inventory::total_bytes() const {
    std::uint64_t total = 0;
    for (const auto& e : good) total += e.files.bytes;
    for (const auto& e : bad) total += e.files.bytes;
    return total;
}

inventory take_inventory(const fs::path& dir) {
    inventory inv;
    inv.dir = dir;
    inv.dir_exists = for_each_item(dir, [&](const fs::path& path, const std::string& name) {
        if (key_from_hex(name)) {
            entry_on_disk files;
            if (!measure_entry(path, files)) return;
            entry_check check = read_entry(path);
            if (check.entry)
                inv.good.push_back({std::move(files), std::move(*check.entry)});
            else if (check.foreign)
                inv.foreign.push_back({path, std::move(check.problem)});
            else
                inv.bad.push_back({std::move(files), std::move(check.problem)});
        } else if (is_leftover(path, name)) {
            if (is_old_leftover(path)) inv.leftovers.push_back(path); // younger ones are in flight
        } else {
            inv.foreign.push_back({path, {}});
        }
    });
    std::sort(inv.good.begin(), inv.good.end(), [](const auto& a, const auto& b) {
        return std::tie(a.meta.created, a.files.hex) < std::tie(b.meta.created, b.files.hex);
    });
    std::sort(inv.bad.begin(), inv.bad.end(), [](const auto& a, const auto& b) { return a.files.hex < b.files.hex; });
    std::sort(inv.leftovers.begin(), inv.leftovers.end());
    std::sort(inv.foreign.begin(), inv.foreign.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    return inv;
}

prune_result prune(const fs::path& dir, std::optional<std::uint64_t> max_bytes,
                   std::optional<std::chrono::seconds> older_than) {
    prune_result result;
    std::vector<entry_on_disk> kept;
    const auto now = fs::file_time_type::clock::now();
    for (entry_on_disk& e : list_entries(dir)) {
        if (older_than && now - e.last_used > *older_than) {
            remove_or_throw(e);
            result.removed_bytes += e.bytes;
            result.removed.push_back(std::move(e));
        } else {
            result.kept_bytes += e.bytes;
            kept.push_back(std::move(e));
        }
    }
    // kept is least recently used first, so the front is what goes.
    auto first_kept = kept.begin();
    for (; max_bytes && first_kept != kept.end() && result.kept_bytes > *max_bytes; ++first_kept) {
        remove_or_throw(*first_kept);
        result.kept_bytes -= first_kept->bytes;
        result.removed_bytes += first_kept->bytes;
        result.removed.push_back(std::move(*first_kept));
    }
    result.kept_entries = std::size_t(kept.end() - first_kept);
    return result;
}

std::size_t clear(const fs::path& dir) {
    std::vector<entry_on_disk> entries = list_entries(dir);
    for (const entry_on_disk& e : entries) remove_or_throw(e);
    for_each_item(dir, [](const fs::path& path, const std::string& name) {
        if (is_leftover(path, name) && is_old_leftover(path)) remove_leftover(path);
    });
    return entries.size();
}

void remove_damage(const inventory& inv) {
    for (const auto& e : inv.bad) remove_or_throw(e.files);
    for (const fs::path& path : inv.leftovers) remove_leftover(path);
}

std::optional<std::chrono::seconds> parse_duration(std::string_view text) {
    if (text.size() < 2 || text.size() > 12) return std::nullopt;
    std::int64_t unit = 0;
    switch (text.back()) {
    case 's': unit = 1; break;
    case 'm': unit = 60; break;
    case 'h': unit = 3600; break;
    case 'd': unit = 86400; break;
    case 'w': unit = std::int64_t{7} * 86400; break;
    default: return std::nullopt;
    }
    text.remove_suffix(1);
    std::int64_t n = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + (c - '0');
    }
    return std::chrono::seconds(n * unit);
}

} // namespace loom::cache
