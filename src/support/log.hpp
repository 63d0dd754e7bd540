// Event logs selected by LOOM_LOG (fusion, compile, cache, launch, all), one line
// per event, written to stderr or to LOOM_LOG_FILE. The enabled set is read once.
#pragma once

#include <string>

namespace loom::logging {

enum class channel : unsigned { fusion = 1, compile = 2, cache = 4, launch = 8 };

// Cheap enough for the dispatch path: one load and a mask test.
bool enabled(channel c);

// Writes "loom <channel>: <line>\n" atomically with respect to other log lines.
void write(channel c, const std::string& line);

// Writes a warning to stderr whatever LOOM_LOG says ("loom warning: ...").
void warn(const std::string& line);

// Re-reads LOOM_LOG and LOOM_LOG_FILE (tests change them at run time).
void reload_from_environment();

} // namespace loom::logging
