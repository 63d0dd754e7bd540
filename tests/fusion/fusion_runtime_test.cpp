// Fusion on a real device: kernel counts from the plan hook, elided stores, logs,
// LOOM_FUSION=0, plan caching, and threads.
#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "support/log.hpp"

namespace {

loom::context& fused_context() {
    static loom::context ctx(loom::context_options{"opencl", "", 1});
    return ctx;
}

std::vector<float> iota(std::size_t n, float start) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = start + 0.25f * float(i % 97);
    return v;
}

} // namespace

TEST_CASE("fusion_runs_a_four_statement_chain_as_one_kernel_without_storing_temporaries") {
    loom::context& ctx = fused_context();
    const std::size_t n = 4096;
    const auto hx = iota(n, 1.0f), hy = iota(n, -3.0f);
    loom::vector<float> x(ctx, hx), y(ctx, hy), z(ctx, n);
    const float a = 1.5f;
    ctx.finish();
    {
        loom::vector<float> t1(ctx, n), t2(ctx, n), t3(ctx, n);
        t1 = a * x;
        t2 = t1 + y;
        t3 = t2 * t2;
        z = t3 - x;
    }
    const auto before = ctx.statistics();
    const auto out = z.to_host();
    const auto after = ctx.statistics();
    const loom::flush_report r = loom::last_flush(ctx);
    // z's and t1..t3's zero fills fuse in too: they are dead stores overwritten in the group.
    REQUIRE(r.kernels.size() == 1);
    CHECK(r.kernels[0].loads == 2);  // x and y, once each
    CHECK(r.kernels[0].stores == 1); // z only
    CHECK(r.kernels[0].elided == 3); // t1, t2, t3
    CHECK(after.kernels_launched - before.kernels_launched == 1);
    for (std::size_t i = 0; i < n; ++i) {
        const float t2v = a * hx[i] + hy[i];
        REQUIRE(out[i] == t2v * t2v - hx[i]);
    }
}

TEST_CASE("fusion_off_runs_one_kernel_per_statement_with_equal_results") {
    loom::context off(loom::context_options{"opencl", "", 0});
    loom::context& on = fused_context();
    const std::size_t n = 1000;
    const auto hx = iota(n, 0.5f);
    std::vector<float> results[2];
    int which = 0;
    for (loom::context* ctx : {&on, &off}) {
        loom::vector<float> x(*ctx, hx), y(*ctx, n), z(*ctx, n);
        ctx->finish();
        y = x * x;
        z = y - x;
        y = z / (x + 1.0f);
        results[which] = y.to_host();
        const auto r = loom::last_flush(*ctx);
        CHECK(r.kernels.size() == (ctx == &on ? 1u : 3u));
        if (ctx == &off) CHECK(r.kernels[0].ends == "fusion_off");
        ++which;
    }
    CHECK(results[0] == results[1]);
}

TEST_CASE("fusion_reuses_a_cached_plan_and_compiles_nothing_in_a_loop") {
    loom::context& ctx = fused_context();
    const std::size_t n = 512;
    loom::vector<float> x(ctx, iota(n, 1.0f)), y(ctx, n);
    for (int it = 0; it < 3; ++it) { // warm up: the first iteration plans and compiles
        y = 0.5f * x + y;
        x = x - 0.25f * y;
        ctx.finish();
    }
    const auto before = ctx.statistics();
    for (int it = 0; it < 20; ++it) {
        y = 0.5f * x + y;
        x = x - 0.25f * y;
        ctx.finish();
    }
    const auto after = ctx.statistics();
    CHECK(after.plans_made == before.plans_made);
    CHECK(after.kernels_compiled == before.kernels_compiled);
    CHECK(after.plan_hits - before.plan_hits == 20);
    CHECK(after.kernels_launched - before.kernels_launched == 20);
}

TEST_CASE("fusion_log_names_the_flush_cause_kernels_and_elided_buffers") {
    const std::string path = std::string(LOOM_TEST_BINARY_DIR) + "/fusion_log_test.txt";
    std::remove(path.c_str());
    setenv("LOOM_LOG", "fusion", 1);
    setenv("LOOM_LOG_FILE", path.c_str(), 1);
    loom::logging::reload_from_environment();
    {
        loom::context& ctx = fused_context();
        loom::vector<float> x(ctx, iota(256, 1.0f)), y(ctx, 256), small(ctx, 128);
        {
            loom::vector<float> t(ctx, 256);
            t = x * x;
            y = t + 1.0f;
        }
        small = 2.0f * small;
        (void)y.to_host();
    }
    unsetenv("LOOM_LOG");
    unsetenv("LOOM_LOG_FILE");
    loom::logging::reload_from_environment();
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const std::string log = text.str();
    INFO(log);
    CHECK(log.find("loom fusion: flush (host_read)") != std::string::npos);
    CHECK(log.find("ends length_change (length 256 != 128)") != std::string::npos);
    CHECK(log.find("elides b") != std::string::npos);
}

TEST_CASE("fusion_flushes_by_itself_at_the_pending_statement_limit") {
    loom::context& ctx = fused_context();
    loom::vector<float> x(ctx, 64, 1.0f);
    ctx.finish();
    const auto before = ctx.statistics();
    for (int s = 0; s < 300; ++s) x = x + 1.0f; // more than the 256-statement bound
    const auto mid = ctx.statistics();
    CHECK(mid.flushes - before.flushes == 1);
    CHECK(x.to_host()[7] == 301.0f);
}

TEST_CASE("fusion_works_with_two_contexts_on_two_threads_and_one_context_shared_by_two") {
    auto work = [](loom::context& ctx, float k, std::vector<float>& out) {
        loom::vector<float> x(ctx, 2048, k), y(ctx, 2048);
        for (int i = 0; i < 50; ++i) y = y + k * x;
        out = y.to_host();
    };
    loom::context c1(loom::context_options{"opencl", "", 1}), c2(loom::context_options{"opencl", "", 1});
    std::vector<float> r1, r2, r3;
    std::thread t1([&] { work(c1, 1.0f, r1); }), t2([&] { work(c2, 2.0f, r2); });
    t1.join();
    t2.join();
    CHECK(r1[10] == 50.0f);
    CHECK(r2[10] == 200.0f);
    // One context from two threads: each statement is recorded whole under the context's lock.
    std::thread t3([&] { work(c1, 3.0f, r3); });
    std::vector<float> r4;
    work(c1, 0.5f, r4);
    t3.join();
    CHECK(r3[10] == 450.0f);
    CHECK(r4[10] == 12.5f);
}
