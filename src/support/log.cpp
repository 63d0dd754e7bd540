// Implementation of the LOOM_LOG channels, and of loom::set_log_handler.
#include "support/log.hpp"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <ctime>
#include <functional>
#include <mutex>
#include <sstream>

#include "loom/error.hpp"
#include "loom/log.hpp"
#include "support/environment.hpp"

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
unsigned parse_channels(const std::optional<std::string>& spec, std::string& unknown) {
    if (!spec) return 0;
    unsigned mask = 0;
    std::stringstream in(*spec);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (item == "all")
            mask |= 0x1F;
        else if (item == "fusion")
            mask |= unsigned(channel::fusion);
        else if (item == "compile")
            mask |= unsigned(channel::compile);
        else if (item == "cache")
            mask |= unsigned(channel::cache);
        else if (item == "launch")
            mask |= unsigned(channel::launch);
        else if (item == "balance")
            mask |= unsigned(channel::balance);
        else if (!item.empty() && environment::switch_word(item) != false)
            unknown += (unknown.empty() ? "'" : ", '") + item + "'";
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
    case channel::balance: return "balance";
    }
    return "?";
}

// The program's handler (loom::set_log_handler). `set` lets a line skip the lock when there
// is none; the lock makes calls one at a time, and a replaced handler finished.
struct handler_slot {
    std::mutex lock;
    std::function<void(const std::string&)> call;
    std::atomic<bool> set{false};
};

handler_slot& the_handler() {
    static handler_slot& h = *new handler_slot; // never destroyed: a static context may log at exit
    return h;
}

// The thread's context scopes, innermost last. Plain data, which needs no destructor at thread
// or process exit; scopes nested deeper than it holds keep the deepest one it does hold.
constexpr unsigned max_scope_depth = 8;
thread_local std::uint64_t scope_ids[max_scope_depth];
thread_local unsigned scope_depth = 0;
// Set while this thread runs the handler: a line Loom logs from inside it goes to the default place.
thread_local bool in_handler = false;

// "2025-05-01T09:30:12.345Z"
std::string utc_time() {
    using namespace std::chrono;
    const system_clock::time_point now = system_clock::now();
    const std::time_t seconds = system_clock::to_time_t(now);
    const long long ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[48];
    const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
    std::snprintf(text + n, sizeof text - n, ".%03lldZ", ms);
    return text;
}

// Gives the line to the program's handler; false when there is none to give it to.
bool to_handler(const char* kind, const std::string& line) {
    handler_slot& h = the_handler();
    if (!h.set.load(std::memory_order_acquire) || in_handler) return false;
    const std::uint64_t ctx = context_scope::current();
    const std::string full =
        utc_time() + " loom " + kind + (ctx ? " [context " + std::to_string(ctx) + "]" : std::string()) + ": " + line;
    std::lock_guard<std::mutex> guard(h.lock);
    if (!h.call) return false;
    in_handler = true;
    try {
        h.call(full);
    } catch (...) {
        // A log line never turns into a failure of the work that logged it.
    }
    in_handler = false;
    return true;
}

} // namespace

void context_scope::enter_context(std::uint64_t id) {
    if (scope_depth < max_scope_depth) scope_ids[scope_depth] = id;
    ++scope_depth;
}

void context_scope::leave_context() {
    if (scope_depth) --scope_depth;
}

std::uint64_t context_scope::current() {
    if (!scope_depth) return 0;
    return scope_ids[(scope_depth < max_scope_depth ? scope_depth : max_scope_depth) - 1];
}

void reload_from_environment() {
    std::string problems;
    {
        sink& s = the_sink();
        std::lock_guard<std::mutex> guard(s.lock);
        if (s.owns_file) std::fclose(s.file);
        s.file = stderr;
        s.owns_file = false;
        if (const std::optional<std::string> path = environment::text("LOOM_LOG_FILE")) {
            if (std::FILE* f = std::fopen(path->c_str(), "a")) {
                s.file = f;
                s.owns_file = true;
            } else {
                const int why = errno;
                problems = "LOOM_LOG_FILE='" + *path + "' cannot be opened for writing (" + std::strerror(why) +
                           "); the log goes to stderr";
            }
        }
    }
    std::string unknown;
    channel_mask.store(parse_channels(environment::text("LOOM_LOG"), unknown));
    if (!unknown.empty())
        problems += (problems.empty() ? "" : "; ") + std::string("LOOM_LOG names no channel ") + unknown +
                    ": use fusion, compile, cache, launch or all, separated by commas, or off for none";
    if (!problems.empty()) warn(problems);
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
    if (to_handler(channel_name(c), line)) return;
    sink& s = the_sink();
    std::lock_guard<std::mutex> guard(s.lock);
    std::fprintf(s.file, "loom %s: %s\n", channel_name(c), line.c_str());
    std::fflush(s.file);
}

void warn(const std::string& line) {
    if (to_handler("warning", line)) return;
    sink& s = the_sink();
    std::lock_guard<std::mutex> guard(s.lock);
    std::fprintf(stderr, "loom warning: %s\n", line.c_str());
}

} // namespace loom::logging

namespace loom {

void set_log_handler(std::function<void(const std::string& line)> handler) {
    if (logging::in_handler)
        throw error("loom: set_log_handler was called from inside the log handler; call it from elsewhere");
    logging::handler_slot& h = logging::the_handler();
    std::function<void(const std::string&)> old;
    {
        std::lock_guard<std::mutex> guard(h.lock);
        old.swap(h.call);
        h.call = std::move(handler);
        h.set.store(static_cast<bool>(h.call), std::memory_order_release);
    }
    // `old` is destroyed here, outside the lock: its captures may log.
}

} // namespace loom
