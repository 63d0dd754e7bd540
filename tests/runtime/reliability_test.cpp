// Defects found under threads, faults and bad input (issue 20), each with the test that keeps
// it found: contexts opened on several threads at once; liveness read once per flush; a failed
// flush keeps the initial contents of vectors made in its window; offsets at the ends of
// int64 clamp and wrap without overflow; grid sizes whose product overflows are refused;
// environment variables that hold a wrong value say so; contexts that together ask for more
// memory than their device has get a loom::error before the driver is asked.
#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include "../cache/cache_test_support.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/kernel_observer.hpp"
#include "runtime/memory_pool.hpp"
#include "support/log.hpp"

namespace {

loom::context_options on_opencl(int fusion = 1) {
    loom::context_options o;
    o.backend = "opencl";
    o.fusion = fusion;
    return o;
}

// Sets a kernel observer for a scope (the hook every new plan's kernels pass before compiling).
struct observing {
    explicit observing(loom::detail::kernel_observer o) { loom::detail::set_kernel_observer(std::move(o)); }
    ~observing() { loom::detail::set_kernel_observer(nullptr); }
};

// The bytes of this process's memory that are resident (committed), from /proc/self/statm.
std::uint64_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::uint64_t size = 0, resident = 0;
    statm >> size >> resident;
    return resident * std::uint64_t(::sysconf(_SC_PAGESIZE));
}

} // namespace

TEST_CASE("contexts opened on four threads at once all work") {
    std::vector<std::thread> threads;
    std::atomic<int> right{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&right, t] {
            try {
                loom::context ctx(on_opencl());
                loom::vector<float> x(ctx, 1000, float(t)), y(ctx, 1000);
                y = x * 2.0f + 1.0f;
                right += y.to_host()[999] == float(t) * 2.0f + 1.0f;
            } catch (const std::exception&) {
            }
        });
    for (std::thread& t : threads) t.join();
    CHECK(right == 4);
}

TEST_CASE("a vector dying while its flush is planned does not change the plan its key names") {
    // The observer runs inside planning, after the key was made: where a destructor on another
    // thread may land. The plan must still store the target its key calls live, so that the
    // next flush with the same key (with a live target) keeps its result.
    loom::context ctx(on_opencl());
    loom::vector<float> x(ctx, 256, 3.0f);
    ctx.finish();
    auto t = std::make_unique<loom::vector<float>>(ctx, 256);
    {
        observing kill([&](const loom::ir::kernel&) { t.reset(); });
        *t = loom::cos(x) * 0.5f - 1.0f; // a new expression: a new plan
        ctx.finish();
    }
    loom::vector<float> u(ctx, 256);
    u = loom::cos(x) * 0.5f - 1.0f; // the same key: the cached plan must store u
    CHECK(u.to_host()[100] == std::cos(3.0f) * 0.5f - 1.0f);
}

TEST_CASE("a failed flush keeps the initial contents of vectors made before it") {
    loom::context ctx(on_opencl());
    loom::vector<float> x(ctx, 64, 2.0f);
    ctx.finish();
    loom::vector<float> y(ctx, 16, 7.0f); // its fill is pending when the flush fails
    loom::vector<float> z(ctx, 64);
    {
        observing fail([](const loom::ir::kernel&) { throw loom::error("a compiler failure, as a test provokes it"); });
        z = loom::tan(x) + loom::atan(x); // a new plan: the observer throws while it is made
        CHECK_THROWS_AS(ctx.finish(), loom::error);
    }
    const auto hy = y.to_host();
    CHECK(hy == std::vector<float>(16, 7.0f));
    CHECK(x.to_host()[5] == 2.0f); // and what existed before keeps its value
}

TEST_CASE("shift by offsets at the ends of int64 clamps and wraps without overflow") {
    loom::context ctx(on_opencl());
    const std::vector<float> hx{1, 2, 3, 4, 5, 6, 7, 8};
    loom::vector<float> x(ctx, hx), y(ctx, hx.size());
    const std::int64_t big = std::numeric_limits<std::int64_t>::max(), small = std::numeric_limits<std::int64_t>::min();
    y = loom::shift(x, big);
    CHECK(y.to_host() == std::vector<float>(8, 8.0f));
    y = loom::shift(x, small);
    CHECK(y.to_host() == std::vector<float>(8, 1.0f));
    y = loom::shift(x, big, loom::boundary::constant(-1.0f));
    CHECK(y.to_host() == std::vector<float>(8, -1.0f));
    y = loom::shift(x, big, loom::boundary::wrap); // 2^63 - 1 = 7 (mod 8): element i + 7
    std::vector<float> wrapped(8);
    for (std::size_t i = 0; i < 8; ++i) wrapped[i] = hx[(i + 7) % 8];
    CHECK(y.to_host() == wrapped);
}

TEST_CASE("a grid whose sizes multiply past 2^64 is refused") {
    loom::context ctx(on_opencl());
    loom::vector<float> u(ctx, 12);
    const std::size_t huge = (std::size_t(1) << 63) + 6; // (2^63 + 6) * 2 wraps to 12
    CHECK_THROWS_AS(loom::grid(u, huge, 2), loom::error);
    CHECK_THROWS_AS(loom::grid(u, 2, huge), loom::error);
    CHECK_NOTHROW(loom::grid(u, 4, 3));
}

TEST_CASE("environment variables are never ignored silently: LOOM_LOG, LOOM_LOG_FILE, LOOM_FUSION") {
    using loom::cache::test::captured_stderr;
    using loom::cache::test::scoped_env;
    using loom::cache::test::scratch_dir;
    scratch_dir dir;
    {
        scoped_env log("LOOM_LOG", "fusoin,launch");
        scoped_env file("LOOM_LOG_FILE", "/nonexistent-dir/loom.log");
        captured_stderr err(dir.path() / "stderr.txt");
        loom::logging::reload_from_environment();
        const std::string text = err.text();
        CHECK(text.find("LOOM_LOG names no channel 'fusoin'") != std::string::npos);
        CHECK(text.find("LOOM_LOG_FILE='/nonexistent-dir/loom.log' cannot be opened") != std::string::npos);
    }
    loom::logging::reload_from_environment(); // back to the test's own environment
    for (const char* off : {"off", "0", "false"}) {
        scoped_env fusion("LOOM_FUSION", off);
        loom::context ctx(on_opencl(-1));
        loom::vector<float> x(ctx, 64, 1.0f), y(ctx, 64);
        ctx.finish();
        const auto before = ctx.statistics().kernels_launched;
        y = x + 1.0f;
        y = y * 2.0f;
        ctx.finish();
        CHECK(ctx.statistics().kernels_launched - before == 2); // one kernel per statement: fusion is off
    }
    scoped_env fusion("LOOM_FUSION", "of");
    CHECK_THROWS_WITH_AS(loom::context(on_opencl(-1)), doctest::Contains("LOOM_FUSION='of'"), loom::error);
}

TEST_CASE("contexts that together ask for more than the device's memory get a loom::error and keep their vectors") {
    // PoCL allocates lazily and aborts the process when that fails inside a launch, so Loom refuses
    // first, counting what every context holds on the device. The first context holds all of the
    // device but half its largest allocation, in allocations never written (so neither the driver
    // nor the host commits them); the second then asks for two vectors that each need more than
    // what is left, so nothing of them is allocated either, not even their fills after the failure.
    loom::context first(on_opencl()), second(on_opencl());
    loom::backend::device& first_device = first.impl()->device();
    loom::backend::device& second_device = second.impl()->device();
    const std::uint64_t total = first_device.info().global_memory;
    REQUIRE(total > 0);
    const std::uint64_t largest = std::min(first_device.info().max_allocation, total);
    loom::vector<float> x(first, 64, 3.0f), y(second, 64, 7.0f);
    first.finish();
    second.finish();
    // Memory contexts keep for reuse is freed before an allocation is refused (memory_pool.hpp):
    // freed here first, so that the counts below are the vectors' and the held memory's alone.
    loom::detail::memory_pool::trim_all();
    const std::uint64_t resident_before = resident_bytes(), in_use_before = first_device.memory_in_use();
    REQUIRE(in_use_before < total - largest / 2);

    std::vector<std::unique_ptr<loom::backend::memory>> held;
    const std::uint64_t held_bytes = total - in_use_before - largest / 2;
    for (std::uint64_t left = held_bytes; left > 0; left -= std::min(left, largest))
        held.push_back(first_device.allocate(std::min(left, largest)));
    CHECK(second_device.memory_in_use() == in_use_before + held_bytes); // one device, seen from both contexts

    using loom::cache::test::captured_stderr;
    loom::cache::test::scratch_dir dir;
    const std::size_t n = std::size_t(largest / 4 * 3 / sizeof(float)); // more than the half left
    {
        captured_stderr err(dir.path() / "stderr.txt");
        auto ask_for_more = [&] {
            loom::vector<float> a(second, n, 1.0f), b(second, n);
            b = a * 2.0f;
            second.finish();
        };
        CHECK_THROWS_WITH_AS(ask_for_more(), doctest::Contains("loom: out of device memory: these statements need"),
                             loom::error);
        // The fill kept after the failed flush is refused too, by the allocation itself.
        CHECK(err.text().find("out of device memory: allocating") != std::string::npos);
    }
    CHECK_THROWS_WITH_AS(second_device.allocate(n * sizeof(float)),
                         doctest::Contains("allocated already by this process's contexts"), loom::error);
    CHECK(first_device.memory_in_use() == in_use_before + held_bytes); // nothing of the refused was counted
    CHECK(resident_bytes() - std::min(resident_bytes(), resident_before) < largest / 4);

    CHECK(x.to_host() == std::vector<float>(64, 3.0f));
    CHECK(y.to_host() == std::vector<float>(64, 7.0f));
    held.clear();
    CHECK(second_device.memory_in_use() == in_use_before);
    loom::vector<float> z(second, 64);
    z = y * 2.0f + x.size();
    CHECK(z.to_host() == std::vector<float>(64, 78.0f));
}
