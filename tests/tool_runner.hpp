// Runs one of Loom's command-line tools through the shell, for the tests of its output.
#pragma once

#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include <sys/wait.h>

namespace loom_test {

struct tool_result {
    int status = -1;
    std::string output; // what the command wrote to its standard output
};

// `command` is a shell command line (redirect 2>&1 in it to capture standard error too).
inline tool_result run_command(const std::string& command) {
    tool_result r;
    std::FILE* pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe);
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) r.output.append(buffer, n);
    const int status = ::pclose(pipe);
    REQUIRE(WIFEXITED(status));
    r.status = WEXITSTATUS(status);
    return r;
}

} // namespace loom_test
