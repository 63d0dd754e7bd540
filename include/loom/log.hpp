// loom::set_log_handler: Loom's log lines, the LOOM_LOG channels and its warnings, to a
// function of the program's instead of stderr and LOOM_LOG_FILE (docs/errors.md).
#pragma once

#include <functional>
#include <string>

namespace loom {

// Every log line from now on goes to `handler`, whole and without its newline:
//   "<UTC time> loom <channel> [context <id>]: <text>"
//   "2025-05-01T09:30:12.345Z loom fusion [context 2]: flush (host_read): ..."
// The context part is there when the line concerns one (loom::context::id()); warnings come
// as channel "warning". LOOM_LOG still chooses which channels log. Calls come one at a time,
// on the thread that logs; the handler should not use Loom itself (a line Loom writes from
// inside it goes to the default place), and what it throws is dropped. Once this returns,
// the previous handler is not running and is not called again. An empty function restores
// the default: stderr, or LOOM_LOG_FILE. Callable from any thread, but not from the handler.
void set_log_handler(std::function<void(const std::string& line)> handler);

} // namespace loom
