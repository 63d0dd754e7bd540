// A cache directory Loom cannot write (read-only, impossible to create, or on a full disk)
// turns the disk cache off with exactly one warning; the program goes on and nothing half
// written is left behind.
#include <doctest/doctest.h>

#include <csignal>

#include <sys/resource.h>
#include <sys/wait.h>

#include "cache/cache_inventory.hpp"
#include "cache/cache_test_support.hpp"

using namespace loom::cache;
using namespace loom::cache::test;

namespace {

// Stores and loads a few kernels through a cache that cannot write; returns what stderr got.
std::string exercise_unwritable_cache(disk_cache& cache, const fs::path& stderr_file) {
    captured_stderr err(stderr_file);
    for (int n = 1; n <= 3; ++n) {
        CHECK_NOTHROW(store(cache, make_sample(n)));
        std::optional<std::vector<unsigned char>> loaded;
        CHECK_NOTHROW(loaded = load(cache, make_sample(n)));
        CHECK_FALSE(loaded);
        CHECK_NOTHROW(cache.forget(make_sample(n).key()));
    }
    return err.text();
}

} // namespace

TEST_CASE("a cache directory below a regular file falls back to memory with one warning") {
    scratch_dir tmp;
    write_text(tmp.path() / "a-file", "x");
    disk_cache cache(settings_for(tmp.path() / "a-file" / "loom"));
    CHECK(cache.usable());

    const std::string warnings = exercise_unwritable_cache(cache, tmp.path() / "stderr.txt");
    CHECK(count_of(warnings, "loom warning:") == 1);
    CHECK(warnings.find("cannot create " + (tmp.path() / "a-file" / "loom").string()) != std::string::npos);
    CHECK(warnings.find("LOOM_CACHE_DIR") != std::string::npos); // says what to do
    CHECK_FALSE(cache.usable());
}

TEST_CASE("no cache directory at all falls back to memory with one warning") {
    scratch_dir tmp;
    disk_cache cache(settings_for(fs::path()));
    const std::string warnings = exercise_unwritable_cache(cache, tmp.path() / "stderr.txt");
    CHECK(count_of(warnings, "loom warning:") == 1);
    CHECK(warnings.find("no cache directory") != std::string::npos);
    CHECK_FALSE(cache.usable());
}

TEST_CASE("a read-only cache directory falls back to memory with one warning and still serves its kernels") {
    scratch_dir tmp;
    const fs::path dir = tmp.path() / "shared";
    const sample_kernel prebuilt = make_sample(9);
    {
        disk_cache writer(settings_for(dir));
        store(writer, prebuilt);
    }
    fs::permissions(dir, fs::perms(0555));
    // root ignores permission bits; the test then only shows that nothing breaks.
    const bool writable_anyway = ::access(dir.c_str(), W_OK) == 0;

    disk_cache cache(settings_for(dir));
    captured_stderr err(tmp.path() / "stderr.txt");
    for (int n = 1; n <= 3; ++n) CHECK_NOTHROW(store(cache, make_sample(n)));
    CHECK(load(cache, prebuilt) == prebuilt.binary);
    const std::string warnings = err.text();
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add);
    if (writable_anyway) {
        MESSAGE("running as root: a 0555 directory is writable, see the test below a regular file");
        CHECK(count_of(warnings, "loom warning:") == 0);
        CHECK(cache.usable());
        CHECK(load(cache, make_sample(1)) == make_sample(1).binary);
    } else {
        CHECK(count_of(warnings, "loom warning:") == 1);
        CHECK(warnings.find("Permission denied") != std::string::npos);
        CHECK_FALSE(cache.usable());
        CHECK_FALSE(load(cache, make_sample(1)));
        CHECK(names_in(dir) == std::vector<std::string>{prebuilt.key().hex()});
    }
}

TEST_CASE("a write failing half way (full disk) leaves no partial entry, no exception and one warning") {
    // A child process with a 4 KiB file size limit: writing the 64 KiB binary fails with EFBIG
    // part way through, exactly as a full disk fails with ENOSPC.
    scratch_dir tmp;
    const fs::path dir = tmp.path() / "cache";
    const fs::path child_stderr = tmp.path() / "stderr.txt";
    fs::create_directories(dir);

    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        int status = 0;
        {
            captured_stderr err(child_stderr);
            std::signal(SIGXFSZ, SIG_IGN);
            const rlimit limit{4096, 4096};
            ::setrlimit(RLIMIT_FSIZE, &limit);
            try {
                disk_cache cache(settings_for(dir));
                store(cache, make_sample(1, 64 * 1024));
                if (cache.usable()) status |= 1;
                store(cache, make_sample(2, 64 * 1024)); // after the fallback: a quiet no-op
                if (load(cache, make_sample(1))) status |= 2;
            } catch (...) {
                status |= 4;
            }
            const std::string warnings = err.text();
            if (count_of(warnings, "loom warning:") != 1) status |= 8;
            if (warnings.find("File too large") == std::string::npos) status |= 16;
        }
        ::_exit(status);
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    INFO("child stderr: " << read_text(child_stderr));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(names_in(dir).empty()); // no entry, no staging directory

    // With space again, the same directory works.
    disk_cache cache(settings_for(dir));
    store(cache, make_sample(1, 64 * 1024));
    CHECK(load(cache, make_sample(1, 64 * 1024)) == make_sample(1, 64 * 1024).binary);
}
