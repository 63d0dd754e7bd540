// The on-disk kernel cache: keys, settings from the environment, the entry format, and the
// load/store paths. Listing, pruning and verifying a whole directory live in cache_inventory.cpp.
#include "cache/disk_cache.hpp"
#include "cache/binary_envelope.hpp"

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>

#include <unistd.h>

#include <nlohmann/json.hpp>
#include <xxhash.h>

#include "cache/cache_inventory.hpp"
#include "loom/error.hpp"
#include "support/environment.hpp"
#include "support/log.hpp"

namespace loom::cache {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Metadata is a few hundred bytes; anything far larger is not ours and is not read.
constexpr std::uintmax_t metadata_size_limit = 1 << 20;

std::string hex64(std::uint64_t v) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
    return text;
}

std::optional<std::uint64_t> parse_hex64(std::string_view text) {
    if (text.size() != 16) return std::nullopt;
    std::uint64_t v = 0;
    for (char c : text) {
        int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (digit < 0) return std::nullopt;
        v = v << 4 | unsigned(digit);
    }
    return v;
}

std::uint64_t checksum(const void* data, std::size_t size) { return XXH3_64bits(data, size); }

// Little-endian length then bytes, so ("ab", "c") and ("a", "bc") hash differently on every host.
void hash_field(XXH3_state_t* state, std::string_view field) {
    unsigned char length[8];
    std::uint64_t n = field.size();
    for (unsigned char& byte : length) {
        byte = static_cast<unsigned char>(n & 0xFF);
        n >>= 8;
    }
    XXH3_128bits_update(state, length, sizeof length);
    XXH3_128bits_update(state, field.data(), field.size());
}

// The file an entry keeps each kind of binary in; the kind names come from the backends.
std::optional<std::string> binary_file_for(std::string_view kind) {
    if (kind == "opencl-binary") return "binary.bin";
    if (kind == "cubin") return "binary.cubin";
    if (kind == "ptx") return "binary.ptx";
    return std::nullopt;
}

std::optional<std::string> source_file_for(std::string_view extension) {
    if (extension == ".cl" || extension == ".cu") return "source" + std::string(extension);
    return std::nullopt;
}

std::string utc_now_iso8601() {
    std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

// Empty on success, else "<path>: <reason>". stdio rather than streams so that the reason
// (errno: "No space left on device", "File too large") reaches the warning.
std::string write_file(const fs::path& path, const void* data, std::size_t size) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return path.string() + ": " + std::strerror(errno);
    int err = 0;
    if (size != 0 && std::fwrite(data, 1, size, f) != size) err = errno ? errno : EIO;
    if (std::fflush(f) != 0 && err == 0) err = errno;
    if (std::fclose(f) != 0 && err == 0) err = errno;
    return err == 0 ? std::string() : path.string() + ": " + std::strerror(err);
}

std::optional<std::string> read_file(const fs::path& path, std::uintmax_t size) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::string text(size, '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    if (std::uintmax_t(in.gcount()) != size || in.peek() != std::char_traits<char>::eof()) return std::nullopt;
    return text;
}

// A unique name in the cache directory for a writer's staging area or a removed entry:
// pid + counter is unique among live processes, and the exclusive mkdir covers pid reuse.
fs::path private_name(const fs::path& dir, const char* prefix, const std::string& hex) {
    static std::atomic<unsigned long> counter{0};
    return dir /
           (std::string(prefix) + hex + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1)));
}

// Pulls the typed fields out of meta.json, remembering the first one that is missing or mistyped.
struct metadata_reader {
    std::string problem;

    const json* field(const json& object, const char* name, bool (json::*is_type)() const noexcept, const char* type) {
        if (!problem.empty()) return nullptr;
        auto it = object.find(name);
        if (it == object.end() || !((*it).*is_type)()) {
            problem = std::string("meta.json has no ") + type + " '" + name + "'";
            return nullptr;
        }
        return &*it;
    }
    std::string text(const json& object, const char* name) {
        const json* v = field(object, name, &json::is_string, "string");
        return v ? v->get<std::string>() : std::string();
    }
    // A field that older entries lack: "" when absent, a problem only when it is not a string.
    std::string optional_text(const json& object, const char* name) {
        return object.contains(name) ? text(object, name) : std::string();
    }
    std::uint64_t count(const json& object, const char* name) {
        const json* v = field(object, name, &json::is_number_unsigned, "byte count");
        return v ? v->get<std::uint64_t>() : 0;
    }
    double number(const json& object, const char* name) {
        const json* v = field(object, name, &json::is_number, "number");
        return v ? v->get<double>() : 0;
    }
    std::uint64_t hash(const json& object, const char* name) {
        std::string digits = text(object, name);
        if (!problem.empty()) return 0;
        auto v = parse_hex64(digits);
        if (!v) problem = std::string("meta.json field '") + name + "' is not 16 hex digits";
        return v.value_or(0);
    }
    const json& object(const json& parent, const char* name) {
        static const json empty = json::object();
        const json* v = field(parent, name, &json::is_object, "object");
        return v ? *v : empty;
    }
};

// Checks one of the entry's files against the size and checksum its metadata records.
std::string check_file(const fs::path& path, std::uint64_t bytes, std::uint64_t xxh3, std::string* contents) {
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(path, ec);
    const std::string name = path.filename().string();
    if (ec) return name + " is missing";
    if (size != bytes) return name + " is " + std::to_string(size) + " bytes, meta.json says " + std::to_string(bytes);
    auto data = read_file(path, size);
    if (!data) return name + " cannot be read";
    if (checksum(data->data(), data->size()) != xxh3) return name + " does not match its checksum";
    if (contents) *contents = std::move(*data);
    return {};
}

// Why a complete entry may still not serve this kernel; empty when it may.
std::string identity_mismatch(const stored_entry& e, const kernel_identity& id) {
    auto differs = [](const char* what, const std::string& stored, std::string_view wanted) {
        return std::string(what) + " '" + stored + "', not '" + std::string(wanted) + "'";
    };
    if (e.backend != id.backend) return differs("made for backend", e.backend, id.backend);
    if (e.device != id.device) return differs("made for device", e.device, id.device);
    if (e.driver != id.driver) return differs("made with driver", e.driver, id.driver);
    if (e.options != id.options) return differs("compiled with options", e.options, id.options);
    if (e.source_bytes != id.source.size() || e.source_xxh3 != checksum(id.source.data(), id.source.size()))
        return "made from other source text";
    return {};
}

// meta.json parsed; a discarded value, with `problem` saying why, when it is missing, too large
// to be Loom's, unreadable or not a JSON object.
json read_metadata(const fs::path& entry_dir, std::string& problem) {
    std::error_code ec;
    const fs::path meta_path = entry_dir / metadata_file_name;
    const std::uintmax_t meta_size = fs::file_size(meta_path, ec);
    if (ec) {
        problem = "meta.json is missing";
        return json(json::value_t::discarded);
    }
    if (meta_size > metadata_size_limit) {
        problem = "meta.json is " + std::to_string(meta_size) + " bytes: not Loom metadata";
        return json(json::value_t::discarded);
    }
    auto text = read_file(meta_path, meta_size);
    json meta = text ? json::parse(*text, nullptr, false) : json(json::value_t::discarded);
    if (!text || meta.is_discarded() || !meta.is_object()) {
        problem = !text ? "meta.json cannot be read" : "meta.json is not a JSON object";
        return json(json::value_t::discarded);
    }
    return meta;
}

// Why meta.json's format_version is not the whole number Loom writes; empty when it is one.
std::string format_version_problem(const json& meta) {
    const auto it = meta.find("format_version");
    if (it == meta.end()) return "meta.json has no format_version: not Loom metadata";
    if (it->is_number_unsigned()) return {};
    if (it->is_string()) {
        const std::string& text = it->get_ref<const std::string&>();
        return "meta.json's format_version is a string, not a number (\"" +
               (text.size() <= 20 ? text : text.substr(0, 17) + "...") + "\")";
    }
    if (it->is_number()) return "meta.json's format_version is " + it->dump() + ", not a whole number";
    return std::string("meta.json's format_version is a JSON ") + it->type_name() + ", not a number";
}

// Whether meta.json is Loom's metadata of the entry directory named `name`.
bool metadata_names_entry(const json& meta, const std::string& name) {
    if (!meta.is_object()) return false;
    const auto version = meta.find("format_version"), k = meta.find("key");
    return version != meta.end() && version->is_number_unsigned() && k != meta.end() && k->is_string() &&
           k->get_ref<const std::string&>() == name;
}

// Whether one of the entry's binary files starts with Loom's header naming the entry's key.
bool binary_names_entry(const fs::path& entry_dir) {
    const std::optional<key> k = key_from_hex(entry_dir.filename().string());
    if (!k) return false;
    for (const char* kind : {"opencl-binary", "cubin", "ptx"}) {
        const fs::path path = entry_dir / *binary_file_for(kind);
        std::error_code ec;
        if (!fs::is_regular_file(fs::symlink_status(path, ec))) continue; // never open a pipe or follow a link
        std::ifstream in(path, std::ios::binary);
        char head[key_header_bytes];
        if (in.read(head, sizeof head) && header_names_key(std::string_view(head, sizeof head), *k)) return true;
    }
    return false;
}

// Reads and checks one entry; `meta` receives meta.json as parsed (discarded when it is not JSON).
entry_check check_entry(const fs::path& entry_dir, json& meta) {
    entry_check result;
    std::error_code ec;
    if (!fs::is_directory(fs::symlink_status(entry_dir, ec))) {
        result.problem =
            fs::exists(fs::symlink_status(entry_dir, ec)) ? "not a directory: a file Loom did not write" : "missing";
        return result;
    }
    meta = read_metadata(entry_dir, result.problem);
    if (!result.problem.empty()) return result;
    result.problem = format_version_problem(meta);
    if (!result.problem.empty()) return result;
    metadata_reader r;
    const std::uint64_t version = r.count(meta, "format_version");
    if (version != format_version) {
        result.problem =
            "format version " + std::to_string(version) + ", this Loom reads version " + std::to_string(format_version);
        return result;
    }
    stored_entry e;
    e.hex = r.text(meta, "key");
    e.created = r.text(meta, "created");
    e.compile_ms = r.number(meta, "compile_ms");
    e.backend = r.text(meta, "backend");
    e.device = r.text(meta, "device");
    e.driver = r.text(meta, "driver");
    e.options = r.text(meta, "options");
    e.summary = r.text(meta, "summary");
    e.name = r.optional_text(meta, "name");
    e.header = r.optional_text(meta, "header");
    const json& source = r.object(meta, "source");
    e.source_file = r.text(source, "file");
    e.source_bytes = r.count(source, "bytes");
    e.source_xxh3 = r.hash(source, "xxh3_64");
    const json& binary = r.object(meta, "binary");
    e.binary_file = r.text(binary, "file");
    e.binary_kind = r.text(binary, "kind");
    e.binary_bytes = r.count(binary, "bytes");
    e.binary_xxh3 = r.hash(binary, "xxh3_64");
    if (!r.problem.empty()) {
        result.problem = r.problem;
        return result;
    }
    // File names come from fixed tables, so a crafted meta.json cannot point outside the entry.
    if (e.hex != entry_dir.filename().string()) {
        result.problem = "meta.json names key " + e.hex + ", not the directory it is in";
    } else if (binary_file_for(e.binary_kind) != e.binary_file) {
        result.problem = "unknown binary kind '" + e.binary_kind + "' or file '" + e.binary_file + "'";
    } else if (e.source_file != "source.cl" && e.source_file != "source.cu") {
        result.problem = "unexpected source file name '" + e.source_file + "'";
    } else if (!fs::is_regular_file(entry_dir / build_log_file_name, ec)) {
        result.problem = "build.log is missing";
    }
    if (result.problem.empty())
        result.problem = check_file(entry_dir / e.source_file, e.source_bytes, e.source_xxh3, nullptr);
    std::string binary_bytes;
    if (result.problem.empty())
        result.problem = check_file(entry_dir / e.binary_file, e.binary_bytes, e.binary_xxh3, &binary_bytes);
    if (!result.problem.empty()) return result;
    const std::optional<key> k = key_from_hex(e.hex);
    if (!k) {
        result.problem = "meta.json's key '" + e.hex + "' is not 32 hex digits";
        return result;
    }
    result.binary = unwrap_binary(binary_bytes, *k, e.source_xxh3, result.problem);
    if (!result.problem.empty()) return result;
    result.entry = std::move(e);
    return result;
}

mode mode_from_environment() {
    const std::optional<std::string> value = environment::text("LOOM_CACHE");
    if (!value || *value == "readwrite") return mode::readwrite;
    if (*value == "read") return mode::read;
    if (*value == "off") return mode::off;
    throw environment::refusal("LOOM_CACHE", *value, "a cache mode",
                               "use readwrite (the default), read (use stored kernels, never write) or off (no disk "
                               "cache)");
}

} // namespace

// ---- keys ------------------------------------------------------------------------------

std::string key::hex() const { return hex64(high) + hex64(low); }

key make_key(const kernel_identity& id) {
    XXH3_state_t* state = XXH3_createState();
    if (!state) throw std::bad_alloc();
    XXH3_128bits_reset(state);
    hash_field(state, std::to_string(format_version));
    for (std::string_view field : {id.backend, id.device, id.driver, id.options, id.source}) hash_field(state, field);
    const XXH128_hash_t h = XXH3_128bits_digest(state);
    XXH3_freeState(state);
    return key{h.high64, h.low64};
}

std::optional<key> key_from_hex(std::string_view text) {
    if (text.size() != 32) return std::nullopt;
    auto high = parse_hex64(text.substr(0, 16)), low = parse_hex64(text.substr(16));
    if (!high || !low) return std::nullopt;
    return key{*high, *low};
}

// ---- settings ----------------------------------------------------------------------------

fs::path directory_from_environment() {
    if (const std::optional<std::string> dir = environment::text("LOOM_CACHE_DIR")) return *dir;
    // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
    if (const std::optional<std::string> xdg = environment::text("XDG_CACHE_HOME"); xdg && xdg->front() == '/')
        return fs::path(*xdg) / "loom";
    if (const std::optional<std::string> home = environment::text("HOME")) return fs::path(*home) / ".cache" / "loom";
    return {};
}

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
    std::uint64_t unit = 1;
    if (!text.empty()) {
        switch (std::toupper(static_cast<unsigned char>(text.back()))) {
        case 'K': unit = 1ull << 10; break;
        case 'M': unit = 1ull << 20; break;
        case 'G': unit = 1ull << 30; break;
        default: break;
        }
        if (unit != 1) text.remove_suffix(1);
    }
    if (text.empty() || text.size() > 19) return std::nullopt;
    std::uint64_t n = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + unsigned(c - '0');
    }
    if (n > UINT64_MAX / unit) return std::nullopt;
    return n * unit;
}

settings settings_from_environment() {
    settings s;
    s.dir = directory_from_environment();
    s.access = mode_from_environment();
    if (const std::optional<std::string> limit = environment::text("LOOM_CACHE_MAX_BYTES")) {
        const std::optional<std::uint64_t> bytes = parse_byte_size(*limit);
        if (!bytes)
            throw environment::refusal("LOOM_CACHE_MAX_BYTES", *limit, "a size",
                                       "give a byte count with an optional K, M or G suffix (for example 500000000 "
                                       "or 500M); 0 means unlimited");
        s.max_bytes = *bytes;
    }
    return s;
}

// ---- one entry ---------------------------------------------------------------------------

fs::path entry_path(const fs::path& dir, const key& k) { return dir / k.hex(); }

entry_check read_entry(const fs::path& entry_dir) {
    json meta(json::value_t::discarded);
    entry_check result = check_entry(entry_dir, meta);
    if (!result.entry && result.problem != "missing") {
        std::error_code ec;
        result.foreign = !fs::is_directory(fs::symlink_status(entry_dir, ec)) ||
                         !(metadata_names_entry(meta, entry_dir.filename().string()) || binary_names_entry(entry_dir));
    }
    return result;
}

bool written_by_loom(const fs::path& entry_dir) {
    try {
        std::error_code ec;
        if (!fs::is_directory(fs::symlink_status(entry_dir, ec))) return false;
        std::string problem;
        return metadata_names_entry(read_metadata(entry_dir, problem), entry_dir.filename().string()) ||
               binary_names_entry(entry_dir);
    } catch (const std::exception&) { // an unreadable entry is not known to be Loom's
        return false;
    }
}

bool remove_entry(const fs::path& entry_dir, std::string* why) {
    std::error_code ec;
    // Gone already (another process removed or replaced it) is what the caller wanted.
    if (!fs::exists(fs::symlink_status(entry_dir, ec))) return true;
    if (!written_by_loom(entry_dir)) {
        if (why) *why = "Loom did not write it, so it is left alone";
        return false;
    }
    const fs::path doomed = private_name(entry_dir.parent_path(), ".trash-", entry_dir.filename().string());
    fs::rename(entry_dir, doomed, ec);
    if (ec) {
        if (ec == std::errc::no_such_file_or_directory) return true;
        if (why) *why = ec.message();
        return false;
    }
    fs::remove_all(doomed, ec);
    if (ec && why) *why = ec.message();
    return !ec;
}

// ---- the cache ---------------------------------------------------------------------------

disk_cache::disk_cache(settings s) : settings_(std::move(s)) {}
disk_cache::~disk_cache() = default;

const settings& disk_cache::config() const { return settings_; }

bool disk_cache::usable() const { return settings_.access != mode::off && !memory_only_.load(); }

void disk_cache::fall_back_to_memory(const std::string& why) {
    memory_only_.store(true);
    if (!warned_.exchange(true))
        logging::warn("kernel cache: " + why + "; compiled kernels stay in memory for the rest of this run. " +
                      "Set LOOM_CACHE_DIR to a writable directory, or LOOM_CACHE=off to skip the disk cache.");
}

std::optional<std::vector<unsigned char>> disk_cache::load(const key& k, const kernel_identity& id,
                                                           std::string* binary_kind) {
    if (settings_.access == mode::off || settings_.dir.empty()) return std::nullopt;
    const std::string hex = k.hex();
    try {
        const fs::path entry = entry_path(settings_.dir, k);
        std::error_code ec;
        if (!fs::exists(fs::symlink_status(entry, ec))) {
            if (logging::enabled(logging::channel::cache)) logging::write(logging::channel::cache, "disk miss " + hex);
            return std::nullopt;
        }
        entry_check check = read_entry(entry);
        std::string problem = check.entry ? identity_mismatch(*check.entry, id) : check.problem;
        if (!problem.empty() && check.foreign) {
            // Not Loom's to remove or replace: store() leaves it too, so the kernel stays in memory.
            if (logging::enabled(logging::channel::cache))
                logging::write(logging::channel::cache, "disk miss " + hex + ": warning: " + entry.string() +
                                                            " is not an entry Loom wrote (" + problem +
                                                            "); left alone, so this kernel is kept in memory only");
            return std::nullopt;
        }
        if (!problem.empty()) {
            const bool drop = settings_.access == mode::readwrite;
            if (drop) remove_entry(entry);
            if (logging::enabled(logging::channel::cache))
                logging::write(logging::channel::cache, "disk miss " + hex + ": entry ignored" +
                                                            (drop ? " and removed" : "") + " (" + problem + ")");
            return std::nullopt;
        }
        // The last use is the metadata's mtime: one utimensat on this cold path, no rewrite.
        if (settings_.access == mode::readwrite)
            fs::last_write_time(entry / metadata_file_name, fs::file_time_type::clock::now(), ec);
        if (logging::enabled(logging::channel::cache))
            logging::write(logging::channel::cache, "disk hit " + hex + " (" + std::to_string(check.binary.size()) +
                                                        " bytes " + check.entry->binary_kind + ")");
        if (binary_kind) *binary_kind = check.entry->binary_kind;
        return std::move(check.binary);
    } catch (const std::exception& e) { // load never throws: a miss is always a safe answer
        if (logging::enabled(logging::channel::cache))
            logging::write(logging::channel::cache, "disk miss " + hex + " (" + e.what() + ")");
        return std::nullopt;
    }
}

std::string disk_cache::place_entry(const fs::path& staged, const key& k, const kernel_identity& id) {
    const fs::path target = entry_path(settings_.dir, k);
    std::error_code ec;
    for (int attempt = 0; attempt < 3; ++attempt) {
        fs::rename(staged, target, ec); // rename(2) never replaces a non-empty directory
        if (!ec) return {};
        // Anything but "the name is taken" is the file system refusing (EACCES, ENOSPC, EROFS...).
        if (ec != std::errc::directory_not_empty && ec != std::errc::file_exists && ec != std::errc::not_a_directory &&
            ec != std::errc::is_a_directory)
            return "cannot rename into " + settings_.dir.string() + " (" + ec.message() + ")";
        // Another process stored this kernel first, or a bad entry sits in the way.
        entry_check existing = read_entry(target);
        if (existing.entry && identity_mismatch(*existing.entry, id).empty()) break;
        if (existing.foreign) break; // not Loom's: left alone, and the kernel stays in memory
        remove_entry(target);
    }
    // Other processes keep storing and dropping this kernel; theirs is as good as ours, and at
    // worst the next run rebuilds it. Not a reason to stop using the disk.
    fs::remove_all(staged, ec);
    return {};
}

void disk_cache::store(const key& k, const kernel_identity& id, const std::vector<unsigned char>& binary,
                       const entry_details& d) {
    if (settings_.access != mode::readwrite || memory_only_.load()) return;
    const auto source_file = source_file_for(d.source_extension);
    const auto binary_file = binary_file_for(d.binary_kind);
    if (!source_file || !binary_file) { // a caller's bug, not a disk problem: say so every time
        logging::warn("kernel cache: not storing " + k.hex() + ": unknown source extension '" + d.source_extension +
                      "' or binary kind '" + d.binary_kind + "'");
        return;
    }
    if (settings_.dir.empty()) {
        fall_back_to_memory("no cache directory (LOOM_CACHE_DIR, XDG_CACHE_HOME and HOME are all unset)");
        return;
    }
    fs::path staged;
    std::error_code ec;
    try {
        // Something Loom did not write sits where the entry belongs: load() said so on the cache
        // log, and it stays as it is.
        const fs::path target = entry_path(settings_.dir, k);
        if (fs::exists(fs::symlink_status(target, ec)) && !written_by_loom(target)) return;
        fs::create_directories(settings_.dir, ec);
        if (ec) {
            fall_back_to_memory("cannot create " + settings_.dir.string() + " (" + ec.message() + ")");
            return;
        }
        const std::string hex = k.hex();
        do staged = private_name(settings_.dir, ".tmp-", hex);
        while (!fs::create_directory(staged, ec) && !ec);
        if (ec) {
            fall_back_to_memory("cannot write in " + settings_.dir.string() + " (" + ec.message() + ")");
            return;
        }
        // The binary as stored: its header binds it to this entry (binary_envelope.hpp).
        const std::uint64_t source_xxh3 = checksum(id.source.data(), id.source.size());
        const std::vector<unsigned char> stored = wrap_binary(k, source_xxh3, binary);
        // Insertion order kept, so that a person reading meta.json sees the version and key first.
        const nlohmann::ordered_json meta = {
            {"format_version", format_version},
            {"key", hex},
            {"created", utc_now_iso8601()},
            {"compile_ms", d.compile_ms},
            {"backend", id.backend},
            {"device", id.device},
            {"driver", id.driver},
            {"options", id.options},
            {"summary", d.summary},
            {"name", d.name},
            {"header", d.header},
            {"source", {{"file", *source_file}, {"bytes", id.source.size()}, {"xxh3_64", hex64(source_xxh3)}}},
            {"binary",
             {{"file", *binary_file},
              {"kind", d.binary_kind},
              {"bytes", stored.size()},
              {"xxh3_64", hex64(checksum(stored.data(), stored.size()))}}},
        };
        // Driver logs and device names are not always UTF-8; replace rather than throw.
        const std::string meta_text = meta.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
        std::string failure = write_file(staged / *source_file, id.source.data(), id.source.size());
        if (failure.empty()) failure = write_file(staged / *binary_file, stored.data(), stored.size());
        if (failure.empty()) failure = write_file(staged / build_log_file_name, d.build_log.data(), d.build_log.size());
        // Written last: its mtime is the entry's last use, and its presence marks a whole entry.
        if (failure.empty()) failure = write_file(staged / metadata_file_name, meta_text.data(), meta_text.size());
        if (!failure.empty())
            failure = "cannot write " + failure;
        else
            failure = place_entry(staged, k, id);
        if (!failure.empty()) {
            fs::remove_all(staged, ec);
            fall_back_to_memory(failure);
            return;
        }
        if (logging::enabled(logging::channel::cache))
            logging::write(logging::channel::cache, "disk store " + hex + " (" + std::to_string(binary.size()) +
                                                        " bytes " + d.binary_kind + ")");
    } catch (const std::exception& e) { // store never throws: the kernel is in memory already
        if (!staged.empty()) fs::remove_all(staged, ec);
        fall_back_to_memory(std::string("cannot write in ") + settings_.dir.string() + " (" + e.what() + ")");
        return;
    }
    if (settings_.max_bytes != 0) evict_beyond_limit();
}

void disk_cache::evict_beyond_limit() {
    // A failed eviction leaves the cache over its limit, which is no reason to stop storing.
    try {
        for (const entry_on_disk& evicted : prune(settings_.dir, settings_.max_bytes, std::nullopt).removed)
            if (logging::enabled(logging::channel::cache))
                logging::write(logging::channel::cache, "disk evict " + evicted.hex + " (least recently used, " +
                                                            std::to_string(evicted.bytes) + " bytes)");
    } catch (const std::exception& e) {
        if (logging::enabled(logging::channel::cache))
            logging::write(logging::channel::cache, std::string("disk evict failed: ") + e.what());
    }
}

void disk_cache::forget(const key& k) {
    if (settings_.access != mode::readwrite || settings_.dir.empty()) return;
    std::string why;
    const bool removed = remove_entry(entry_path(settings_.dir, k), &why);
    if (logging::enabled(logging::channel::cache))
        logging::write(logging::channel::cache, "disk forget " + k.hex() + (removed ? "" : " failed (" + why + ")"));
}

std::optional<tuning_record> disk_cache::load_tuning(const key& k) const {
    if (settings_.access == mode::off || settings_.dir.empty()) return std::nullopt;
    return read_tuning(entry_path(settings_.dir, k), k.hex());
}

void disk_cache::store_tuning(const key& k, const tuning_record& r) {
    if (settings_.access != mode::readwrite || !usable() || settings_.dir.empty()) return;
    const fs::path entry = entry_path(settings_.dir, k);
    const std::string failure =
        written_by_loom(entry) ? write_tuning(entry, k.hex(), r) : entry.string() + " is not an entry Loom wrote";
    if (logging::enabled(logging::channel::cache))
        logging::write(logging::channel::cache,
                       "disk tuning " + k.hex() + (failure.empty() ? ": " + describe(r) : " not stored: " + failure));
}

} // namespace loom::cache
