// Tuning cached with the kernel (context_options::tune, src/runtime/map_tuning.cpp): the first
// large launch measures the policy's candidates on copies of what the kernel writes, so the
// result is the untuned one; the choice lands in the kernel's cache entry (tuning.json), a
// later context (a later process) launches with it without measuring; a corrupt or foreign
// record is ignored; small launches are never tuned.
#include <doctest/doctest.h>

#include <loom/loom.hpp>

#include <cstdio>
#include <fstream>
#include <random>

#include "../cache/cache_test_support.hpp"
#include "cache/tuning_record.hpp"

namespace {

namespace fs = std::filesystem;
using loom::cache::test::scoped_env;
using loom::cache::test::scratch_dir;

loom::context_options tuned(int on) {
    loom::context_options o;
    o.backend = "opencl";
    o.tune = on;
    return o;
}

std::vector<float> random_floats(unsigned seed, std::size_t n) {
    std::printf("tuning_test: seed %u\n", seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& f : v) f = d(rng);
    return v;
}

// y = 2.5 * x + y over n elements in a new context; returns y and the context's statistics.
std::pair<std::vector<float>, loom::context_statistics> saxpy(int tune, const std::vector<float>& hx,
                                                              const std::vector<float>& hy) {
    loom::context ctx(tuned(tune));
    loom::vector<float> x(ctx, hx), y(ctx, hy);
    y = 2.5f * x + y; // reads what it writes: a tuner running it on y itself would add 2.5x many times
    std::vector<float> out = y.to_host();
    return {out, ctx.statistics()};
}

// Whether the OpenCL device these tests run on is a GPU: it decides the kernel form tuned.
bool opencl_device_is_gpu() {
    const std::string name = loom::context(tuned(0)).device_name();
    for (const loom::device_description& d : loom::devices())
        if (d.backend == "opencl" && d.name == name) return d.is_gpu;
    return false;
}

std::vector<fs::path> tuning_files(const fs::path& dir) {
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(dir))
        if (fs::exists(entry.path() / loom::cache::tuning_file_name))
            found.push_back(entry.path() / loom::cache::tuning_file_name);
    return found;
}

} // namespace

TEST_CASE("the first large launch is tuned, its result unchanged, and the choice is stored with the kernel") {
    scratch_dir dir;
    scoped_env cache_dir("LOOM_CACHE_DIR", dir.path().c_str());
    const std::size_t n = std::size_t(1) << 21;
    const auto hx = random_floats(51, n), hy = random_floats(52, n);
    std::vector<float> expected(n);
    for (std::size_t i = 0; i < n; ++i) expected[i] = 2.5f * hx[i] + hy[i];

    const auto [first, first_stats] = saxpy(1, hx, hy);
    CHECK(first_stats.kernels_tuned == 1);
    CHECK(first == expected);
    const auto files = tuning_files(dir.path());
    REQUIRE(files.size() == 1);
    const auto record = loom::cache::read_tuning(files[0].parent_path(), files[0].parent_path().filename().string());
    REQUIRE(record);
    CHECK(record->form == (opencl_device_is_gpu() ? "grid_stride" : "chunked"));
    CHECK(record->elements == n);
    CHECK(record->measured.size() >= 2);

    // A new context, as a new process would: the stored choice is used, nothing is measured.
    const auto [second, second_stats] = saxpy(1, hx, hy);
    CHECK(second_stats.kernels_tuned == 0);
    CHECK(second == expected);
}

TEST_CASE("a grid kernel on rows tunes its group's shape, its result unchanged") {
    // LOOM_KERNEL_FORM=grid_stride gives this machine's CPU device the GPU form: a 2-D range in
    // groups whose shape the tuner measures (launch::grid_tuning_candidates).
    scratch_dir dir;
    scoped_env cache_dir("LOOM_CACHE_DIR", dir.path().c_str());
    scoped_env form("LOOM_KERNEL_FORM", "grid_stride");
    const std::size_t nx = 1024, ny = 1024, n = nx * ny;
    const auto hu = random_floats(59, n);
    std::vector<float> expected(n);
    auto at = [&](long x, long y) {
        x = x < 0 ? 0 : (x >= long(nx) ? long(nx) - 1 : x);
        y = y < 0 ? 0 : (y >= long(ny) ? long(ny) - 1 : y);
        return hu[std::size_t(y) * nx + std::size_t(x)];
    };
    for (long y = 0; y < long(ny); ++y)
        for (long x = 0; x < long(nx); ++x)
            expected[std::size_t(y) * nx + std::size_t(x)] =
                at(x, y) + 0.2f * (at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1) - 4.0f * at(x, y));
    for (int round = 0; round < 2; ++round) { // measured, then read back by a new context
        CAPTURE(round);
        loom::context ctx(tuned(1));
        loom::vector<float> u(ctx, hu), v(ctx, n);
        const auto g = loom::grid(u, nx, ny);
        v = u + 0.2f * (loom::at(g, -1, 0) + loom::at(g, 1, 0) + loom::at(g, 0, -1) + loom::at(g, 0, 1) - 4.0f * u);
        CHECK(v.to_host() == expected);
        CHECK(ctx.statistics().kernels_tuned == (round == 0 ? 1u : 0u));
    }
    const auto files = tuning_files(dir.path());
    REQUIRE(files.size() == 1);
    const auto record = loom::cache::read_tuning(files[0].parent_path(), files[0].parent_path().filename().string());
    REQUIRE(record);
    CHECK(record->form == "grid_rows");
    CHECK(record->measured.size() >= 2);
    CHECK(record->measured.front().first == 0); // the default shape first
    CHECK(loom::cache::describe(*record).find("x") != std::string::npos);
}

TEST_CASE("a corrupt or foreign tuning record is ignored, and small launches are not tuned") {
    scratch_dir dir;
    scoped_env cache_dir("LOOM_CACHE_DIR", dir.path().c_str());
    const std::size_t n = std::size_t(1) << 20;
    const auto hx = random_floats(53, n), hy = random_floats(54, n);
    saxpy(1, hx, hy);
    const auto files = tuning_files(dir.path());
    REQUIRE(files.size() == 1);
    const fs::path entry = files[0].parent_path();
    for (const char* text : {"{ not json", R"({"format":1,"key":"00000000000000000000000000000000","form":"chunked",
        "choice":4,"elements":1048576,"measured":[]})"}) {
        std::ofstream(files[0]) << text;
        CHECK_FALSE(loom::cache::read_tuning(entry, entry.filename().string()));
        const auto [out, stats] = saxpy(1, hx, hy); // measured again, and the result still right
        CHECK(stats.kernels_tuned == 1);
        CHECK(out[n / 3] == 2.5f * hx[n / 3] + hy[n / 3]);
    }
    const std::size_t small = 4096;
    const auto [out, stats] = saxpy(1, random_floats(55, small), random_floats(56, small));
    CHECK(stats.kernels_tuned == 0);
}

TEST_CASE("LOOM_TUNE takes on/off/1/0/true/false/yes/no and refuses anything else") {
    {
        scoped_env tune("LOOM_TUNE", "maybe");
        CHECK_THROWS_WITH_AS(loom::context(tuned(-1)), doctest::Contains("LOOM_TUNE='maybe'"), loom::error);
    }
    scoped_env tune("LOOM_TUNE", "true");
    CHECK_NOTHROW(loom::context(tuned(-1)));
}

TEST_CASE("a kernel whose scalars are packed is tuned on copies of the right buffers") {
    // 200 statements of two scalars each pass the parameter limit: the kernel's arguments are
    // not its parameters one for one, and the tuner must still copy the buffer it writes.
    scratch_dir dir;
    scoped_env cache_dir("LOOM_CACHE_DIR", dir.path().c_str());
    const std::size_t n = std::size_t(1) << 20;
    const long taps = 200;
    const auto hx = random_floats(57, n), hc = random_floats(58, std::size_t(taps));
    loom::context ctx(tuned(1));
    loom::vector<float> x(ctx, hx), y(ctx, n, 0.5f);
    for (long j = 0; j < taps; ++j) y += hc[std::size_t(j)] * loom::shift(x, j - taps / 2);
    const auto got = y.to_host();
    CHECK(ctx.statistics().kernels_tuned >= 1);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; i += 997) {
        float acc = 0.5f;
        for (long j = 0; j < taps; ++j) {
            long at = long(i) + j - taps / 2;
            at = at < 0 ? 0 : (at >= long(n) ? long(n) - 1 : at);
            acc += hc[std::size_t(j)] * hx[std::size_t(at)];
        }
        wrong += got[i] != acc;
    }
    CHECK(wrong == 0);
}
