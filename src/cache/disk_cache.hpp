// The on-disk kernel cache: one directory per compiled kernel holding its source, its
// binary, its build log and a JSON metadata file. The runtime keeps its own in-memory map in
// front of this store, so everything here runs on the cold path (once per kernel per process).
// docs/cache.md describes the layout and the rules; kernel-cache/README.md is the short form.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cache/tuning_record.hpp"

namespace loom::cache {

// Part of every key and every metadata file: bump it when the entry layout or the meaning of
// a stored binary changes, and every old entry becomes a miss instead of being misread.
inline constexpr unsigned format_version = 2; // 2: binaries carry a header binding them to their entry

enum class mode { readwrite, read, off };

// Everything that decides whether a stored binary may be reused.
struct kernel_identity {
    std::string_view source;  // generated kernel source text
    std::string_view backend; // "opencl" or "cuda"
    std::string_view device;  // device name
    std::string_view driver;  // driver version string
    std::string_view options; // compile options
};

struct key {
    std::uint64_t high = 0, low = 0; // XXH3-128 over format_version and the identity fields
    std::string hex() const;         // 32 lowercase hex digits: the entry's directory name
    friend bool operator==(const key& a, const key& b) { return a.high == b.high && a.low == b.low; }
    friend bool operator!=(const key& a, const key& b) { return !(a == b); }
};

key make_key(const kernel_identity& id);
// The inverse of key::hex(); nullopt unless `text` is exactly 32 lowercase hex digits.
std::optional<key> key_from_hex(std::string_view text);

struct entry_details {   // what metadata records besides the identity
    std::string summary; // one line: what the kernel computes (statement summary)
    double compile_ms = 0;
    std::string build_log;
    std::string source_extension; // ".cl" or ".cu"
    std::string binary_kind;      // "opencl-binary", "cubin" or "ptx"
    std::string name;             // the kernel's entry point, "loom_<16 hex digits>"
    std::string header;           // its comment header (codegen/kernel_header.hpp), or ""
};

struct settings {
    std::filesystem::path dir;
    mode access = mode::readwrite;
    std::uint64_t max_bytes = 0; // 0 = unlimited
};

// LOOM_CACHE_DIR; else $XDG_CACHE_HOME/loom; else $HOME/.cache/loom; else an empty path (the
// cache then stays in memory, with one warning at the first store).
std::filesystem::path directory_from_environment();
// The directory as above, LOOM_CACHE=readwrite|read|off and LOOM_CACHE_MAX_BYTES (bytes with an
// optional K/M/G suffix). A bad value throws loom::error naming what is accepted.
settings settings_from_environment();
// "500000", "64K", "200M", "2G" (binary multiples, either case) -> bytes; nullopt if malformed.
std::optional<std::uint64_t> parse_byte_size(std::string_view text);

// ---- one entry on disk: <dir>/<hex>/{meta.json, source.cl|.cu, binary.bin|.cubin|.ptx, build.log}

inline constexpr const char* metadata_file_name = "meta.json";
inline constexpr const char* build_log_file_name = "build.log";

// The metadata of one entry, as read back and checked against its files.
struct stored_entry {
    std::string hex;
    std::string created; // ISO-8601 UTC
    double compile_ms = 0;
    std::string backend, device, driver, options, summary;
    // The kernel's name and comment header: empty in entries written before Loom named kernels
    // (their source names its kernel loom_kernel).
    std::string name, header;
    std::string source_file; // "source.cl" or "source.cu"
    std::uint64_t source_bytes = 0, source_xxh3 = 0;
    std::string binary_file; // "binary.bin", "binary.cubin" or "binary.ptx"
    std::string binary_kind;
    std::uint64_t binary_bytes = 0, binary_xxh3 = 0;
};

struct entry_check {
    std::optional<stored_entry> entry; // set when the entry is complete and every checksum holds
    std::vector<unsigned char> binary; // the binary's payload, read and unwrapped while checking it
    std::string problem;               // why not, in words a user can act on
    // Set with a problem when what sits at the entry's path is not Loom's (written_by_loom):
    // loads ignore it, and nothing removes or replaces it.
    bool foreign = false;
};

std::filesystem::path entry_path(const std::filesystem::path& dir, const key& k);
// Reads and checks everything about one entry directory; never throws.
entry_check read_entry(const std::filesystem::path& entry_dir);
// Whether Loom wrote what sits at an entry's path: a directory (not a link) whose meta.json
// has a numeric format_version and names the directory's key, or, where meta.json is damaged,
// whose binary's header (binary_envelope.hpp) names that key. Loom removes or replaces only
// what it wrote; a damaged entry of its own may go, anything else stays. Never throws.
bool written_by_loom(const std::filesystem::path& entry_dir);
// Moves the entry out of sight with one rename, then deletes it, so a reader sees it whole or
// not at all. Returns false (and leaves `why`) when it could not be removed, or when Loom did
// not write it (written_by_loom), which is then left as it is.
bool remove_entry(const std::filesystem::path& entry_dir, std::string* why = nullptr);

class disk_cache {
public:
    explicit disk_cache(settings s);
    ~disk_cache();
    disk_cache(const disk_cache&) = delete;
    disk_cache& operator=(const disk_cache&) = delete;

    const settings& config() const;
    // False in mode off and after a failed write made the cache fall back to memory only.
    // Loads still read whatever the directory holds after the fallback: a read-only shared
    // cache keeps serving its kernels.
    bool usable() const;

    // The binary when a complete entry exists whose metadata matches the identity (format
    // version, backend, device, driver, options, source text) and whose files match their
    // checksums. Anything else is a miss; a bad entry is removed in readwrite mode, unless Loom
    // did not write it: then it is left alone, one line on the cache log says so, and the kernel
    // stays in memory (store() does not replace it). Never throws.
    std::optional<std::vector<unsigned char>> load(const key& k, const kernel_identity& id,
                                                   std::string* binary_kind = nullptr);
    // Writes the whole entry into a private temporary directory and renames it into place, so
    // readers never see half an entry; creates a missing directory. Never throws: the first
    // failure (a directory that cannot be created or written, a full disk) logs one warning and
    // turns further stores into no-ops. Does nothing in read and off modes. Evicts
    // least-recently-used entries beyond max_bytes. Never stores over something at the entry's
    // path that Loom did not write.
    void store(const key& k, const kernel_identity& id, const std::vector<unsigned char>& binary,
               const entry_details& d);
    // The driver rejected a binary this cache returned: drop the entry (readwrite mode) so
    // that it is rebuilt.
    void forget(const key& k);
    // The tuned geometry stored with entry k, if any (tuning_record.hpp); never throws.
    std::optional<tuning_record> load_tuning(const key& k) const;
    // Stores it with entry k when the entry exists and the cache is writable; a failure logs on
    // the cache channel and is otherwise ignored (the choice stays in memory). Never throws.
    void store_tuning(const key& k, const tuning_record& r);

private:
    void fall_back_to_memory(const std::string& why);
    // Renames a fully written staging directory into place; empty on success, else why not.
    std::string place_entry(const std::filesystem::path& staged, const key& k, const kernel_identity& id);
    void evict_beyond_limit();

    settings settings_;
    // Atomic because the runtime may store from several threads; only the first failure warns.
    std::atomic<bool> memory_only_{false};
    std::atomic<bool> warned_{false};
};

} // namespace loom::cache
