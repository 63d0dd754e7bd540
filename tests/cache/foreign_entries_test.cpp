// What Loom did not write is never removed or replaced: a file or somebody else's directory at
// an entry's path survives loads, stores, forget, prune, clear and the size limit, and the kernel
// is then kept in memory; a damaged entry Loom did write is still removed and rebuilt.
#include <doctest/doctest.h>

#include <chrono>
#include <mutex>

#include <nlohmann/json.hpp>

#include "cache/cache_inventory.hpp"
#include "cache/cache_test_support.hpp"
#include "loom/log.hpp"
#include "support/log.hpp"

using namespace loom::cache;
using namespace loom::cache::test;

namespace {

// The cache channel's lines while it lives.
class cache_log {
public:
    cache_log() : env_(std::in_place, "LOOM_LOG", std::string("cache")) {
        loom::logging::reload_from_environment();
        loom::set_log_handler([this](const std::string& line) {
            std::lock_guard<std::mutex> guard(lock_);
            text_ += line + "\n";
        });
    }
    ~cache_log() {
        loom::set_log_handler(nullptr);
        env_.reset();
        loom::logging::reload_from_environment();
    }
    std::string text() {
        std::lock_guard<std::mutex> guard(lock_);
        return text_;
    }

private:
    std::optional<scoped_env> env_;
    std::mutex lock_;
    std::string text_;
};

// Everything under `root` with its contents, so that a test can say nothing changed.
std::vector<std::string> snapshot(const fs::path& root) {
    std::vector<std::string> items;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
        const std::string name = fs::relative(it->path(), root).string();
        items.push_back(it->is_regular_file() ? name + " = " + read_text(it->path()) : name + "/");
    }
    std::sort(items.begin(), items.end());
    return items;
}

// Loom's metadata of `k` with format_version given as the string "<format_version>".
std::string metadata_with_string_version(const sample_kernel& k) {
    nlohmann::json meta = {{"format_version", std::to_string(format_version)}, {"key", k.key().hex()}};
    return meta.dump(2);
}

} // namespace

TEST_CASE("a file Loom did not write at an entry's path survives load, store and forget; the kernel stays in memory") {
    scratch_dir tmp;
    const fs::path dir = tmp.path() / "cache";
    fs::create_directories(dir);
    const sample_kernel plain_file = make_sample(1), notes_dir = make_sample(2), string_version = make_sample(3);
    write_text(entry_path(dir, plain_file.key()), "my file, not a kernel\n");
    fs::create_directories(entry_path(dir, notes_dir.key()));
    write_text(entry_path(dir, notes_dir.key()) / "meta.json", R"({"name": "my notes"})");
    write_text(entry_path(dir, notes_dir.key()) / "binary.bin", "my data");
    // format_version as a string and no binary of Loom's: nothing says Loom wrote it.
    fs::create_directories(entry_path(dir, string_version.key()));
    write_text(entry_path(dir, string_version.key()) / "meta.json", metadata_with_string_version(string_version));
    const std::vector<std::string> before = snapshot(dir);

    disk_cache cache(settings_for(dir, mode::readwrite, 1)); // a size limit: every store also evicts
    for (const sample_kernel* k : {&plain_file, &notes_dir, &string_version}) {
        INFO(k->key().hex());
        std::string lines;
        {
            cache_log log;
            CHECK_FALSE(load(cache, *k));
            store(cache, *k); // what the program cache does next with the kernel it compiled
            cache.forget(k->key());
            CHECK_FALSE(load(cache, *k));
            lines = log.text();
        }
        // One warning per load, naming the path and what to expect; the store adds nothing.
        CHECK(count_of(lines, "warning: " + entry_path(dir, k->key()).string() + " is not an entry Loom wrote") == 2);
        CHECK(count_of(lines, "left alone, so this kernel is kept in memory only") == 2);
        CHECK(count_of(lines, "disk store") == 0);
        CHECK(snapshot(dir) == before);
        CHECK(cache.usable()); // one foreign path does not turn the disk cache off
    }
    CHECK(read_entry(entry_path(dir, string_version.key())).problem ==
          "meta.json's format_version is a string, not a number (\"" + std::to_string(format_version) + "\")");

    // Other kernels are stored and evicted as before, around them.
    store(cache, make_sample(4));
    CHECK(snapshot(dir) == before);
}

TEST_CASE("a damaged entry Loom wrote is still removed and rebuilt: its binary's header names the entry") {
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    const sample_kernel cut = make_sample(1), string_version = make_sample(2);
    store(cache, cut);
    store(cache, string_version);
    const fs::path cut_entry = entry_path(tmp.path(), cut.key()),
                   string_entry = entry_path(tmp.path(), string_version.key());
    const std::string meta = read_text(cut_entry / metadata_file_name);
    write_text(cut_entry / metadata_file_name, meta.substr(0, meta.size() / 2)); // a crash cut meta.json short
    write_text(string_entry / metadata_file_name, metadata_with_string_version(string_version));

    CHECK(read_entry(cut_entry).problem == "meta.json is not a JSON object");
    CHECK_FALSE(read_entry(cut_entry).foreign);
    CHECK(written_by_loom(cut_entry));
    const entry_check string_check = read_entry(string_entry);
    CHECK(string_check.problem ==
          "meta.json's format_version is a string, not a number (\"" + std::to_string(format_version) + "\")");
    CHECK_FALSE(string_check.foreign);

    const inventory inv = take_inventory(tmp.path());
    CHECK(inv.bad.size() == 2);
    CHECK(inv.foreign.empty());

    std::string lines;
    {
        cache_log log;
        CHECK_FALSE(load(cache, cut));
        CHECK_FALSE(load(cache, string_version));
        lines = log.text();
    }
    CHECK(count_of(lines, "entry ignored and removed (meta.json is not a JSON object)") == 1);
    CHECK(count_of(lines, "entry ignored and removed (meta.json's format_version is a string, not a number") == 1);
    CHECK_FALSE(fs::exists(cut_entry));
    CHECK_FALSE(fs::exists(string_entry));
    store(cache, cut);
    store(cache, string_version);
    CHECK(load(cache, cut) == cut.binary);
    CHECK(load(cache, string_version) == string_version.binary);
}

TEST_CASE("prune, clear and verify's repair remove only what Loom wrote") {
    scratch_dir tmp;
    const fs::path dir = tmp.path();
    const sample_kernel a = make_sample(1), b = make_sample(2), file_at_entry = make_sample(3),
                        dir_at_entry = make_sample(4);
    {
        disk_cache writer(settings_for(dir));
        store(writer, a);
        store(writer, b);
    }
    write_text(entry_path(dir, file_at_entry.key()), "mine");
    fs::create_directories(entry_path(dir, dir_at_entry.key()));
    write_text(entry_path(dir, dir_at_entry.key()) / "notes.txt", "mine too");
    // Names that start like Loom's staging and removal areas but are not: a person's files.
    write_text(dir / ".tmp-notes", "scratch");
    fs::create_directories(dir / ".trash-can");
    const auto long_ago = fs::file_time_type::clock::now() - std::chrono::hours(48);
    for (const char* name : {".tmp-notes", ".trash-can"}) fs::last_write_time(dir / name, long_ago);
    std::vector<std::string> foreign = {file_at_entry.key().hex() + " = mine", dir_at_entry.key().hex() + "/",
                                        dir_at_entry.key().hex() + "/notes.txt = mine too", ".tmp-notes = scratch",
                                        ".trash-can/"};
    std::sort(foreign.begin(), foreign.end());

    const std::vector<entry_on_disk> listed = list_entries(dir);
    REQUIRE(listed.size() == 2); // Loom's two entries, not the things at entry names
    const inventory inv = take_inventory(dir);
    CHECK(inv.good.size() == 2);
    CHECK(inv.bad.empty());
    CHECK(inv.leftovers.empty());
    CHECK(inv.foreign.size() == 4);
    remove_damage(inv);

    CHECK(prune(dir, 0, std::nullopt).removed.size() == 2); // a limit of 0 bytes: everything Loom's goes
    CHECK(snapshot(dir) == foreign);
    {
        disk_cache writer(settings_for(dir));
        store(writer, a);
    }
    CHECK(clear(dir) == 1);
    CHECK(snapshot(dir) == foreign);
}
