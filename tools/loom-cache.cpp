// loom-cache: look into and maintain Loom's on-disk kernel cache (list, show, stats, verify,
// prune, clear, path; --json for list, show and stats). Exit status: 0 ok, 1 verify found damaged
// entries (or show hit one), 2 usage error or unknown hash, 3 the directory could not be read or
// changed. docs/cache.md.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "human_bytes.hpp"
#include "cache/cache_inventory.hpp"
#include "cache/disk_cache.hpp"
#include "loom/error.hpp"
#include "loom/version.hpp"

namespace fs = std::filesystem;
namespace cache = loom::cache;
using json = nlohmann::ordered_json; // fields in the order a person reads them

namespace {

enum exit_status : int { ok = 0, damaged = 1, usage = 2, io_failure = 3 };

// A usage mistake the user fixes by typing something else: exit status 2.
struct usage_error : loom::error {
    using loom::error::error;
};

constexpr std::size_t short_hash_digits = 12;

using loom::tools::human_bytes;

std::string iso_time(fs::file_time_type when) {
    // C++17 has no clock_cast: carry the offset from "now" over to the system clock.
    const auto age = fs::file_time_type::clock::now() - when;
    const std::time_t t = std::chrono::system_clock::to_time_t(
        std::chrono::system_clock::now() - std::chrono::duration_cast<std::chrono::system_clock::duration>(age));
    std::tm utc{};
    gmtime_r(&t, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

std::string milliseconds(double ms) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f ms", ms);
    return text;
}

// Long device names and summaries would push every other column off the screen.
std::string clip(const std::string& text, std::size_t width) {
    return text.size() <= width ? text : text.substr(0, width - 3) + "...";
}

std::string plural(std::size_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

void print_table(const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> width;
    for (const auto& row : rows)
        for (std::size_t c = 0; c < row.size(); ++c) {
            width.resize(std::max(width.size(), row.size()));
            width[c] = std::max(width[c], row[c].size());
        }
    for (const auto& row : rows) {
        std::string line;
        for (std::size_t c = 0; c < row.size(); ++c) {
            line += row[c];
            if (c + 1 < row.size()) line += std::string(width[c] - row[c].size() + 2, ' ');
        }
        std::cout << line << '\n';
    }
}

std::string read_text(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw cache::io_error("cannot read " + path.string());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Metadata holds what drivers and users wrote (device names, build logs, buffer names), not
// always UTF-8: replaced rather than thrown on.
void print_json(const json& j) { std::cout << j.dump(2, ' ', false, json::error_handler_t::replace) << '\n'; }

// The kernel's entry point, or "-" for an entry written before Loom named kernels.
std::string kernel_name(const cache::stored_entry& e) { return e.name.empty() ? "-" : e.name; }

json entry_json(const cache::inventory::good_entry& e) {
    return {{"hash", e.files.hex},
            {"name", e.meta.name},
            {"backend", e.meta.backend},
            {"device", e.meta.device},
            {"driver", e.meta.driver},
            {"created", e.meta.created},
            {"last_used", iso_time(e.files.last_used)},
            {"bytes", e.files.bytes},
            {"compile_ms", e.meta.compile_ms},
            {"summary", e.meta.summary}};
}

void print_damage_hint(const cache::inventory& inv) {
    if (!inv.bad.empty())
        std::cout << plural(inv.bad.size(), "damaged entry", "damaged entries")
                  << " not shown; run 'loom-cache verify' to see why\n";
}

// ---- commands ------------------------------------------------------------------------------

int list_command(const fs::path& dir, bool as_json) {
    const cache::inventory inv = cache::take_inventory(dir);
    if (as_json) {
        json entries = json::array();
        for (const auto& e : inv.good) entries.push_back(entry_json(e));
        print_json({{"directory", dir.string()},
                    {"exists", inv.dir_exists},
                    {"entries", entries},
                    {"total_bytes", inv.total_bytes()},
                    {"damaged", inv.bad.size()}});
        return ok;
    }
    if (inv.good.empty()) {
        std::cout << "no entries in " << dir.string() << (inv.dir_exists ? "" : " (the directory does not exist)")
                  << '\n';
        print_damage_hint(inv);
        return ok;
    }
    std::vector<std::vector<std::string>> rows{
        {"HASH", "KERNEL", "BACKEND", "DEVICE", "CREATED", "SIZE", "COMPILE", "SUMMARY"}};
    for (const auto& e : inv.good)
        rows.push_back({e.files.hex.substr(0, short_hash_digits), kernel_name(e.meta), e.meta.backend,
                        clip(e.meta.device, 40), e.meta.created, human_bytes(e.files.bytes),
                        milliseconds(e.meta.compile_ms), clip(e.meta.summary, 60)});
    print_table(rows);
    std::cout << plural(inv.good.size(), "entry", "entries") << ", " << human_bytes(inv.total_bytes()) << " in "
              << dir.string() << '\n';
    print_damage_hint(inv);
    return ok;
}

// The entries whose kernel is named `name` (what a profiler or LOOM_DUMP_SOURCE shows): one per
// device it was compiled for.
std::vector<cache::entry_on_disk> entries_named(const fs::path& dir, const std::string& name) {
    std::vector<cache::entry_on_disk> matches;
    for (auto& e : cache::list_entries(dir)) {
        const cache::entry_check check = cache::read_entry(e.path);
        if (check.entry && check.entry->name == name) matches.push_back(std::move(e));
    }
    return matches;
}

// The one entry directory whose name starts with `prefix`, or whose kernel is named `prefix`
// (loom_ and 16 hex digits); usage_error otherwise.
cache::entry_on_disk find_entry(const fs::path& dir, std::string prefix) {
    std::transform(prefix.begin(), prefix.end(), prefix.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    const bool by_name = prefix.compare(0, 5, "loom_") == 0;
    const std::string digits = by_name ? prefix.substr(5) : prefix;
    const bool hex = !digits.empty() && digits.find_first_not_of("0123456789abcdef") == std::string::npos;
    if (by_name && !(hex && digits.size() == 16))
        throw usage_error("'" + prefix + "' is not a kernel name: loom_ and 16 hex digits, as 'loom-cache list' shows");
    if (!by_name && !(hex && digits.size() <= 32))
        throw usage_error("'" + prefix +
                          "' is not a hash: give the first hex digits of a hash from 'loom-cache list', or a kernel's "
                          "name (loom_ and 16 hex digits)");
    if (by_name) {
        std::vector<cache::entry_on_disk> matches = entries_named(dir, prefix);
        if (matches.empty())
            throw usage_error("no entry in " + dir.string() + " holds the kernel " + prefix +
                              "; 'loom-cache list' shows the kernels");
        if (matches.size() > 1) {
            std::string names;
            for (const auto& e : matches) names += "\n  " + e.hex;
            throw usage_error("the kernel " + prefix + " is in " + std::to_string(matches.size()) +
                              " entries (one per device it was compiled for); give one's hash:" + names);
        }
        return matches.front();
    }
    std::vector<cache::entry_on_disk> matches;
    for (auto& e : cache::list_entries(dir))
        if (e.hex.compare(0, prefix.size(), prefix) == 0) matches.push_back(std::move(e));
    if (matches.empty())
        throw usage_error("no entry in " + dir.string() + " has a hash starting with '" + prefix +
                          "'; 'loom-cache list' shows the hashes");
    if (matches.size() > 1) {
        std::string names;
        for (const auto& e : matches) names += "\n  " + e.hex;
        throw usage_error("hash prefix '" + prefix + "' matches " + std::to_string(matches.size()) +
                          " entries; give more digits:" + names);
    }
    return matches.front();
}

int show_command(const fs::path& dir, const std::string& prefix, bool as_json) {
    const cache::entry_on_disk files = find_entry(dir, prefix);
    const cache::entry_check check = cache::read_entry(files.path);
    if (!check.entry) {
        std::cerr << "loom-cache: entry " << files.hex << " is damaged: " << check.problem
                  << "\n'loom-cache verify --fix' removes it; Loom rebuilds the kernel on next use\n";
        return damaged;
    }
    const cache::stored_entry& e = *check.entry;
    const std::optional<cache::tuning_record> tuned = cache::read_tuning(files.path, e.hex);
    const std::string source = read_text(files.path / e.source_file);
    const std::string log = read_text(files.path / cache::build_log_file_name);
    if (as_json) {
        print_json({{"hash", e.hex},
                    {"name", e.name},
                    {"path", files.path.string()},
                    {"backend", e.backend},
                    {"device", e.device},
                    {"driver", e.driver},
                    {"options", e.options},
                    {"summary", e.summary},
                    {"header", e.header},
                    {"created", e.created},
                    {"last_used", iso_time(files.last_used)},
                    {"compile_ms", e.compile_ms},
                    {"source", {{"file", e.source_file}, {"bytes", e.source_bytes}, {"text", source}}},
                    {"binary", {{"file", e.binary_file}, {"kind", e.binary_kind}, {"bytes", e.binary_bytes}}},
                    {"tuned", tuned ? json(cache::describe(*tuned)) : json(nullptr)},
                    {"bytes", files.bytes},
                    {"build_log", log}});
        return ok;
    }
    print_table({{"hash", e.hex},
                 {"kernel", kernel_name(e)},
                 {"path", files.path.string()},
                 {"backend", e.backend},
                 {"device", e.device},
                 {"driver", e.driver},
                 {"options", e.options.empty() ? "(none)" : e.options},
                 {"summary", e.summary},
                 {"created", e.created},
                 {"last used", iso_time(files.last_used)},
                 {"compile", milliseconds(e.compile_ms)},
                 {"source", e.source_file + " (" + human_bytes(e.source_bytes) + ")"},
                 {"binary", e.binary_file + " (" + e.binary_kind + ", " + human_bytes(e.binary_bytes) + ")"},
                 {"tuned", tuned ? cache::describe(*tuned) : "no (the launch policy's default geometry)"},
                 {"size", human_bytes(files.bytes) + " in all"}});
    // The statements the kernel holds, as its comment header lists them (written by the process
    // that compiled it; the source file holds the text the key covers, without the header).
    if (!e.header.empty()) std::cout << "\n--- statements (the kernel's comment header) ---\n" << e.header;
    std::cout << "\n--- source: " << e.source_file << " ---\n" << source;
    if (!source.empty() && source.back() != '\n') std::cout << '\n';
    std::cout << "--- build log ---\n" << (log.empty() ? "(empty)\n" : log);
    if (!log.empty() && log.back() != '\n') std::cout << '\n';
    return ok;
}

int stats_command(const fs::path& dir, bool as_json) {
    const cache::inventory inv = cache::take_inventory(dir);
    std::map<std::string, std::size_t> per_backend;
    for (const auto& e : inv.good) ++per_backend[e.meta.backend];
    if (as_json) {
        json backends = json::object();
        for (const auto& [name, count] : per_backend) backends[name] = count;
        // good is sorted by creation time.
        print_json({{"directory", dir.string()},
                    {"exists", inv.dir_exists},
                    {"entries", inv.good.size() + inv.bad.size()},
                    {"damaged", inv.bad.size()},
                    {"total_bytes", inv.total_bytes()},
                    {"backends", backends},
                    {"oldest", inv.good.empty() ? json(nullptr) : entry_json(inv.good.front())},
                    {"newest", inv.good.empty() ? json(nullptr) : entry_json(inv.good.back())},
                    {"leftovers", inv.leftovers.size()}});
        return ok;
    }
    std::string backends;
    for (const auto& [name, count] : per_backend)
        backends += (backends.empty() ? "" : ", ") + name + " " + std::to_string(count);
    std::string entries = std::to_string(inv.good.size() + inv.bad.size());
    if (!inv.bad.empty()) entries += " (" + std::to_string(inv.bad.size()) + " damaged)";
    std::vector<std::vector<std::string>> rows{
        {"directory", dir.string() + (inv.dir_exists ? "" : " (does not exist)")},
        {"entries", entries},
        {"total size", human_bytes(inv.total_bytes()) + " (" + std::to_string(inv.total_bytes()) + " bytes)"},
        {"backends", backends.empty() ? "-" : backends}};
    // good is sorted by creation time.
    auto describe = [](const cache::inventory::good_entry& e) {
        return e.meta.created + "  " + e.files.hex.substr(0, short_hash_digits) + "  " + clip(e.meta.summary, 50);
    };
    rows.push_back({"oldest", inv.good.empty() ? "-" : describe(inv.good.front())});
    rows.push_back({"newest", inv.good.empty() ? "-" : describe(inv.good.back())});
    if (!inv.leftovers.empty())
        rows.push_back({"leftovers", plural(inv.leftovers.size(), "file", "files") + " of interrupted writes"});
    print_table(rows);
    return ok;
}

int verify_command(const fs::path& dir, bool fix) {
    const cache::inventory inv = cache::take_inventory(dir);
    for (const auto& e : inv.bad) std::cout << "bad       " << e.files.hex << "  " << e.problem << '\n';
    for (const auto& p : inv.leftovers)
        std::cout << "leftover  " << p.filename().string() << "  (an interrupted write, over an hour old)\n";
    for (const auto& f : inv.foreign)
        std::cout << "ignored   " << f.path.filename().string() << "  (not a Loom entry"
                  << (f.problem.empty() ? "" : ": " + f.problem) << "; left alone)\n";
    const std::size_t checked = inv.good.size() + inv.bad.size();
    std::cout << "checked " << plural(checked, "entry", "entries") << " in " << dir.string()
              << (inv.dir_exists ? "" : " (the directory does not exist)") << ": " << inv.good.size() << " good, "
              << inv.bad.size() << " bad";
    if (!inv.leftovers.empty()) std::cout << ", " << plural(inv.leftovers.size(), "leftover", "leftovers");
    std::cout << '\n';
    if (inv.bad.empty() && inv.leftovers.empty()) return ok;
    if (!fix) {
        std::cout << "run 'loom-cache verify --fix' to remove them; Loom rebuilds those kernels on next use\n";
        return damaged;
    }
    cache::remove_damage(inv);
    std::cout << "removed " << plural(inv.bad.size(), "bad entry", "bad entries");
    if (!inv.leftovers.empty()) std::cout << " and " << plural(inv.leftovers.size(), "leftover", "leftovers");
    std::cout << '\n';
    return ok;
}

int prune_command(const fs::path& dir, const std::string& max_size, const std::string& older_than) {
    if (max_size.empty() && older_than.empty())
        throw usage_error("prune needs --max-size SIZE (e.g. 500M) and/or --older-than DURATION (e.g. 30d)");
    std::optional<std::uint64_t> max_bytes;
    std::optional<std::chrono::seconds> max_age;
    if (!max_size.empty() && !(max_bytes = cache::parse_byte_size(max_size)))
        throw usage_error("--max-size '" + max_size +
                          "' is not a size: bytes with an optional K, M or G suffix, e.g. 500M");
    if (!older_than.empty() && !(max_age = cache::parse_duration(older_than)))
        throw usage_error("--older-than '" + older_than +
                          "' is not a duration: a number and s, m, h, d or w, e.g. 30d");
    const cache::prune_result r = cache::prune(dir, max_bytes, max_age);
    for (const auto& e : r.removed)
        std::cout << "removed  " << e.hex.substr(0, short_hash_digits) << "  " << human_bytes(e.bytes) << "  last used "
                  << iso_time(e.last_used) << '\n';
    std::cout << "removed " << plural(r.removed.size(), "entry", "entries") << " (" << human_bytes(r.removed_bytes)
              << "); " << r.kept_entries << " left (" << human_bytes(r.kept_bytes) << ")\n";
    return ok;
}

int clear_command(const fs::path& dir) {
    const std::size_t removed = cache::clear(dir);
    std::cout << "removed " << plural(removed, "entry", "entries") << " from " << dir.string() << '\n';
    return ok;
}

// The whole command line; main() only adds a last catch.
int run(int argc, char** argv) {
    CLI::App app{"Look into and maintain Loom's on-disk kernel cache.\n"
                 "Exit status: 0 ok, 1 damaged entries found, 2 usage error or unknown hash, 3 I/O error.",
                 "loom-cache"};
    // At most one command; its absence is reported below, so that a misspelt command is named
    // as such rather than reported as a missing one.
    app.require_subcommand(0, 1);
    app.fallthrough(); // --dir may come before or after the subcommand
    std::string dir_option;
    app.add_option("--dir", dir_option,
                   "Cache directory (default: LOOM_CACHE_DIR, else $XDG_CACHE_HOME/loom, else ~/.cache/loom)");

    app.set_version_flag("--version", std::string(loom::version()), "Print Loom's version");
    bool as_json = false;
    CLI::App* list =
        app.add_subcommand("list", "One line per entry: hash, kernel, backend, device, created, size, summary");
    list->add_flag("--json", as_json, "Print the entries as JSON");
    CLI::App* show =
        app.add_subcommand("show", "Print one entry's metadata, the statements its kernel holds, source and build log");
    std::string hash_prefix;
    show->add_option("hash", hash_prefix, "The entry's hash or a unique prefix of it, or its kernel's name (loom_...)")
        ->required();
    show->add_flag("--json", as_json, "Print the entry as JSON");
    CLI::App* stats = app.add_subcommand("stats", "Entry count, total size, backends, oldest and newest entry");
    stats->add_flag("--json", as_json, "Print the statistics as JSON");
    CLI::App* verify = app.add_subcommand("verify", "Check every entry; exit 1 if any is damaged");
    bool fix = false;
    verify->add_flag("--fix", fix, "Remove damaged entries (and leftovers of interrupted writes), then exit 0");
    CLI::App* prune = app.add_subcommand("prune", "Remove least-recently-used entries by total size and/or age");
    std::string max_size, older_than;
    prune->add_option("--max-size", max_size, "Keep at most this much, e.g. 500M (K, M, G suffixes)");
    prune->add_option("--older-than", older_than, "Remove entries not used for this long, e.g. 30d (s, m, h, d, w)");
    CLI::App* clear = app.add_subcommand("clear", "Remove every entry; keep the directory");
    CLI::App* path = app.add_subcommand("path", "Print the cache directory");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? ok : usage; // --help and --version are not errors
    }

    try {
        if (app.get_subcommands().empty())
            throw usage_error("give a command: list, show, stats, verify, prune, clear or path ('loom-cache --help' "
                              "explains them)");
        const fs::path dir = dir_option.empty() ? cache::directory_from_environment() : fs::path(dir_option);
        if (dir.empty())
            throw usage_error("no cache directory: LOOM_CACHE_DIR, XDG_CACHE_HOME and HOME are all unset; pass --dir");
        if (*path) {
            std::cout << dir.string() << '\n';
            return ok;
        }
        if (*list) return list_command(dir, as_json);
        if (*show) return show_command(dir, hash_prefix, as_json);
        if (*stats) return stats_command(dir, as_json);
        if (*verify) return verify_command(dir, fix);
        if (*prune) return prune_command(dir, max_size, older_than);
        if (*clear) return clear_command(dir);
        return usage; // not reached: exactly one command was given
    } catch (const usage_error& e) {
        std::cerr << "loom-cache: " << e.what() << '\n';
        return usage;
    } catch (const std::exception& e) { // io_error, filesystem_error, a stream failure
        std::cerr << "loom-cache: " << e.what() << '\n';
        return io_failure;
    }
}

} // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) { // out of memory, or a CLI11 set-up error
        std::cerr << "loom-cache: " << e.what() << '\n';
        return io_failure;
    }
}
