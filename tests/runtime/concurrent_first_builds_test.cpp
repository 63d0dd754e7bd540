// Contexts opened on several threads at once need the same kernels: Loom builds one kernel text
// per device at a time in the process, and the others load what it built (cache/build_turns.hpp).
// With PoCL's own kernel cache off, two builds or releases of one text at once abort inside
// PoCL (issue 34); the scenario runs in child processes, so that an abort fails this test
// rather than ending the suite.
#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>

namespace {

constexpr const char* scenario = "first contexts on four threads built and released at once";

// Lets `count` threads pass together.
class meeting {
public:
    explicit meeting(int count) : left_(count) {}
    void arrive() {
        std::unique_lock<std::mutex> lock(lock_);
        if (--left_ == 0) all_here_.notify_all();
        all_here_.wait(lock, [&] { return left_ == 0; });
    }

private:
    std::mutex lock_;
    std::condition_variable all_here_;
    int left_;
};

} // namespace

// Run by the test below in a child process (doctest's --no-skip), not by the suite itself.
TEST_CASE("first contexts on four threads built and released at once" * doctest::skip()) {
    constexpr int threads = 4;
    meeting opened(threads), computed(threads);
    std::vector<int> right(threads, 0);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            loom::context_options o;
            o.backend = "opencl";
            opened.arrive(); // the contexts open, compile and launch at once
            loom::context ctx(o);
            loom::vector<float> x(ctx, 1000, float(t)), y(ctx, 1000);
            y = x * 2.0f + 1.0f;
            right[std::size_t(t)] = y.to_host()[999] == float(t) * 2.0f + 1.0f;
            computed.arrive(); // and go at once, releasing their programs together
        });
    for (std::thread& t : pool) t.join();
    for (int t = 0; t < threads; ++t) CHECK(right[std::size_t(t)] == 1);
}

// Under AddressSanitizer the children abort in the sanitizer's own thread teardown (its munmap of
// a thread's signal stack fails: "unable to unmap"), outside Loom and PoCL, so the sanitizer
// builds leave this scenario to the plain build, which runs it in CI.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif

TEST_CASE("contexts opened on four threads at once all work with PoCL's kernel cache and Loom's disk cache off") {
    if (sanitized) {
        MESSAGE("skipped in a sanitizer build: the child processes run in the plain build");
        return;
    }
    const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    const std::string command =
        "POCL_KERNEL_CACHE=0 LOOM_CACHE=off '" + self + "' --no-skip '--test-case=" + scenario + "' 2>&1";
    int failed = 0;
    std::string last_failure;
    for (int run = 0; run < 3; ++run) {
        std::FILE* pipe = ::popen(command.c_str(), "r");
        REQUIRE(pipe);
        std::string output;
        char buffer[4096];
        for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
        const int status = ::pclose(pipe);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            ++failed;
            last_failure = output.substr(output.size() > 2000 ? output.size() - 2000 : 0);
        }
    }
    INFO("the last failed child said:\n" << last_failure);
    CHECK(failed == 0);
}
