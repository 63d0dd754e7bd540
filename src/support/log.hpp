// Event logs selected by LOOM_LOG (fusion, compile, cache, launch, all), one line
// per event, written to stderr or to LOOM_LOG_FILE, or given to the program's handler
// (loom::set_log_handler). The enabled set is read once.
#pragma once

#include <cstdint>
#include <string>

namespace loom::logging {

enum class channel : unsigned { fusion = 1, compile = 2, cache = 4, launch = 8, balance = 16 };

// Cheap enough for the dispatch path: one load and a mask test.
bool enabled(channel c);

// Writes "loom <channel>: <line>\n" atomically with respect to other log lines; with a
// handler set, gives it the line with the time and the thread's context (context_scope).
void write(channel c, const std::string& line);

// Writes a warning to stderr whatever LOOM_LOG says ("loom warning: ..."), or gives it to the
// handler as write() does.
void warn(const std::string& line);

// Marks the thread as doing the work of context `id` while it lives, so that the lines logged
// meanwhile, from however deep (the program cache, a backend), say which context they concern.
// Scopes nest; the innermost wins.
class context_scope {
public:
    explicit context_scope(std::uint64_t id) { enter_context(id); }
    ~context_scope() { leave_context(); }
    context_scope(const context_scope&) = delete;
    context_scope& operator=(const context_scope&) = delete;

    // For a scope that is not a block (a statement recorder's lifetime): calls in pairs, nested.
    static void enter_context(std::uint64_t id);
    static void leave_context();
    // The innermost context of this thread; 0 when there is none.
    static std::uint64_t current();
};

// Re-reads LOOM_LOG and LOOM_LOG_FILE (tests change them at run time).
void reload_from_environment();

} // namespace loom::logging
