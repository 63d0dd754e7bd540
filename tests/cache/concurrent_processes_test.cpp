// Several real processes compiling the same and different kernels into one cache directory at
// once: every process succeeds, every load returns a binary some process stored for that kernel,
// and the directory ends up holding only complete entries.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include <sys/wait.h>

#include "cache/cache_inventory.hpp"
#include "cache/cache_test_support.hpp"

using namespace loom::cache;
using namespace loom::cache::test;

namespace {

constexpr int processes = 8;
constexpr int rounds = 200;
constexpr int shared_kernels = 6; // every process builds these
constexpr int own_kernels = 4;    // and these only it builds

int kernel_number(int process, int round) {
    const int pick = (process * 7 + round * 13) % (shared_kernels + own_kernels);
    return pick < shared_kernels ? pick : 100 + process * own_kernels + (pick - shared_kernels);
}

// A binary another writer may have stored for kernel n: the pattern of n with any writer id.
bool is_binary_of(const std::vector<unsigned char>& binary, int n, std::size_t bytes) {
    if (binary.size() != bytes) return false;
    const std::vector<unsigned char> expected = sample_binary(n, bytes);
    return std::equal(binary.begin(), binary.end() - 4, expected.begin());
}

// The body of one child process; the exit status says what went wrong (0: nothing).
int compile_like_a_program(const fs::path& dir, std::uint64_t max_bytes, int process) {
    int status = 0;
    try {
        for (int round = 0; round < rounds; ++round) {
            // A new cache object per round, as separate program runs would have.
            disk_cache cache(settings_for(dir, mode::readwrite, max_bytes));
            const int n = kernel_number(process, round);
            const std::size_t bytes = 512 + std::size_t(n % 5) * 1000;
            const sample_kernel k = make_sample(n, bytes, unsigned(::getpid()));
            if (auto hit = load(cache, k)) {
                if (!is_binary_of(*hit, n, bytes)) status |= 1;
                if (round % 7 == 0) { // now and then the driver rejects the binary: drop and rebuild
                    cache.forget(k.key());
                    store(cache, k);
                }
            } else {
                store(cache, k); // a miss: "compile" and store, racing the others
            }
            if (!cache.usable()) status |= 2;
        }
    } catch (...) {
        status |= 4;
    }
    return status;
}

void run_processes(const fs::path& dir, std::uint64_t max_bytes) {
    // Children wait on a pipe until all exist, so that they really run at the same time.
    int start[2];
    REQUIRE(::pipe(start) == 0);
    std::vector<pid_t> children;
    for (int p = 0; p < processes; ++p) {
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            ::close(start[1]);
            char go;
            if (::read(start[0], &go, 1) != 0) ::_exit(64);
            ::_exit(compile_like_a_program(dir, max_bytes, p));
        }
        children.push_back(child);
    }
    ::close(start[0]);
    ::close(start[1]); // end of file: every child starts now
    for (pid_t child : children) {
        int status = 0;
        REQUIRE(::waitpid(child, &status, 0) == child);
        REQUIRE(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
}

} // namespace

TEST_CASE("processes storing and loading the same and different kernels at once all succeed") {
    scratch_dir tmp;
    run_processes(tmp.path(), 0);

    const inventory inv = take_inventory(tmp.path());
    CHECK(inv.bad.empty());
    CHECK(inv.foreign.empty());
    // Every kernel any process built is there, and nothing else (no staging or trash).
    std::set<int> built;
    for (int p = 0; p < processes; ++p)
        for (int round = 0; round < rounds; ++round) built.insert(kernel_number(p, round));
    CHECK(inv.good.size() == built.size());
    CHECK(names_in(tmp.path()).size() == built.size());

    disk_cache cache(settings_for(tmp.path()));
    for (int n : built) {
        const std::size_t bytes = 512 + std::size_t(n % 5) * 1000;
        const auto hit = load(cache, make_sample(n, bytes));
        REQUIRE(hit);
        CHECK(is_binary_of(*hit, n, bytes));
    }
}

TEST_CASE("processes evicting under a size limit at once leave only complete entries") {
    scratch_dir tmp;
    run_processes(tmp.path(), 16 * 1024);

    const inventory inv = take_inventory(tmp.path());
    CHECK(inv.bad.empty());
    CHECK_FALSE(inv.good.empty());
    for (const std::string& name : names_in(tmp.path())) CHECK(key_from_hex(name)); // no leftovers
}
