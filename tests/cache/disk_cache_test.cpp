// disk_cache load/store: a stored kernel comes back byte for byte, and anything damaged,
// foreign or made for another kernel is a miss, never a wrong binary.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>
#include <xxhash.h>

#include "cache/cache_inventory.hpp"
#include "cache/cache_test_support.hpp"

using namespace loom::cache;
using namespace loom::cache::test;

namespace {

// Stores `k` and returns its entry directory.
fs::path stored_entry_dir(disk_cache& cache, const sample_kernel& k) {
    store(cache, k);
    const fs::path dir = entry_path(cache.config().dir, k.key());
    REQUIRE(read_entry(dir).entry);
    return dir;
}

void edit_metadata(const fs::path& entry, void (*edit)(nlohmann::json&)) {
    nlohmann::json meta = nlohmann::json::parse(read_text(entry / metadata_file_name));
    edit(meta);
    write_text(entry / metadata_file_name, meta.dump(2));
}

} // namespace

TEST_CASE("stored kernel loads back with its binary kind and a complete entry on disk") {
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    const sample_kernel k = make_sample(1, 4000);
    store(cache, k);

    std::string kind;
    const auto binary = load(cache, k, &kind);
    REQUIRE(binary);
    CHECK(*binary == k.binary);
    CHECK(kind == "opencl-binary");
    CHECK(cache.usable());

    const fs::path entry = entry_path(tmp.path(), k.key());
    CHECK(names_in(tmp.path()) == std::vector<std::string>{k.key().hex()}); // no temp files left
    CHECK(names_in(entry) == std::vector<std::string>{"binary.bin", "build.log", "meta.json", "source.cl"});
    CHECK(read_text(entry / "source.cl") == k.source);
    CHECK(read_text(entry / "build.log") == k.details.build_log);

    const auto meta = nlohmann::json::parse(read_text(entry / "meta.json"));
    CHECK(meta["format_version"] == format_version);
    CHECK(meta["key"] == k.key().hex());
    CHECK(meta["backend"] == "opencl");
    CHECK(meta["device"] == k.device);
    CHECK(meta["driver"] == k.driver);
    CHECK(meta["options"] == k.options);
    CHECK(meta["summary"] == k.details.summary);
    CHECK(meta["compile_ms"] == 12.5);
    CHECK(meta["binary"]["bytes"] == 4000 + 48); // the payload and its 48-byte header (binary_envelope.hpp)
    CHECK(meta["binary"]["kind"] == "opencl-binary");
    const std::string created = meta["created"];
    CHECK(created.size() == 20); // 2024-05-01T12:00:00Z
    CHECK(created.back() == 'Z');
}

TEST_CASE("cuda entries keep a .cu source and a .cubin binary") {
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    const sample_kernel k = make_cuda_sample(2);
    store(cache, k);
    std::string kind;
    CHECK(load(cache, k, &kind) == k.binary);
    CHECK(kind == "cubin");
    CHECK(names_in(entry_path(tmp.path(), k.key())) ==
          std::vector<std::string>{"binary.cubin", "build.log", "meta.json", "source.cu"});
}

TEST_CASE("a fresh disk_cache on the same directory finds kernels an earlier one stored") {
    scratch_dir tmp;
    const sample_kernel k = make_sample(3);
    {
        disk_cache first_run(settings_for(tmp.path()));
        store(first_run, k);
    }
    disk_cache second_run(settings_for(tmp.path()));
    CHECK(load(second_run, k) == k.binary);
    CHECK_FALSE(load(second_run, make_sample(4))); // never stored
}

TEST_CASE("a missing cache directory is created by the first store") {
    scratch_dir tmp;
    const fs::path dir = tmp.path() / "not" / "yet" / "there";
    disk_cache cache(settings_for(dir));
    CHECK_FALSE(load(cache, make_sample(1)));
    CHECK_FALSE(fs::exists(dir)); // a load writes nothing
    store(cache, make_sample(1));
    CHECK(load(cache, make_sample(1)) == make_sample(1).binary);
}

TEST_CASE("a truncated binary is ignored and, in readwrite mode, removed so it is rebuilt") {
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    const sample_kernel k = make_sample(1, 2048);
    const fs::path entry = stored_entry_dir(cache, k);
    fs::resize_file(entry / "binary.bin", 1000);

    CHECK_FALSE(load(cache, k));
    CHECK_FALSE(fs::exists(entry));
    store(cache, k); // the rebuilt kernel is stored again
    CHECK(load(cache, k) == k.binary);
}

TEST_CASE("a binary with flipped bytes but the right size fails its checksum") {
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    const sample_kernel k = make_sample(1);
    const fs::path entry = stored_entry_dir(cache, k);
    std::string bytes = read_text(entry / "binary.bin");
    bytes[10] = char(~bytes[10]);
    write_text(entry / "binary.bin", bytes);
    CHECK(read_entry(entry).problem == "binary.bin does not match its checksum");
    CHECK_FALSE(load(cache, k));
    CHECK_FALSE(fs::exists(entry));
}

TEST_CASE("another entry's binary, with meta.json rewritten to agree with it, is refused by its header") {
    // meta.json's checksums only say a file is whole; the binary's header says whose it is.
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    const sample_kernel mine = make_sample(1, 1024), theirs = make_sample(2, 1024);
    const fs::path entry = stored_entry_dir(cache, mine), other = stored_entry_dir(cache, theirs);
    fs::copy_file(other / "binary.bin", entry / "binary.bin", fs::copy_options::overwrite_existing);
    const std::string swapped = read_text(entry / "binary.bin");
    nlohmann::json meta = nlohmann::json::parse(read_text(entry / metadata_file_name));
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)XXH3_64bits(swapped.data(), swapped.size()));
    meta["binary"]["bytes"] = swapped.size();
    meta["binary"]["xxh3_64"] = hex;
    write_text(entry / metadata_file_name, meta.dump(2));
    CHECK(read_entry(entry).problem == "the binary belongs to another entry (its header names another key)");
    CHECK_FALSE(load(cache, mine));
    CHECK_FALSE(fs::exists(entry)); // removed, to be rebuilt
    CHECK(load(cache, theirs) == theirs.binary);

    // A binary from before the header (or from anything else) is refused the same way.
    store(cache, mine);
    const std::string payload(mine.binary.begin(), mine.binary.end());
    write_text(entry / "binary.bin", payload);
    std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)XXH3_64bits(payload.data(), payload.size()));
    meta = nlohmann::json::parse(read_text(entry / metadata_file_name));
    meta["binary"]["bytes"] = payload.size();
    meta["binary"]["xxh3_64"] = hex;
    write_text(entry / metadata_file_name, meta.dump(2));
    CHECK(read_entry(entry).problem == "the binary has no Loom header: not written by this Loom");
}

TEST_CASE("garbage metadata is ignored and removed") {
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    const sample_kernel k = make_sample(1);
    const fs::path entry = stored_entry_dir(cache, k);
    write_text(entry / "meta.json", "{\"format_version\": 1, \"key\": \"trunc");
    CHECK(read_entry(entry).problem == "meta.json is not a JSON object");
    CHECK_FALSE(load(cache, k));
    CHECK_FALSE(fs::exists(entry));
}

TEST_CASE("metadata with a field of the wrong type is ignored") {
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    const sample_kernel k = make_sample(1);
    const fs::path entry = stored_entry_dir(cache, k);
    edit_metadata(entry, [](nlohmann::json& m) { m["binary"]["bytes"] = "256"; });
    CHECK(read_entry(entry).problem == "meta.json has no byte count 'bytes'");
    CHECK_FALSE(load(cache, k));
}

TEST_CASE("an entry of another format version is ignored") {
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    const sample_kernel k = make_sample(1);
    const fs::path entry = stored_entry_dir(cache, k);
    edit_metadata(entry, [](nlohmann::json& m) { m["format_version"] = format_version + 1; });
    CHECK(read_entry(entry).problem == "format version " + std::to_string(format_version + 1) +
                                           ", this Loom reads version " + std::to_string(format_version));
    CHECK_FALSE(load(cache, k));
    CHECK_FALSE(fs::exists(entry));
}

TEST_CASE("metadata cannot point outside its entry") {
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    const sample_kernel k = make_sample(1);
    const fs::path entry = stored_entry_dir(cache, k);
    edit_metadata(entry, [](nlohmann::json& m) { m["binary"]["file"] = "../../etc/passwd"; });
    CHECK(read_entry(entry).problem.find("unknown binary kind") == 0);
    CHECK_FALSE(load(cache, k));
}

TEST_CASE("an entry stored for another device or driver is never returned") {
    // Entries are found by key, so this only happens to a copied or tampered entry: the
    // metadata, not the name, decides.
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    const sample_kernel k = make_sample(1);
    store(cache, k);
    sample_kernel other_driver = k;
    other_driver.driver = "PoCL 6.0";
    CHECK_FALSE(cache.load(k.key(), other_driver.identity()));
    CHECK_FALSE(fs::exists(entry_path(tmp.path(), k.key())));

    store(cache, k);
    sample_kernel other_source = k;
    other_source.source += "// edited\n";
    CHECK_FALSE(cache.load(k.key(), other_source.identity()));
}

TEST_CASE("foreign files are ignored by load and reported by the inventory") {
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    const sample_kernel plain_file = make_sample(1), foreign_json = make_sample(2), good = make_sample(3);
    // A regular file where an entry directory belongs.
    write_text(entry_path(tmp.path(), plain_file.key()), "not a kernel");
    // A directory with an entry's name whose meta.json is somebody else's JSON.
    fs::create_directories(entry_path(tmp.path(), foreign_json.key()));
    write_text(entry_path(tmp.path(), foreign_json.key()) / "meta.json", R"({"name": "my notes"})");
    // A file that is no entry at all.
    write_text(tmp.path() / "notes.txt", "mine");
    store(cache, good);

    CHECK_FALSE(load(cache, plain_file));
    CHECK_FALSE(load(cache, foreign_json));
    CHECK(load(cache, good) == good.binary);

    const inventory inv = take_inventory(tmp.path());
    REQUIRE(inv.good.size() == 1);
    CHECK(inv.bad.empty()); // nothing Loom wrote is damaged
    REQUIRE(inv.foreign.size() == 3);
    for (const auto& f : inv.foreign) {
        if (f.path.filename() == plain_file.key().hex())
            CHECK(f.problem == "not a directory: a file Loom did not write");
        else if (f.path.filename() == foreign_json.key().hex())
            CHECK(f.problem == "meta.json has no format_version: not Loom metadata");
        else
            CHECK((f.path.filename() == "notes.txt" && f.problem.empty()));
    }
    // Never touched, by the loads above either.
    CHECK(read_text(entry_path(tmp.path(), plain_file.key())) == "not a kernel");
    CHECK(read_text(entry_path(tmp.path(), foreign_json.key()) / "meta.json") == R"({"name": "my notes"})");
    CHECK(read_text(tmp.path() / "notes.txt") == "mine");
}

TEST_CASE("storing over a damaged entry replaces it") {
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    const sample_kernel k = make_sample(1);
    const fs::path entry = stored_entry_dir(cache, k);
    fs::remove(entry / "binary.bin");
    store(cache, k);
    CHECK(read_entry(entry).entry);
    CHECK(load(cache, k) == k.binary);
    CHECK(names_in(tmp.path()).size() == 1); // no staging or trash left behind
}

TEST_CASE("forget drops an entry the driver rejected") {
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    const sample_kernel k = make_sample(1);
    store(cache, k);
    cache.forget(k.key());
    CHECK_FALSE(fs::exists(entry_path(tmp.path(), k.key())));
    CHECK_FALSE(load(cache, k));
    CHECK_NOTHROW(cache.forget(k.key())); // forgetting twice is harmless
}

TEST_CASE("mode read uses stored kernels but never writes") {
    scratch_dir tmp;
    const sample_kernel stored = make_sample(1), damaged = make_sample(2), fresh = make_sample(3);
    {
        disk_cache writer(settings_for(tmp.path()));
        store(writer, stored);
        store(writer, damaged);
    }
    fs::resize_file(entry_path(tmp.path(), damaged.key()) / "binary.bin", 3);
    const auto meta = entry_path(tmp.path(), stored.key()) / metadata_file_name;
    const auto last_use = fs::file_time_type::clock::now() - std::chrono::hours(5);
    fs::last_write_time(meta, last_use);
    const auto before = names_in(tmp.path());

    disk_cache reader(settings_for(tmp.path(), mode::read));
    CHECK(reader.usable());
    CHECK(load(reader, stored) == stored.binary);
    CHECK_FALSE(load(reader, damaged));
    store(reader, fresh);
    reader.forget(stored.key());

    CHECK(names_in(tmp.path()) == before);                    // nothing added or removed
    CHECK(fs::exists(entry_path(tmp.path(), damaged.key()))); // damaged entry left alone
    CHECK(fs::last_write_time(meta) == last_use);             // last use not recorded
    CHECK_FALSE(load(reader, fresh));
}

TEST_CASE("mode read does not create a missing directory") {
    scratch_dir tmp;
    disk_cache reader(settings_for(tmp.path() / "absent", mode::read));
    store(reader, make_sample(1));
    CHECK_FALSE(fs::exists(tmp.path() / "absent"));
}

TEST_CASE("mode off neither reads nor writes") {
    scratch_dir tmp;
    const sample_kernel k = make_sample(1);
    {
        disk_cache writer(settings_for(tmp.path()));
        store(writer, k);
    }
    const auto before = names_in(tmp.path());
    disk_cache off(settings_for(tmp.path(), mode::off));
    CHECK_FALSE(off.usable());
    CHECK_FALSE(load(off, k));
    store(off, make_sample(2));
    off.forget(k.key());
    CHECK(names_in(tmp.path()) == before);
}

TEST_CASE("load records the last use in the metadata's mtime") {
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    const sample_kernel k = make_sample(1);
    store(cache, k);
    const auto meta = entry_path(tmp.path(), k.key()) / metadata_file_name;
    const auto long_ago = fs::file_time_type::clock::now() - std::chrono::hours(48);
    fs::last_write_time(meta, long_ago);
    const std::string text_before = read_text(meta);
    REQUIRE(load(cache, k));
    CHECK(fs::file_time_type::clock::now() - fs::last_write_time(meta) < std::chrono::minutes(1));
    CHECK(read_text(meta) == text_before); // no rewrite, only the timestamp
}

TEST_CASE("max_bytes evicts the least recently used entries and keeps the recent ones") {
    scratch_dir tmp;
    const sample_kernel a = make_sample(1, 3000), b = make_sample(2, 3000), c = make_sample(3, 3000),
                        d = make_sample(4, 3000);
    std::uint64_t entry_bytes = 0;
    {
        disk_cache unlimited(settings_for(tmp.path()));
        store(unlimited, a);
        entry_bytes = list_entries(tmp.path()).at(0).bytes;
    }
    // Room for three entries, not four.
    disk_cache cache(settings_for(tmp.path(), mode::readwrite, 3 * entry_bytes + entry_bytes / 2));
    // Explicit times: the file system's clock may not tick between two quick stores.
    auto age = [&](const sample_kernel& k, int minutes) {
        fs::last_write_time(entry_path(tmp.path(), k.key()) / metadata_file_name,
                            fs::file_time_type::clock::now() - std::chrono::minutes(minutes));
    };
    store(cache, b);
    store(cache, c);
    age(a, 30);
    age(b, 20);
    age(c, 10);
    REQUIRE(load(cache, a)); // a is now the most recently used
    store(cache, d);

    CHECK(load(cache, a) == a.binary);
    CHECK_FALSE(fs::exists(entry_path(tmp.path(), b.key()))); // least recently used
    CHECK(load(cache, c) == c.binary);
    CHECK(load(cache, d) == d.binary);
    std::uint64_t total = 0;
    for (const auto& e : list_entries(tmp.path())) total += e.bytes;
    CHECK(total <= cache.config().max_bytes);
}

TEST_CASE("an entry larger than max_bytes is not kept on disk") {
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path(), mode::readwrite, 1000));
    store(cache, make_sample(1, 5000));
    CHECK(list_entries(tmp.path()).empty());
    CHECK(cache.usable()); // over the limit is not a failure
}

TEST_CASE("store with an unknown binary kind writes nothing and does not disable the cache") {
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    sample_kernel k = make_sample(1);
    k.details.binary_kind = "fatbin";
    captured_stderr err(tmp.path() / "stderr.txt");
    store(cache, k);
    const std::string warnings = err.text();
    CHECK(warnings.find("unknown source extension '.cl' or binary kind 'fatbin'") != std::string::npos);
    CHECK(cache.usable());
    CHECK(names_in(tmp.path()) == std::vector<std::string>{"stderr.txt"});
}
