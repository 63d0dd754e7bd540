// Implementation of the LOOM_LOG channels.
#include "support/log.hpp"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>

namespace loom::logging {
namespace {

struct sink {
    std::mutex lock;
    std::FILE* file = stderr;
    bool owns_file = false;
};

sink& the_sink() {
    static sink& s = *new sink; // never destroyed: a static context may log at exit
    return s;
}

// The channels LOOM_LOG names; an unknown name is reported (`unknown`), never ignored silently.
unsigned parse_channels(const char* spec, std::string& unknown) {
    if (!spec) return 0;
    unsigned mask = 0;
    std::stringstream in(spec);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (item == "all") mask |= 0xF;
        else if (item == "fusion") mask |= unsigned(channel::fusion);
        else if (item == "compile") mask |= unsigned(channel::compile);
        else if (item == "cache") mask |= unsigned(channel::cache);
        else if (item == "launch") mask |= unsigned(channel::launch);
        else if (!item.empty() && item != "off" && item != "0") unknown += (unknown.empty() ? "'" : ", '") + item + "'";
    }
    return mask;
}

// All bits set means "not read yet": the first enabled() call reads the environment.
constexpr unsigned unread = ~0u;
std::atomic<unsigned> channel_mask{unread};

const char* channel_name(channel c) {
    switch (c) {
    case channel::fusion: return "fusion";
    case channel::compile: return "compile";
    case channel::cache: return "cache";
    case channel::launch: return "launch";
    }
    return "?";
}

} // namespace

void reload_from_environment() {
    sink& s = the_sink();
    std::lock_guard<std::mutex> guard(s.lock);
    if (s.owns_file) std::fclose(s.file);
    s.file = stderr;
    s.owns_file = false;
    std::string problems;
    if (const char* path = std::getenv("LOOM_LOG_FILE"); path && *path) {
        if (std::FILE* f = std::fopen(path, "a")) {
            s.file = f;
            s.owns_file = true;
        } else {
            problems = std::string("LOOM_LOG_FILE='") + path + "' cannot be opened for writing (" +
                       std::strerror(errno) + "); the log goes to stderr";
        }
    }
    std::string unknown;
    channel_mask.store(parse_channels(std::getenv("LOOM_LOG"), unknown));
    if (!unknown.empty())
        problems += (problems.empty() ? "" : "; ") + std::string("LOOM_LOG names no channel ") + unknown +
                    ": use fusion, compile, cache, launch or all, separated by commas";
    if (!problems.empty()) std::fprintf(stderr, "loom warning: %s\n", problems.c_str());
}

bool enabled(channel c) {
    unsigned mask = channel_mask.load(std::memory_order_relaxed);
    if (mask == unread) {
        reload_from_environment();
        mask = channel_mask.load();
    }
    return (mask & unsigned(c)) != 0;
}

void write(channel c, const std::string& line) {
    sink& s = the_sink();
    std::lock_guard<std::mutex> guard(s.lock);
    std::fprintf(s.file, "loom %s: %s\n", channel_name(c), line.c_str());
    std::fflush(s.file);
}

void warn(const std::string& line) {
    sink& s = the_sink();
    std::lock_guard<std::mutex> guard(s.lock);
    std::fprintf(stderr, "loom warning: %s\n", line.c_str());
}

} // namespace loom::logging
