// loom::devices() and loom-info: every device with the properties its context reports, exactly
// one marked as the one a default context opens, and LOOM_BACKEND / LOOM_DEVICE moving that
// mark as they move the context.
#include <doctest/doctest.h>

#include <loom/loom.hpp>
#include <loom/version.hpp>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "../cache/cache_test_support.hpp"
#include "tool_runner.hpp"

namespace {

using loom::cache::test::scoped_env;
using devices_t = std::vector<loom::device_description>;

std::size_t default_count(const devices_t& all) {
    return std::size_t(std::count_if(all.begin(), all.end(), [](const auto& d) { return d.is_default; }));
}

const loom::device_description* default_of(const devices_t& all) {
    for (const loom::device_description& d : all)
        if (d.is_default) return &d;
    return nullptr;
}

std::vector<const loom::device_description*> of_backend(const devices_t& all, const std::string& backend) {
    std::vector<const loom::device_description*> out;
    for (const loom::device_description& d : all)
        if (d.backend == backend) out.push_back(&d);
    return out;
}

// The name of the device a default context opens now, or nullopt when making one throws.
std::optional<std::string> default_context_device() {
    try {
        return loom::context().device_name();
    } catch (const loom::error&) {
        return std::nullopt;
    }
}

// What devices() marks must be what a default context opens, under the environment as it is.
void check_mark_matches_context(const devices_t& all) {
    const std::optional<std::string> opened = default_context_device();
    const loom::device_description* marked = default_of(all);
    CHECK(default_count(all) <= 1);
    REQUIRE(bool(marked) == bool(opened));
    if (marked) CHECK(marked->name == *opened);
}

std::string upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    return s;
}

} // namespace

TEST_CASE("devices lists the OpenCL devices in index order with the properties their contexts report") {
    const devices_t all = loom::devices();
    const auto opencl = of_backend(all, "opencl");
    REQUIRE(!opencl.empty()); // PoCL's CPU device at least
    for (std::size_t i = 0; i < opencl.size(); ++i) {
        const loom::device_description& d = *opencl[i];
        INFO(d.name);
        CHECK(d.index == i);
        CHECK(!d.name.empty());
        CHECK(!d.vendor.empty());
        CHECK(!d.platform.empty());
        CHECK(!d.driver_version.empty());
        CHECK(d.global_memory_bytes > 0);
        CHECK(d.max_allocation_bytes > 0);
        CHECK(d.max_allocation_bytes <= d.global_memory_bytes);
        CHECK(d.compute_units >= 1);
        CHECK(d.max_work_group_size >= 1);
        loom::context_options on_it;
        on_it.backend = "opencl";
        on_it.device = std::to_string(i);
        loom::context ctx(on_it);
        CHECK(ctx.backend_name() == "opencl");
        CHECK(ctx.device_name() == d.name);
        CHECK(ctx.driver_version() == d.driver_version);
        CHECK(ctx.has_fp64() == d.fp64);
    }
    // The PoCL CPU device every test machine has: not a GPU, with doubles.
    const auto pocl = std::find_if(opencl.begin(), opencl.end(),
                                   [](const auto* d) { return d->platform.find("Portable Computing Language") == 0; });
    REQUIRE_MESSAGE(pocl != opencl.end(), "no PoCL device listed");
    CHECK(!(*pocl)->is_gpu);
    CHECK((*pocl)->fp64);
    for (std::size_t i = 0; i < of_backend(all, "cuda").size(); ++i) CHECK(of_backend(all, "cuda")[i]->index == i);
}

TEST_CASE("exactly one device is the default, and it is the one a default context opens") {
    const devices_t all = loom::devices();
    REQUIRE(default_count(all) == 1);
    const loom::device_description& d = *default_of(all);
    loom::context ctx;
    CHECK(d.name == ctx.device_name());
    CHECK(d.backend == ctx.backend_name());
    CHECK(d.driver_version == ctx.driver_version());
}

TEST_CASE("LOOM_BACKEND and LOOM_DEVICE move the default mark as they move a default context") {
    const devices_t unset = loom::devices();
    const auto opencl = of_backend(unset, "opencl");
    const auto cuda = of_backend(unset, "cuda");
    REQUIRE(!opencl.empty());
    const loom::device_description& last = *opencl.back();

    SUBCASE("an index") {
        scoped_env backend("LOOM_BACKEND", "opencl"), device("LOOM_DEVICE", std::to_string(last.index));
        const devices_t all = loom::devices();
        REQUIRE(default_count(all) == 1);
        CHECK(default_of(all)->backend == "opencl");
        CHECK(default_of(all)->index == last.index);
        check_mark_matches_context(all);
    }
    SUBCASE("a name substring, in another case") {
        const std::string part = upper(last.name.substr(last.name.size() / 2));
        scoped_env backend("LOOM_BACKEND", "opencl"), device("LOOM_DEVICE", part);
        const devices_t all = loom::devices();
        REQUIRE(default_count(all) == 1);
        CHECK(default_of(all)->backend == "opencl");
        CHECK(upper(default_of(all)->name).find(part) != std::string::npos);
        check_mark_matches_context(all);
    }
    SUBCASE("LOOM_BACKEND=opencl alone: an OpenCL device, though auto would prefer CUDA") {
        scoped_env backend("LOOM_BACKEND", "opencl"), device("LOOM_DEVICE", std::nullopt);
        const devices_t all = loom::devices();
        REQUIRE(default_count(all) == 1);
        CHECK(default_of(all)->backend == "opencl");
        check_mark_matches_context(all);
    }
    SUBCASE("auto: a CUDA device when there is one, else OpenCL's") {
        scoped_env backend("LOOM_BACKEND", "auto"), device("LOOM_DEVICE", std::nullopt);
        const devices_t all = loom::devices();
        REQUIRE(default_count(all) == 1);
        CHECK(default_of(all)->backend == (cuda.empty() ? "opencl" : "cuda"));
        check_mark_matches_context(all);
    }
    SUBCASE("LOOM_BACKEND=cuda: CUDA's device 0, or none without a CUDA device") {
        scoped_env backend("LOOM_BACKEND", "cuda"), device("LOOM_DEVICE", std::nullopt);
        const devices_t all = loom::devices();
        CHECK(default_count(all) == (cuda.empty() ? 0u : 1u));
        check_mark_matches_context(all);
    }
    SUBCASE("a filter naming no device marks none, and the list stays whole") {
        scoped_env backend("LOOM_BACKEND", std::nullopt), device("LOOM_DEVICE", "no-such-device-anywhere");
        const devices_t all = loom::devices();
        CHECK(all.size() == unset.size());
        CHECK(default_count(all) == 0);
        check_mark_matches_context(all);
    }
    SUBCASE("a backend that does not exist marks none") {
        scoped_env backend("LOOM_BACKEND", "bogus"), device("LOOM_DEVICE", std::nullopt);
        const devices_t all = loom::devices();
        CHECK(all.size() == unset.size());
        CHECK(default_count(all) == 0);
        check_mark_matches_context(all);
    }
}

TEST_CASE("devices listed on four threads while contexts open on four more all agree") {
    // Listing is serialised with opening a device: PoCL's first-time setup is not thread-safe.
    const devices_t expected = loom::devices();
    std::vector<std::thread> threads;
    std::atomic<int> same{0}, opened{0};
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            const devices_t listed = loom::devices();
            same += listed.size() == expected.size() && default_count(listed) == 1 &&
                    default_of(listed)->name == default_of(expected)->name;
        });
        threads.emplace_back([&] {
            try {
                loom::context ctx;
                opened += ctx.device_name() == default_of(expected)->name;
            } catch (const std::exception&) {
            }
        });
    }
    for (std::thread& t : threads) t.join();
    CHECK(same == 4);
    CHECK(opened == 4);
}

#ifdef LOOM_INFO_TOOL

namespace {

using loom_test::tool_result;

tool_result run_loom_info(const std::string& arguments) {
    return loom_test::run_command("'" LOOM_INFO_TOOL "' " + arguments);
}

} // namespace

TEST_CASE("loom-info prints a line per device, the default context's device marked with *") {
    const devices_t all = loom::devices();
    loom::context ctx;
    const tool_result r = run_loom_info("");
    CHECK(r.status == 0);
    INFO(r.output);
    std::vector<std::string> lines;
    for (std::size_t at = 0, end; (end = r.output.find('\n', at)) != std::string::npos; at = end + 1)
        lines.push_back(r.output.substr(at, end - at));
    REQUIRE(lines.size() == all.size());
    std::size_t marked = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const loom::device_description& d = all[i];
        const std::string id = d.backend + ":" + std::to_string(d.index);
        CHECK(lines[i].find(id) == 2);
        CHECK(lines[i].find(d.name) != std::string::npos);
        CHECK(lines[i].find(std::to_string(d.compute_units) + " compute units") != std::string::npos);
        CHECK(lines[i].find(d.fp64 ? "  fp64" : "no fp64") != std::string::npos);
        if (lines[i][0] == '*') {
            ++marked;
            CHECK(d.is_default);
            CHECK(d.name == ctx.device_name());
        }
    }
    CHECK(marked == 1);
}

TEST_CASE("loom-info --json gives every field, the default context's device marked, and the version") {
    loom::context ctx;
    const tool_result r = run_loom_info("--json");
    CHECK(r.status == 0);
    INFO(r.output);
    const nlohmann::json j = nlohmann::json::parse(r.output);
    CHECK(j.at("loom_version") == loom::version());
    const devices_t all = loom::devices();
    REQUIRE(j.at("devices").size() == all.size());
    int marked = 0;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const nlohmann::json& d = j.at("devices")[i];
        CHECK(d.at("backend") == all[i].backend);
        CHECK(d.at("index") == all[i].index);
        CHECK(d.at("name") == all[i].name);
        CHECK(d.at("vendor") == all[i].vendor);
        CHECK(d.at("platform") == all[i].platform);
        CHECK(d.at("driver_version") == all[i].driver_version);
        if (all[i].is_gpu) {
            CHECK(d.at("global_memory_bytes") == all[i].global_memory_bytes);
            CHECK(d.at("max_allocation_bytes") == all[i].max_allocation_bytes);
        } else { // PoCL's CPU device reported 6.3 GB in one process and 4.0 GB in the other on a busy host
            CHECK(d.at("global_memory_bytes").get<std::uint64_t>() > 0);
            CHECK(d.at("max_allocation_bytes").get<std::uint64_t>() > 0);
        }
        CHECK(d.at("compute_units") == all[i].compute_units);
        CHECK(d.at("max_work_group_size") == all[i].max_work_group_size);
        CHECK(d.at("fp64") == all[i].fp64);
        CHECK(d.at("is_gpu") == all[i].is_gpu);
        CHECK(d.at("is_default") == all[i].is_default);
        if (d.at("is_default") == true) {
            ++marked;
            CHECK(d.at("name") == ctx.device_name());
        }
    }
    CHECK(marked == 1);
}

TEST_CASE("loom-info --version prints the library's version; an unknown option is a usage error") {
    const tool_result version = run_loom_info("--version");
    CHECK(version.status == 0);
    CHECK(version.output == std::string(loom::version()) + "\n");
    CHECK(run_loom_info("--no-such-option 2>/dev/null").status == 2);
}

TEST_CASE("loom-info marks nothing, and says why on stderr, when LOOM_DEVICE names no device") {
    scoped_env device("LOOM_DEVICE", "no-such-device-anywhere");
    const tool_result r = run_loom_info("2>&1");
    CHECK(r.status == 0);
    INFO(r.output);
    CHECK(r.output.find("* ") == std::string::npos);
    CHECK(r.output.find("LOOM_DEVICE=no-such-device-anywhere chooses none of these devices") != std::string::npos);
}

#endif
