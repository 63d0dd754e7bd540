// The loom-cache command line: each command's output and exit status, run as a real process
// on a cache directory filled through disk_cache.
#include <doctest/doctest.h>

#include <cctype>
#include <chrono>
#include <map>

#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "cache/cache_inventory.hpp"
#include "cache/cache_test_support.hpp"
#include "loom/version.hpp"
#include "tool_runner.hpp"

using namespace loom::cache;
using namespace loom::cache::test;

#ifdef LOOM_CACHE_TOOL

namespace {

using loom_test::tool_result;

// Runs "[env] loom-cache <arguments>" through the shell.
tool_result run_tool(const std::string& arguments, const std::string& environment = "") {
    return loom_test::run_command(environment + " '" LOOM_CACHE_TOOL "' " + arguments + " 2>&1");
}

// The same with standard output alone, parsed as JSON (a parse error fails the test).
nlohmann::json run_tool_json(const std::string& arguments) {
    const tool_result r = loom_test::run_command("'" LOOM_CACHE_TOOL "' " + arguments);
    INFO(r.output);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.output);
}

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Two OpenCL kernels and one CUDA kernel, as a program run would leave them.
struct filled_cache {
    scratch_dir tmp;
    sample_kernel first = make_sample(1, 4096), second = make_sample(2, 1024), cuda = make_cuda_sample(3, 2048);
    std::string dir = quoted(tmp.path());

    filled_cache() {
        disk_cache cache(settings_for(tmp.path()));
        for (const sample_kernel* k : {&first, &second, &cuda}) store(cache, *k);
    }
    fs::path entry(const sample_kernel& k) const { return entry_path(tmp.path(), k.key()); }
    void set_last_use(const sample_kernel& k, std::chrono::hours ago) const {
        fs::last_write_time(entry(k) / metadata_file_name, fs::file_time_type::clock::now() - ago);
    }
};

} // namespace

TEST_CASE("loom-cache list shows one line per entry and exits 0") {
    filled_cache c;
    const tool_result r = run_tool("list --dir " + c.dir);
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(has(r.output, "HASH"));
    CHECK(has(r.output, "SUMMARY"));
    for (const sample_kernel* k : {&c.first, &c.second, &c.cuda}) {
        CHECK(has(r.output, k->key().hex().substr(0, 12)));
        CHECK(has(r.output, k->details.summary));
    }
    CHECK(has(r.output, "NVIDIA H100 80GB HBM3"));
    CHECK(has(r.output, "12.5 ms"));
    CHECK(has(r.output, "3 entries"));
}

TEST_CASE("loom-cache list of an empty or missing directory says so and exits 0") {
    scratch_dir tmp;
    tool_result r = run_tool("list --dir " + quoted(tmp.path()));
    CHECK(r.status == 0);
    CHECK(has(r.output, "no entries in " + tmp.path().string()));
    r = run_tool("list --dir " + quoted(tmp.path() / "absent"));
    CHECK(r.status == 0);
    CHECK(has(r.output, "does not exist"));
}

TEST_CASE("loom-cache show accepts a unique hash prefix and prints metadata, source and build log") {
    filled_cache c;
    const std::string hex = c.cuda.key().hex();
    for (const std::string& prefix : {hex.substr(0, 8), hex, [&] {
                                          std::string upper = hex.substr(0, 10);
                                          for (char& ch : upper)
                                              ch = char(std::toupper(static_cast<unsigned char>(ch)));
                                          return upper;
                                      }()}) {
        const tool_result r = run_tool("show " + prefix + " --dir " + c.dir);
        INFO(prefix << "\n" << r.output);
        CHECK(r.status == 0);
        CHECK(has(r.output, hex));
        CHECK(has(r.output, "cuda"));
        CHECK(has(r.output, "--gpu-architecture=sm_90"));
        CHECK(has(r.output, "binary.cubin (cubin, 2.0 KiB)"));
        CHECK(has(r.output, "last used"));
        CHECK(has(r.output, c.cuda.source));
        CHECK(has(r.output, c.cuda.details.build_log));
    }
}

TEST_CASE("loom-cache show with an unknown, ambiguous or malformed hash exits 2") {
    filled_cache c;
    tool_result r = run_tool("show 0000000000000000 --dir " + c.dir);
    if (has(c.first.key().hex() + c.second.key().hex() + c.cuda.key().hex(), "0000000000000000"))
        return; // astronomically unlikely
    CHECK(r.status == 2);
    CHECK(has(r.output, "no entry in " + c.tmp.path().string() + " has a hash starting with '0000000000000000'"));

    r = run_tool("show not-a-hash --dir " + c.dir);
    CHECK(r.status == 2);
    CHECK(has(r.output, "is not a hash"));

    r = run_tool("show --dir " + c.dir); // the hash is required
    CHECK(r.status == 2);

    // Two entries whose hashes share a first digit (17 kernels guarantee a pair).
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    std::map<char, int> by_digit;
    for (int n = 10;; ++n) {
        const char digit = make_sample(n).key().hex()[0];
        if (by_digit.count(digit)) {
            store(cache, make_sample(by_digit[digit]));
            store(cache, make_sample(n));
            r = run_tool(std::string("show ") + digit + " --dir " + quoted(tmp.path()));
            INFO(r.output);
            CHECK(r.status == 2);
            CHECK(has(r.output, "matches 2 entries; give more digits"));
            CHECK(has(r.output, make_sample(n).key().hex()));
            break;
        }
        by_digit[digit] = n;
    }
}

TEST_CASE("loom-cache show of a damaged entry explains it and exits 1") {
    filled_cache c;
    fs::resize_file(c.entry(c.first) / "binary.bin", 10);
    const tool_result r = run_tool("show " + c.first.key().hex().substr(0, 6) + " --dir " + c.dir);
    CHECK(r.status == 1);
    CHECK(has(r.output, "is damaged: binary.bin is 10 bytes, meta.json says 4144"));
}

TEST_CASE("loom-cache stats counts entries, bytes and backends") {
    filled_cache c;
    c.set_last_use(c.second, std::chrono::hours(1));
    const tool_result r = run_tool("stats --dir " + c.dir);
    INFO(r.output);
    CHECK(r.status == 0);
    std::uint64_t total = 0;
    for (const auto& e : list_entries(c.tmp.path())) total += e.bytes;
    CHECK(has(r.output, "entries     3"));
    CHECK(has(r.output, "(" + std::to_string(total) + " bytes)"));
    CHECK(has(r.output, "cuda 1, opencl 2"));
    CHECK(has(r.output, "oldest"));
    CHECK(has(r.output, "newest"));
}

TEST_CASE("loom-cache verify exits 0 on a clean cache and 1 on a damaged one, and --fix removes the damage") {
    filled_cache c;
    write_text(c.tmp.path() / "notes.txt", "mine");
    tool_result r = run_tool("verify --dir " + c.dir);
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(has(r.output, "checked 3 entries in " + c.tmp.path().string() + ": 3 good, 0 bad"));
    CHECK(has(r.output, "ignored   notes.txt  (not a Loom entry; left alone)"));

    fs::resize_file(c.entry(c.second) / "binary.bin", 100);
    write_text(c.entry(c.cuda) / "meta.json", "garbage");
    r = run_tool("verify --dir " + c.dir);
    CHECK(r.status == 1);
    CHECK(has(r.output, "bad       " + c.second.key().hex() + "  binary.bin is 100 bytes, meta.json says 1072"));
    CHECK(has(r.output, "bad       " + c.cuda.key().hex() + "  meta.json is not a JSON object"));
    CHECK(has(r.output, "1 good, 2 bad"));
    CHECK(has(r.output, "verify --fix"));

    r = run_tool("verify --fix --dir " + c.dir);
    CHECK(r.status == 0);
    CHECK(has(r.output, "removed 2 bad entries"));
    CHECK_FALSE(fs::exists(c.entry(c.second)));
    CHECK_FALSE(fs::exists(c.entry(c.cuda)));
    CHECK(fs::exists(c.entry(c.first)));
    CHECK(read_text(c.tmp.path() / "notes.txt") == "mine");

    r = run_tool("verify --dir " + c.dir);
    CHECK(r.status == 0);
    CHECK(has(r.output, "1 good, 0 bad"));
}

TEST_CASE("loom-cache verify reports what Loom did not write at an entry's name, and --fix leaves it") {
    filled_cache c;
    const sample_kernel file_at_entry = make_sample(7), string_version = make_sample(8);
    write_text(c.tmp.path() / file_at_entry.key().hex(), "my file");
    fs::create_directories(c.tmp.path() / string_version.key().hex());
    const std::string foreign_meta = R"({"format_version": "3", "key": ")" + string_version.key().hex() + "\"}";
    write_text(c.tmp.path() / string_version.key().hex() / "meta.json", foreign_meta);
    // And an entry Loom wrote whose metadata was edited the same way: damaged, and Loom's to repair.
    nlohmann::json meta = nlohmann::json::parse(read_text(c.entry(c.second) / "meta.json"));
    meta["format_version"] = "3";
    write_text(c.entry(c.second) / "meta.json", meta.dump(2));

    tool_result r = run_tool("verify --dir " + c.dir);
    INFO(r.output);
    CHECK(r.status == 1);
    CHECK(has(r.output,
              "bad       " + c.second.key().hex() + "  meta.json's format_version is a string, not a number (\"3\")"));
    CHECK(has(r.output, "ignored   " + file_at_entry.key().hex() +
                            "  (not a Loom entry: not a directory: a file Loom did not write; left alone)"));
    CHECK(has(r.output, "ignored   " + string_version.key().hex() +
                            "  (not a Loom entry: meta.json's format_version is a string, not a number (\"3\"); "
                            "left alone)"));
    CHECK(has(r.output, "checked 3 entries in " + c.tmp.path().string() + ": 2 good, 1 bad"));

    r = run_tool("verify --fix --dir " + c.dir);
    CHECK(r.status == 0);
    CHECK(has(r.output, "removed 1 bad entry"));
    CHECK_FALSE(fs::exists(c.entry(c.second)));
    CHECK(read_text(c.tmp.path() / file_at_entry.key().hex()) == "my file");
    CHECK(read_text(c.tmp.path() / string_version.key().hex() / "meta.json") == foreign_meta);

    r = run_tool("verify --dir " + c.dir); // nothing left to repair: what is not Loom's is no damage
    CHECK(r.status == 0);
    CHECK(has(r.output, "2 good, 0 bad"));
    r = run_tool("clear --dir " + c.dir);
    CHECK(r.status == 0);
    CHECK(names_in(c.tmp.path()) ==
          std::vector<std::string>{std::min(file_at_entry.key().hex(), string_version.key().hex()),
                                   std::max(file_at_entry.key().hex(), string_version.key().hex())});
}

TEST_CASE("loom-cache verify reports and --fix removes leftovers of interrupted writes") {
    filled_cache c;
    const std::string hex = c.first.key().hex();
    const fs::path stale = c.tmp.path() / (".tmp-" + hex + "-99999-0"),
                   young = c.tmp.path() / (".tmp-" + hex + "-99999-1");
    fs::create_directories(stale);
    fs::create_directories(young);
    write_text(stale / "binary.bin", "half");
    fs::last_write_time(stale, fs::file_time_type::clock::now() - std::chrono::hours(2));
    tool_result r = run_tool("verify --dir " + c.dir);
    CHECK(r.status == 1);
    CHECK(has(r.output, "leftover  .tmp-" + hex + "-99999-0"));
    CHECK_FALSE(has(r.output, "-99999-1")); // may belong to a writer still at work
    r = run_tool("verify --fix --dir " + c.dir);
    CHECK(r.status == 0);
    CHECK_FALSE(fs::exists(stale));
    CHECK(fs::exists(young));
}

TEST_CASE("loom-cache prune --max-size removes least recently used entries first") {
    filled_cache c;
    c.set_last_use(c.first, std::chrono::hours(3));
    c.set_last_use(c.second, std::chrono::hours(1));
    c.set_last_use(c.cuda, std::chrono::hours(2));
    const auto keep_bytes = fs::file_size(c.entry(c.second) / "binary.bin") + 2000; // room for "second" only
    const tool_result r = run_tool("prune --max-size " + std::to_string(keep_bytes) + " --dir " + c.dir);
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(has(r.output, "removed 2 entries"));
    CHECK(has(r.output, "1 left"));
    CHECK_FALSE(fs::exists(c.entry(c.first)));
    CHECK_FALSE(fs::exists(c.entry(c.cuda)));
    CHECK(fs::exists(c.entry(c.second)));
}

TEST_CASE("loom-cache prune --older-than removes entries unused for that long") {
    filled_cache c;
    c.set_last_use(c.first, std::chrono::hours(24 * 40));
    const tool_result r = run_tool("prune --older-than 30d --dir " + c.dir);
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(has(r.output, "removed  " + c.first.key().hex().substr(0, 12)));
    CHECK(has(r.output, "removed 1 entry"));
    CHECK(has(r.output, "2 left"));
    CHECK_FALSE(fs::exists(c.entry(c.first)));
    CHECK(fs::exists(c.entry(c.second)));
}

TEST_CASE("loom-cache prune with no limit or a bad one is a usage error, exit 2") {
    filled_cache c;
    tool_result r = run_tool("prune --dir " + c.dir);
    CHECK(r.status == 2);
    CHECK(has(r.output, "--max-size"));
    r = run_tool("prune --max-size lots --dir " + c.dir);
    CHECK(r.status == 2);
    CHECK(has(r.output, "--max-size 'lots' is not a size"));
    r = run_tool("prune --older-than 3 --dir " + c.dir);
    CHECK(r.status == 2);
    CHECK(has(r.output, "--older-than '3' is not a duration"));
    CHECK(list_entries(c.tmp.path()).size() == 3);
}

TEST_CASE("loom-cache clear removes every entry but keeps the directory and other files") {
    filled_cache c;
    write_text(c.tmp.path() / "README.md", "kept");
    const tool_result r = run_tool("clear --dir " + c.dir);
    CHECK(r.status == 0);
    CHECK(has(r.output, "removed 3 entries from " + c.tmp.path().string()));
    CHECK(names_in(c.tmp.path()) == std::vector<std::string>{"README.md"});
}

TEST_CASE("loom-cache path prints --dir, else the directory the environment selects") {
    scratch_dir tmp;
    tool_result r = run_tool("path --dir " + quoted(tmp.path()));
    CHECK(r.status == 0);
    CHECK(r.output == tmp.path().string() + "\n");
    r = run_tool("path", "LOOM_CACHE_DIR=/srv/kernels");
    CHECK(r.output == "/srv/kernels\n");
    r = run_tool("path", "env -u LOOM_CACHE_DIR XDG_CACHE_HOME=/var/cache/ada");
    CHECK(r.output == "/var/cache/ada/loom\n");
    r = run_tool("path", "env -u LOOM_CACHE_DIR -u XDG_CACHE_HOME HOME=/home/ada");
    CHECK(r.output == "/home/ada/.cache/loom\n");
    r = run_tool("--dir " + quoted(tmp.path()) + " path"); // --dir before the subcommand too
    CHECK(r.output == tmp.path().string() + "\n");
}

TEST_CASE("loom-cache list --json gives one object per entry with its kernel and metadata") {
    filled_cache c;
    const nlohmann::json j = run_tool_json("list --json --dir " + c.dir);
    CHECK(j["directory"] == c.tmp.path().string());
    CHECK(j["exists"] == true);
    CHECK(j["damaged"] == 0);
    std::uint64_t total = 0;
    for (const auto& e : list_entries(c.tmp.path())) total += e.bytes;
    CHECK(j["total_bytes"] == total);
    REQUIRE(j["entries"].size() == 3);
    std::map<std::string, nlohmann::json> by_hash;
    for (const nlohmann::json& e : j["entries"]) by_hash[e["hash"].get<std::string>()] = e;
    for (const sample_kernel* k : {&c.first, &c.second, &c.cuda}) {
        REQUIRE(by_hash.count(k->key().hex()) == 1);
        const nlohmann::json& e = by_hash[k->key().hex()];
        CHECK(e["name"] == k->details.name);
        CHECK(e["backend"] == k->backend);
        CHECK(e["device"] == k->device);
        CHECK(e["driver"] == k->driver);
        CHECK(e["summary"] == k->details.summary);
        CHECK(e["compile_ms"] == 12.5);
        CHECK(e["bytes"].get<std::uint64_t>() > k->binary.size());
        CHECK(e["created"].get<std::string>().size() == 20); // 2025-05-01T09:30:12Z
        CHECK(e["last_used"].get<std::string>().size() == 20);
    }
    // The text form names the kernels too.
    const tool_result r = run_tool("list --dir " + c.dir);
    CHECK(has(r.output, "KERNEL"));
    CHECK(has(r.output, c.first.details.name));
}

TEST_CASE("loom-cache list --json of an empty or missing directory has no entries") {
    scratch_dir tmp;
    nlohmann::json j = run_tool_json("list --json --dir " + quoted(tmp.path() / "absent"));
    CHECK(j["exists"] == false);
    CHECK(j["entries"].empty());
    CHECK(j["total_bytes"] == 0);
}

TEST_CASE("loom-cache show ties an entry to its kernel's statements, found by hash or by kernel name") {
    filled_cache c;
    for (const std::string& which : {c.first.key().hex().substr(0, 10), c.first.details.name}) {
        const tool_result r = run_tool("show " + which + " --dir " + c.dir);
        INFO(which << "\n" << r.output);
        CHECK(r.status == 0);
        CHECK(has(r.output, c.first.key().hex()));
        CHECK(has(r.output, "kernel     " + c.first.details.name));
        CHECK(has(r.output, "--- statements (the kernel's comment header) ---\n" + c.first.details.header));
        CHECK(has(r.output, c.first.source));
    }
    const nlohmann::json j = run_tool_json("show " + c.cuda.details.name + " --json --dir " + c.dir);
    CHECK(j["hash"] == c.cuda.key().hex());
    CHECK(j["name"] == c.cuda.details.name);
    CHECK(j["header"] == c.cuda.details.header);
    CHECK(j["summary"] == c.cuda.details.summary);
    CHECK(j["backend"] == "cuda");
    CHECK(j["device"] == c.cuda.device);
    CHECK(j["options"] == c.cuda.options);
    CHECK(j["path"] == c.entry(c.cuda).string());
    CHECK(j["source"]["file"] == "source.cu");
    CHECK(j["source"]["bytes"] == c.cuda.source.size());
    CHECK(j["source"]["text"] == c.cuda.source);
    CHECK(j["binary"]["kind"] == "cubin");
    CHECK(j["binary"]["file"] == "binary.cubin");
    CHECK(j["tuned"].is_null());
    CHECK(j["build_log"] == c.cuda.details.build_log);

    // A name no entry holds, and one that is not a name.
    tool_result r = run_tool("show loom_00000000000000ff --dir " + c.dir);
    CHECK(r.status == 2);
    CHECK(has(r.output, "no entry in " + c.tmp.path().string() + " holds the kernel loom_00000000000000ff"));
    r = run_tool("show loom_12 --dir " + c.dir);
    CHECK(r.status == 2);
    CHECK(has(r.output, "is not a kernel name"));
}

TEST_CASE("loom-cache show by kernel name asks for a hash when the kernel was compiled for two devices") {
    scratch_dir tmp;
    disk_cache cache(settings_for(tmp.path()));
    sample_kernel a = make_sample(7), b = make_sample(7);
    b.device = "another device";
    store(cache, a);
    store(cache, b);
    const tool_result r = run_tool("show " + a.details.name + " --dir " + quoted(tmp.path()));
    INFO(r.output);
    CHECK(r.status == 2);
    CHECK(has(r.output, "is in 2 entries (one per device it was compiled for)"));
    CHECK(has(r.output, a.key().hex()));
    CHECK(has(r.output, b.key().hex()));
}

TEST_CASE("loom-cache stats --json counts entries, bytes and backends") {
    filled_cache c;
    fs::resize_file(c.entry(c.second) / "binary.bin", 10); // one damaged entry
    const nlohmann::json j = run_tool_json("stats --json --dir " + c.dir);
    CHECK(j["directory"] == c.tmp.path().string());
    CHECK(j["entries"] == 3);
    CHECK(j["damaged"] == 1);
    CHECK(j["backends"] == nlohmann::json({{"cuda", 1}, {"opencl", 1}}));
    std::uint64_t total = 0;
    for (const auto& e : list_entries(c.tmp.path())) total += e.bytes;
    CHECK(j["total_bytes"] == total);
    REQUIRE(j["oldest"].is_object());
    REQUIRE(j["newest"].is_object());
    CHECK(j["oldest"].contains("hash"));
    CHECK(j["leftovers"] == 0);
    scratch_dir empty;
    const nlohmann::json none = run_tool_json("stats --json --dir " + quoted(empty.path()));
    CHECK(none["entries"] == 0);
    CHECK(none["oldest"].is_null());
}

TEST_CASE("loom-cache --version prints Loom's version and exits 0") {
    const tool_result r = loom_test::run_command("'" LOOM_CACHE_TOOL "' --version");
    CHECK(r.status == 0);
    CHECK(r.output == std::string(loom::version()) + "\n");
}

TEST_CASE("loom-cache usage errors exit 2 and --help exits 0") {
    tool_result r = run_tool("");
    CHECK(r.status == 2);
    CHECK(has(r.output, "give a command: list, show, stats, verify, prune, clear or path"));
    r = run_tool("frobnicate");
    CHECK(r.status == 2);
    CHECK(has(r.output, "frobnicate"));
    CHECK(run_tool("list --no-such-option").status == 2);
    const tool_result help = run_tool("--help");
    CHECK(help.status == 0);
    CHECK(has(help.output, "verify"));
}

TEST_CASE("loom-cache on a directory it cannot read exits 3") {
    scratch_dir tmp;
    write_text(tmp.path() / "a-file", "x");
    const tool_result r = run_tool("list --dir " + quoted(tmp.path() / "a-file"));
    CHECK(r.status == 3);
    CHECK(has(r.output, "is not a directory"));
}

#else

TEST_CASE("loom-cache tests need LOOM_CACHE_TOOL") {
    MESSAGE("the loom-cache target was not built; CLI tests skipped");
}

#endif
