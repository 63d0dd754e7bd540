// The kinds of loom::error a program can catch apart (build_error, out_of_memory, no_device,
// length_error), each thrown where its failure happens and caught both as itself and as
// loom::error; and loom::set_log_handler receiving the log lines, stamped, instead of stderr.
#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <cctype>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "../cache/cache_test_support.hpp"
#include "backend/device.hpp"
#include "cache/program_cache.hpp"
#include "runtime/context_impl.hpp"
#include "support/log.hpp"

namespace {

using loom::cache::test::captured_stderr;
using loom::cache::test::read_text;
using loom::cache::test::scoped_env;
using loom::cache::test::scratch_dir;

loom::context_options on_opencl() {
    loom::context_options o;
    o.backend = "opencl";
    return o;
}

// Runs f, which must throw E; checks that the same throw is caught by a handler for
// loom::error too, and returns the message.
template <class E, class F> std::string thrown(F&& f) {
    std::string message;
    try {
        f();
        FAIL_CHECK("threw nothing");
    } catch (const E& e) {
        message = e.what();
    } catch (const std::exception& e) {
        FAIL_CHECK("threw another type: ", std::string(e.what()));
    }
    CHECK_THROWS_AS(f(), loom::error);
    return message;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Collects what a log handler is given, from any thread.
struct collected_lines {
    std::mutex lock;
    std::vector<std::string> lines;

    void add(const std::string& line) {
        std::lock_guard<std::mutex> guard(lock);
        lines.push_back(line);
    }
    std::vector<std::string> taken() {
        std::lock_guard<std::mutex> guard(lock);
        return lines;
    }
};

// Sets a handler for a scope, and restores the default after it.
struct handler_scope {
    explicit handler_scope(std::function<void(const std::string&)> f) { loom::set_log_handler(std::move(f)); }
    ~handler_scope() { loom::set_log_handler(nullptr); }
};

// Whether a line has the handler's form: "YYYY-MM-DDTHH:MM:SS.mmmZ loom <channel>[ [context N]]: <text>".
// Written by hand rather than with std::regex, whose GCC 12 headers warn (maybe-uninitialized)
// in the sanitizer build, where warnings are errors.
bool stamped_line(const std::string& line) {
    const std::string stamp = "dddd-dd-ddTdd:dd:dd.dddZ loom ";
    if (line.size() <= stamp.size()) return false;
    for (std::size_t i = 0; i < stamp.size(); ++i)
        if (stamp[i] == 'd' ? !std::isdigit(static_cast<unsigned char>(line[i])) : line[i] != stamp[i]) return false;
    std::size_t at = stamp.size();
    const std::size_t channel = at;
    while (at < line.size() && line[at] >= 'a' && line[at] <= 'z') ++at;
    if (at == channel) return false;
    const std::string context = " [context ";
    if (line.compare(at, context.size(), context) == 0) {
        at += context.size();
        const std::size_t digits = at;
        while (at < line.size() && std::isdigit(static_cast<unsigned char>(line[at]))) ++at;
        if (at == digits || at >= line.size() || line[at] != ']') return false;
        ++at;
    }
    return line.compare(at, 2, ": ") == 0 && line.size() > at + 2;
}

} // namespace

TEST_CASE("every error kind is a loom::error, so existing catch sites keep catching them") {
    static_assert(std::is_base_of_v<loom::error, loom::build_error>);
    static_assert(std::is_base_of_v<loom::error, loom::out_of_memory>);
    static_assert(std::is_base_of_v<loom::error, loom::no_device>);
    static_assert(std::is_base_of_v<loom::error, loom::length_error>);
    const loom::build_error b("loom: rejected", "line 1: error", "/tmp/k.cl");
    CHECK(std::string(b.what()) == "loom: rejected");
    CHECK(b.log() == "line 1: error");
    CHECK(b.source_path() == "/tmp/k.cl");
}

TEST_CASE("a vector larger than the device's largest allocation throws out_of_memory") {
    loom::context ctx(on_opencl());
    const std::uint64_t largest = ctx.impl()->info().max_allocation;
    const std::size_t elements = std::size_t(largest / sizeof(float) + 1);
    const std::string m = thrown<loom::out_of_memory>([&] { loom::vector<float> v(ctx, elements); });
    CHECK_MESSAGE(has(m, "loom: out of device memory: a vector of " + std::to_string(elements)), m);
    CHECK_MESSAGE(has(m, "exceeds the largest allocation"), m);
    // One within the limit is fine.
    loom::vector<float> small(ctx, 16, 1.0f);
    CHECK(small.to_host() == std::vector<float>(16, 1.0f));
}

TEST_CASE("a length whose byte count overflows 64 bits is reported as such, not as the wrapped-around bytes") {
    loom::context ctx(on_opencl());
    loom::vector<float> x(ctx, 16, 1.0f);
    const std::uint64_t floats = (std::uint64_t(1) << 62) + 1; // x 4 bytes = 2^64 + 4: 4 once wrapped
    const auto overflow_reported = [](const std::string& m, std::uint64_t n, const char* type, int bytes) {
        CHECK_MESSAGE(has(m, "a vector of " + std::to_string(n) + " " + type + " elements (" + std::to_string(bytes) +
                                 " bytes each) exceeds the addressable size"),
                      m);
        CHECK_MESSAGE(!has(m, "(4 bytes)"), m);
        CHECK_MESSAGE(!has(m, "(8 bytes)"), m);
    };
    overflow_reported(
        thrown<loom::out_of_memory>([&] { (void)loom::vector<float>::wrap(ctx, x.native_handle(), floats); }), floats,
        "float", 4);
    overflow_reported(thrown<loom::out_of_memory>([&] { loom::vector<float> v(ctx, floats); }), floats, "float", 4);
    const std::uint64_t words = (std::uint64_t(1) << 61) + 1;
    overflow_reported(thrown<loom::out_of_memory>([&] { loom::vector<std::uint64_t> v(ctx, words); }), words, "uint64",
                      8);
    CHECK(x.to_host() == std::vector<float>(16, 1.0f)); // nothing else changed
}

TEST_CASE("an allocation beyond what the device holds in all throws out_of_memory before the driver is asked") {
    loom::context ctx(on_opencl());
    loom::backend::device& dev = ctx.impl()->device();
    const std::uint64_t before = dev.memory_in_use();
    const std::string m = thrown<loom::out_of_memory>([&] { dev.allocate(std::size_t(dev.info().global_memory) + 1); });
    CHECK_MESSAGE(has(m, "loom: out of device memory: allocating"), m);
    CHECK(dev.memory_in_use() == before); // nothing was counted
}

TEST_CASE("assigning vectors of unequal length throws length_error and leaves the target unchanged") {
    loom::context ctx(on_opencl());
    loom::vector<float> a(ctx, 100, 1.0f), b(ctx, 50, 2.0f), y(ctx, 100, 3.0f);
    std::string m = thrown<loom::length_error>([&] { y = a + b; });
    CHECK_MESSAGE(has(m, "loom: length mismatch: assigning an expression over 50 elements to a vector of 100"), m);
    loom::vector<double> d(ctx, 20, 1.0);
    m = thrown<loom::length_error>([&] { d = b; }); // another type: a statement, not a copy that resizes
    CHECK_MESSAGE(has(m, "length mismatch"), m);
    CHECK(y.to_host() == std::vector<float>(100, 3.0f));
    CHECK(d.to_host() == std::vector<double>(20, 1.0));
}

TEST_CASE("a device filter or LOOM_DEVICE naming nothing, or a backend without devices, throws no_device") {
    loom::context_options bogus = on_opencl();
    bogus.device = "no-such-device-anywhere";
    std::string m = thrown<loom::no_device>([&] { loom::context c(bogus); });
    CHECK_MESSAGE(has(m, "loom: LOOM_DEVICE=no-such-device-anywhere matches no OpenCL device. Devices found:"), m);
    {
        scoped_env backend("LOOM_BACKEND", std::nullopt), device("LOOM_DEVICE", "no-such-device-anywhere");
        m = thrown<loom::no_device>([] { loom::context c; });
        CHECK_MESSAGE(has(m, "matches no OpenCL device"), m);
    }
    {
        scoped_env backend("LOOM_BACKEND", "opencl"), device("LOOM_DEVICE", "12345");
        m = thrown<loom::no_device>([] { loom::context c; });
        CHECK_MESSAGE(has(m, "LOOM_DEVICE=12345"), m);
    }
    bool cuda_device = false;
    for (const loom::device_description& d : loom::devices()) cuda_device |= d.backend == "cuda";
    if (!cuda_device) {
        scoped_env backend("LOOM_BACKEND", "cuda"), device("LOOM_DEVICE", std::nullopt);
        m = thrown<loom::no_device>([] { loom::context c; });
        CHECK_MESSAGE(has(m, "loom: LOOM_BACKEND=cuda, but"), m);
    }
    // A misspelt backend is a mistake in the setting, not a missing device.
    loom::context_options misspelt;
    misspelt.backend = "bogus";
    try {
        loom::context c(misspelt);
        FAIL_CHECK("threw nothing");
    } catch (const loom::no_device&) {
        FAIL_CHECK("a backend name that does not exist is not a missing device");
    } catch (const loom::error& e) {
        CHECK(has(e.what(), "LOOM_BACKEND=bogus is not a backend"));
    }
}

TEST_CASE("a kernel the compiler rejects throws build_error with the compiler's log and the saved source") {
    auto dev = loom::backend::open_device("opencl", "");
    loom::cache::program_cache cache(*dev);
    const std::string source = "this is not OpenCL";
    const loom::codegen::kernel_source kernel{"loom_broken", source, "", {}};
    try {
        cache.get(kernel, "test");
        FAIL_CHECK("threw nothing");
    } catch (const loom::build_error& e) {
        const std::string m = e.what();
        CHECK_MESSAGE(has(m, "Build log:\n" + e.log()), m); // the message carries the log as it was
        CHECK(has(e.log(), "error"));                       // the compiler's own diagnostics
        CHECK_MESSAGE(has(m, "saved in " + e.source_path() + ";"), m);
        REQUIRE(std::filesystem::exists(e.source_path()));
        std::ifstream in(e.source_path());
        const std::string saved((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        CHECK(saved == source);
    }
    CHECK_THROWS_AS(cache.get(kernel, "test"), loom::error);
}

TEST_CASE("a log handler gets the LOOM_LOG lines, stamped with the time and their context's id, not stderr") {
    scratch_dir dir;
    collected_lines got;
    std::uint64_t first_id = 0, second_id = 0;
    {
        scoped_env log("LOOM_LOG", "fusion"), file("LOOM_LOG_FILE", std::nullopt);
        loom::logging::reload_from_environment();
        captured_stderr err(dir.path() / "stderr.txt");
        {
            handler_scope handler([&](const std::string& line) { got.add(line); });
            loom::context first(on_opencl()), second(on_opencl());
            first_id = first.id();
            second_id = second.id();
            CHECK(first_id != second_id);
            CHECK(loom::context(first.impl()).id() == first_id); // a handle shares the id
            loom::vector<float> x(first, 64, 1.0f), y(first, 64), u(second, 32, 2.0f), v(second, 32);
            y = x * 2.0f;
            v = u + 1.0f;
            CHECK(y.to_host() == std::vector<float>(64, 2.0f));
            CHECK(v.to_host() == std::vector<float>(32, 3.0f));
            loom::logging::warn("a warning for the handler");
        }
        const std::string on_stderr = err.text();
        CHECK_MESSAGE(!has(on_stderr, "loom fusion"), on_stderr);
        CHECK_MESSAGE(!has(on_stderr, "a warning for the handler"), on_stderr);
    }
    loom::logging::reload_from_environment(); // back to the test's own environment
    const std::vector<std::string> lines = got.taken();
    REQUIRE(!lines.empty());
    int first_flushes = 0, second_flushes = 0, warnings = 0;
    for (const std::string& line : lines) {
        CHECK_MESSAGE(stamped_line(line), line);
        CHECK(line.find('\n') == std::string::npos);
        first_flushes += has(line, " loom fusion [context " + std::to_string(first_id) + "]: flush (host_read)");
        second_flushes += has(line, " loom fusion [context " + std::to_string(second_id) + "]: flush (host_read)");
        warnings += has(line, " loom warning: a warning for the handler"); // no context: none was at work
    }
    CHECK(first_flushes == 1);
    CHECK(second_flushes == 1);
    CHECK(warnings == 1);
}

TEST_CASE("an empty handler restores the default log file, and a handler that logs does not deadlock") {
    scratch_dir dir;
    const std::string path = (dir.path() / "loom.log").string();
    collected_lines got;
    std::string on_stderr;
    {
        scoped_env log("LOOM_LOG", "fusion"), file("LOOM_LOG_FILE", path);
        loom::logging::reload_from_environment();
        loom::context ctx(on_opencl());
        loom::vector<float> x(ctx, 8, 1.0f), y(ctx, 8);
        {
            captured_stderr err(dir.path() / "stderr.txt");
            // A line Loom logs from inside the handler goes to the default place instead.
            handler_scope handler([&](const std::string& line) {
                got.add(line);
                loom::logging::warn("logged from inside the handler");
            });
            y = x + 1.0f;
            CHECK(y.to_host() == std::vector<float>(8, 2.0f));
            on_stderr = err.text();
        }
        CHECK(read_text(path).empty()); // the handler had every line
        y = x + 2.0f;
        CHECK(y.to_host() == std::vector<float>(8, 3.0f));
    }
    loom::logging::reload_from_environment();
    const std::vector<std::string> lines = got.taken();
    REQUIRE(!lines.empty());
    CHECK(has(lines.front(), " loom fusion [context "));
    for (const std::string& line : lines) CHECK(!has(line, "logged from inside the handler"));
    CHECK_MESSAGE(has(on_stderr, "loom warning: logged from inside the handler"), on_stderr);
    // The next flush went to LOOM_LOG_FILE, unstamped as before.
    const std::string file_text = read_text(path);
    CHECK_MESSAGE(file_text.rfind("loom fusion: flush (host_read)", 0) == 0, file_text);
}

TEST_CASE("a log handler is called one line at a time from contexts on several threads, and replaced safely") {
    collected_lines got;
    std::atomic<int> inside{0}, overlaps{0}, late_calls{0};
    std::atomic<bool> first_retired{false};
    {
        scoped_env log("LOOM_LOG", "fusion,launch"), file("LOOM_LOG_FILE", std::nullopt);
        loom::logging::reload_from_environment();
        loom::set_log_handler([&](const std::string& line) {
            if (inside.fetch_add(1) != 0) ++overlaps;
            if (first_retired) ++late_calls;
            got.add(line);
            --inside;
        });
        std::vector<std::thread> threads;
        std::vector<std::uint64_t> ids(4);
        std::atomic<int> right{0};
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                loom::context ctx(on_opencl());
                ids[std::size_t(t)] = ctx.id();
                loom::vector<float> x(ctx, 256, float(t)), y(ctx, 256);
                for (int i = 0; i < 20; ++i) y = x * 2.0f + float(i);
                right += y.to_host()[255] == float(t) * 2.0f + 19.0f;
            });
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        loom::set_log_handler([&](const std::string& line) { got.add(line); }); // while they log
        first_retired = true;
        for (std::thread& t : threads) t.join();
        loom::set_log_handler(nullptr);
        CHECK(right == 4);
        const std::vector<std::string> lines = got.taken();
        for (std::uint64_t id : ids) {
            const std::string tag = "[context " + std::to_string(id) + "]: sync: host read";
            CHECK_MESSAGE(std::count_if(lines.begin(), lines.end(), [&](const auto& l) { return has(l, tag); }) == 1,
                          tag);
        }
        for (const std::string& line : lines) CHECK_MESSAGE(stamped_line(line), line);
    }
    loom::logging::reload_from_environment();
    CHECK(overlaps == 0);
    CHECK(late_calls == 0); // once set_log_handler returned, the replaced handler was not called again
}
