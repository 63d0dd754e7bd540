// The one launch path (executor.hpp) and its log lines.
#include "runtime/executor.hpp"

#include <string>

#include "support/log.hpp"

namespace loom::detail {
namespace {

std::string describe(const launch_label& l, const backend::geometry& g) {
    const std::string range = " over " + std::to_string(l.elements) + " elements";
    std::string line;
    switch (l.what) {
    case launch_label::kind::map:
        line = "map kernel" + range + " (statements " + std::to_string(l.first) + "-" + std::to_string(l.last) + ")";
        if (l.row_width) line += ", on whole rows of " + std::to_string(l.row_width);
        break;
    case launch_label::kind::reduce_pass: line = "reduce pass " + std::to_string(l.pass) + range; break;
    case launch_label::kind::scan_pass: line = "scan pass " + std::to_string(l.pass) + range; break;
    case launch_label::kind::held_pass:
        line = "held reduction pass";
        if (l.last) line += ", with statements 0-" + std::to_string(l.last - 1) + " at its end";
        break;
    case launch_label::kind::custom: line = std::string("kernel ") + l.name + " (loom::kernel)"; break;
    case launch_label::kind::loop_batch:
        line = "held reduction pass, with statements 0-" + std::to_string(l.last - 1) + " at its end, " +
               std::to_string(l.iterations) + " loop iterations in 1 launch";
        break;
    }
    return line + ": " + std::to_string(g.global_items) + " work-items in groups of " + std::to_string(g.group_size);
}

} // namespace

void executor::run(backend::kernel& k, const backend::kernel_arg* args, std::size_t count, const backend::geometry& g,
                   const launch_label& label) {
    device_.launch(k, args, count, g);
    statistics_.kernel_launched();
    if (!logging::enabled(logging::channel::launch)) return;
    logging::context_scope scope(context_id_);
    logging::write(logging::channel::launch, describe(label, g));
}

void executor::host_sync(const char* what) {
    statistics_.host_synced();
    if (!logging::enabled(logging::channel::launch)) return;
    logging::context_scope scope(context_id_);
    logging::write(logging::channel::launch, std::string("sync: ") + what);
}

} // namespace loom::detail
