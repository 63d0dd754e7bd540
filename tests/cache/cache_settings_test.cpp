// settings_from_environment: where the cache lives, its mode and its size limit, and the errors
// a user sees for values Loom does not accept.
#include <doctest/doctest.h>

#include "cache/cache_test_support.hpp"
#include "loom/error.hpp"

using namespace loom::cache;
using namespace loom::cache::test;

namespace {

std::string error_text(const char* var, const char* value) {
    scoped_env mode_var("LOOM_CACHE", std::nullopt);
    scoped_env limit("LOOM_CACHE_MAX_BYTES", std::nullopt);
    scoped_env guard(var, std::string(value));
    try {
        settings_from_environment();
    } catch (const loom::error& e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace

TEST_CASE("cache directory comes from LOOM_CACHE_DIR, then XDG_CACHE_HOME, then HOME") {
    scoped_env dir("LOOM_CACHE_DIR", "/srv/loom-kernels");
    scoped_env xdg("XDG_CACHE_HOME", "/var/cache/user");
    scoped_env home("HOME", "/home/ada");
    scoped_env mode_var("LOOM_CACHE", std::nullopt);
    scoped_env limit("LOOM_CACHE_MAX_BYTES", std::nullopt);
    CHECK(settings_from_environment().dir == "/srv/loom-kernels");

    ::unsetenv("LOOM_CACHE_DIR");
    CHECK(settings_from_environment().dir == "/var/cache/user/loom");

    ::setenv("LOOM_CACHE_DIR", "", 1); // empty counts as unset
    CHECK(settings_from_environment().dir == "/var/cache/user/loom");

    ::unsetenv("XDG_CACHE_HOME");
    CHECK(settings_from_environment().dir == "/home/ada/.cache/loom");

    ::setenv("XDG_CACHE_HOME", "relative/cache", 1); // the XDG spec says to ignore relative paths
    CHECK(settings_from_environment().dir == "/home/ada/.cache/loom");

    ::unsetenv("XDG_CACHE_HOME");
    ::unsetenv("HOME");
    CHECK(settings_from_environment().dir.empty());
    CHECK(directory_from_environment().empty());
}

TEST_CASE("LOOM_CACHE selects the mode and readwrite is the default") {
    scoped_env limit("LOOM_CACHE_MAX_BYTES", std::nullopt);
    {
        scoped_env mode_var("LOOM_CACHE", std::nullopt);
        CHECK(settings_from_environment().access == mode::readwrite);
    }
    for (auto [text, expected] : {std::pair{"readwrite", mode::readwrite}, {"read", mode::read}, {"off", mode::off}}) {
        scoped_env mode_var("LOOM_CACHE", std::string(text));
        CHECK(settings_from_environment().access == expected);
    }
}

TEST_CASE("a bad LOOM_CACHE value is an error naming the accepted values") {
    const std::string what = error_text("LOOM_CACHE", "readonly");
    CHECK(what.find("LOOM_CACHE='readonly'") != std::string::npos);
    CHECK(what.find("readwrite") != std::string::npos);
    CHECK(what.find("read ") != std::string::npos);
    CHECK(what.find("off") != std::string::npos);
}

TEST_CASE("LOOM_CACHE_MAX_BYTES takes bytes with an optional K, M or G suffix") {
    scoped_env mode_var("LOOM_CACHE", std::nullopt);
    scoped_env unset("LOOM_CACHE_MAX_BYTES", std::nullopt);
    CHECK(settings_from_environment().max_bytes == 0);
    for (auto [text, bytes] : {std::pair{"0", 0ull},
                               {"123456", 123456ull},
                               {"64K", 65536ull},
                               {"64k", 65536ull},
                               {"200M", 200ull << 20},
                               {"2G", 2ull << 30}}) {
        scoped_env limit("LOOM_CACHE_MAX_BYTES", std::string(text));
        CHECK(settings_from_environment().max_bytes == bytes);
    }
}

TEST_CASE("a bad LOOM_CACHE_MAX_BYTES value is an error with an example") {
    for (const char* bad : {"lots", "12X", "-5", "1.5G", "M", "99999999999999999999", "17179869184G"}) {
        INFO(bad);
        const std::string what = error_text("LOOM_CACHE_MAX_BYTES", bad);
        CHECK(what.find("LOOM_CACHE_MAX_BYTES='" + std::string(bad) + "' is not a size") != std::string::npos);
        CHECK(what.find("500M") != std::string::npos);
    }
}
