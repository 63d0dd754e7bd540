// The environment reader (support/environment.hpp): a switch's spellings, unset and empty
// variables, whole numbers, and the message a value Loom does not take gets; then the readers
// built on it that need no device (LOOM_DUMP_SOURCE, LOOM_LOG).
#include <doctest/doctest.h>

#include <functional>
#include <optional>
#include <string>

#include "../cache/cache_test_support.hpp"
#include "cache/source_dump.hpp"
#include "loom/error.hpp"
#include "support/environment.hpp"
#include "support/log.hpp"

namespace environment = loom::environment;
using loom::cache::test::scoped_env;

namespace {

// Not a variable Loom reads: the parser's own, so no setting of the test run is disturbed.
constexpr const char* variable = "ENVIRONMENT_TEST_VALUE";

bool switch_with(const char* value, bool fallback) {
    scoped_env set(variable, std::string(value));
    return environment::flag(variable, fallback, "a test setting", "to do it", "to skip it");
}

std::string refusal_of(const std::function<void()>& read) {
    try {
        read();
    } catch (const loom::error& e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace

TEST_CASE("a switch takes on, 1, true and off, 0, false, in any case") {
    for (const char* on : {"on", "1", "true", "ON", "True", "TRUE", "oN"}) {
        CAPTURE(on);
        CHECK(switch_with(on, false));
        CHECK(switch_with(on, true));
        CHECK(environment::switch_word(on) == true);
    }
    for (const char* off : {"off", "0", "false", "OFF", "False", "FALSE", "oFf"}) {
        CAPTURE(off);
        CHECK_FALSE(switch_with(off, false));
        CHECK_FALSE(switch_with(off, true));
        CHECK(environment::switch_word(off) == false);
    }
}

TEST_CASE("an unset or empty switch is its default") {
    {
        scoped_env unset(variable, std::nullopt);
        CHECK(environment::flag(variable, true, "a test setting", "", ""));
        CHECK_FALSE(environment::flag(variable, false, "a test setting", "", ""));
    }
    CHECK(switch_with("", true));
    CHECK_FALSE(switch_with("", false));
}

TEST_CASE("a switch refuses any other value with the variable's name and every spelling") {
    CHECK(refusal_of([] { switch_with("maybe", false); }) ==
          "ENVIRONMENT_TEST_VALUE='maybe' is not a test setting: use on (or 1, true) to do it, or off (or 0, "
          "false; the default) to skip it");
    CHECK(refusal_of([] { switch_with("2", true); }) ==
          "ENVIRONMENT_TEST_VALUE='2' is not a test setting: use on (or 1, true; the default) to do it, or off "
          "(or 0, false) to skip it");
    for (const char* bad : {"onn", " on", "on ", "y", "n", "yes", "no", "enabled", "-1"}) {
        CAPTURE(bad);
        CHECK_THROWS_AS(switch_with(bad, false), loom::error);
        CHECK_FALSE(environment::switch_word(bad).has_value());
    }
}

TEST_CASE("text is the variable's value, and nullopt when it is unset or empty") {
    {
        scoped_env unset(variable, std::nullopt);
        CHECK_FALSE(environment::text(variable).has_value());
    }
    {
        scoped_env empty(variable, std::string());
        CHECK_FALSE(environment::text(variable).has_value());
    }
    scoped_env set(variable, std::string(" a value, spaces kept "));
    CHECK(environment::text(variable) == " a value, spaces kept ");
}

TEST_CASE("a whole number is read in its range, and anything else is refused by name") {
    auto read = [] { return environment::whole_number(variable, 1, 1024, "a count", "give 1 to 1024"); };
    {
        scoped_env unset(variable, std::nullopt);
        CHECK_FALSE(read().has_value());
    }
    {
        scoped_env empty(variable, std::string());
        CHECK_FALSE(read().has_value());
    }
    for (const auto& [value, n] : {std::pair<const char*, unsigned>{"1", 1}, {"8", 8}, {"0016", 16}, {"1024", 1024}}) {
        scoped_env set(variable, std::string(value));
        CHECK(read() == n);
    }
    for (const char* bad : {"0", "1025", "-1", "+4", " 4", "4x", "four", "1e3", "99999999999999999999999"}) {
        CAPTURE(bad);
        scoped_env set(variable, std::string(bad));
        CHECK(refusal_of([&] { read(); }) ==
              "ENVIRONMENT_TEST_VALUE='" + std::string(bad) + "' is not a count: give 1 to 1024");
    }
}

TEST_CASE("LOOM_DUMP_SOURCE reads a switch's words, stderr, or a directory") {
    using loom::cache::dump_settings;
    using loom::cache::dump_settings_from_environment;
    for (const char* off : {"off", "0", "False", "OFF"}) {
        scoped_env set("LOOM_DUMP_SOURCE", std::string(off));
        CHECK(dump_settings_from_environment().to == dump_settings::target::none);
    }
    for (const char* on : {"stderr", "on", "1", "TRUE"}) {
        scoped_env set("LOOM_DUMP_SOURCE", std::string(on));
        CHECK(dump_settings_from_environment().to == dump_settings::target::standard_error);
    }
    {
        scoped_env set("LOOM_DUMP_SOURCE", std::string("/tmp/kernels"));
        const dump_settings s = dump_settings_from_environment();
        CHECK(s.to == dump_settings::target::directory);
        CHECK(s.dir == "/tmp/kernels");
    }
    scoped_env set("LOOM_DUMP_SOURCE", std::string("stdout"));
    CHECK(refusal_of([] { dump_settings_from_environment(); }).rfind("LOOM_DUMP_SOURCE='stdout' is not a place", 0) ==
          0);
}

TEST_CASE("LOOM_LOG takes a switch's off for no channels, and warns of an unknown name") {
    using loom::cache::test::captured_stderr;
    loom::cache::test::scratch_dir dir;
    std::optional<scoped_env> file;
    file.emplace("LOOM_LOG_FILE", std::nullopt);
    for (const char* off : {"off", "0", "false", "False"}) {
        CAPTURE(off);
        scoped_env log("LOOM_LOG", std::string(off));
        captured_stderr err(dir.path() / "off.txt");
        loom::logging::reload_from_environment();
        CHECK(err.text().empty());
        CHECK_FALSE(loom::logging::enabled(loom::logging::channel::fusion));
    }
    {
        scoped_env log("LOOM_LOG", std::string("fusion,on"));
        captured_stderr err(dir.path() / "unknown.txt");
        loom::logging::reload_from_environment();
        CHECK(err.text().find("LOOM_LOG names no channel 'on'") != std::string::npos);
        CHECK(loom::logging::enabled(loom::logging::channel::fusion));
    }
    file.reset();
    loom::logging::reload_from_environment(); // back to the test run's own setting
}
