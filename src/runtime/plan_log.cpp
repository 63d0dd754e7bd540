// The fusion log's lines for a planned flush (LOOM_LOG=fusion): what each kernel holds and why it ends.
// Buffers go by their loom::name where they have one, else by their class in the flush (b<k>).
#include <algorithm>
#include <string>

#include "runtime/context_impl.hpp"
#include "support/log.hpp"

namespace loom::detail {

void context_impl::log_plan(const compiled_plan& p, bool cached, flush_cause cause) const {
    auto name = [this](std::uint32_t c) {
        if (c < planner_.buffer_count() && !planner_.buffer_of(c).name.empty()) return planner_.buffer_of(c).name;
        return "b" + std::to_string(c);
    };
    auto names = [&](const std::vector<std::uint32_t>& classes) {
        std::string s;
        for (std::uint32_t c : classes) s += (s.empty() ? "" : " ") + name(c);
        return s.empty() ? std::string("-") : s;
    };
    auto without = [](std::vector<std::uint32_t> classes, std::uint32_t c) {
        classes.erase(std::remove(classes.begin(), classes.end(), c), classes.end());
        return classes;
    };
    const std::size_t statements = p.statement_count(queue_.statements.size());
    logging::write(logging::channel::fusion,
                   std::string("flush (") + name_of(cause) + "): " + std::to_string(statements) + " statements" +
                       (p.ends_in_reduction() ? " + a reduction's input" : "") + " -> " +
                       std::to_string(p.groups.size() - (p.ends_in_reduction() && !p.last_group_fused ? 1 : 0)) +
                       " kernels (" + (cached ? "cached plan" : "new plan") + ")");
    for (std::size_t k = 0; k < p.groups.size(); ++k) {
        const fusion::kernel_group& g = p.groups[k].group;
        if (p.in_held_pass) {
            logging::write(logging::channel::fusion, "kernel " + std::to_string(k) + ": statements " +
                                                         std::to_string(g.first) + "-" + std::to_string(g.last) +
                                                         " run at the end of the held reduction pass; loads " +
                                                         names(g.loaded) + "; stores " + names(g.stored));
            continue;
        }
        if (p.ends_in_reduction() && k + 1 == p.groups.size()) {
            if (p.last_group_fused)
                logging::write(logging::channel::fusion,
                               "kernel " + std::to_string(k) + ": statements " + std::to_string(g.first) + "-" +
                                   std::to_string(g.last - 1) + " run in the reduction's first pass; loads " +
                                   names(g.loaded) + "; stores " + names(g.stored) + "; elides " +
                                   names(without(g.elided, reduction_sink_->flush_class)));
            continue;
        }
        const group_launch& launch = p.groups[k].launch;
        std::string line = "kernel " + std::to_string(k) + (launch.kernel ? " " + launch.kernel->name : "") +
                           ": statements " + std::to_string(g.first) + "-" + std::to_string(g.last) + " length " +
                           std::to_string(queue_.statements[g.first].length) + "; loads " + names(g.loaded) +
                           "; stores " + names(g.stored) + "; elides " + names(g.elided) + "; ends " +
                           fusion::name_of(g.reason);
        if (g.reason == fusion::boundary::neighbour_read)
            line += " (statement " + std::to_string(g.last + 1) + " reads " + name(g.reason_buffer) +
                    " at other indices; statement " + std::to_string(g.reason_statement) + " writes it)";
        if (g.reason == fusion::boundary::gather_read)
            line += " (statement " + std::to_string(g.last + 1) + " gathers from " + name(g.reason_buffer) +
                    ", which statement " + std::to_string(g.reason_statement) + " writes)";
        if (g.reason == fusion::boundary::view_write)
            line += " (statement " + std::to_string(g.last + 1) + " touches " + name(g.reason_buffer) +
                    ", which statement " + std::to_string(g.reason_statement) + " writes through a view or scatter)";
        if (g.reason == fusion::boundary::neighbour_write)
            line += " (statement " + std::to_string(g.last + 1) + " writes " + name(g.reason_buffer) +
                    ", which statement " + std::to_string(g.reason_statement) + " reads at other indices)";
        if (g.reason == fusion::boundary::length_change)
            line += " (length " + std::to_string(queue_.statements[g.last].length) +
                    " != " + std::to_string(queue_.statements[g.last + 1].length) + ")";
        if (launch.grid_kernel) line += "; on whole rows " + launch.grid_kernel->name;
        if (launch.narrow_grid_kernel) line += " (" + launch.narrow_grid_kernel->name + " in int coordinates)";
        logging::write(logging::channel::fusion, line);
    }
}

} // namespace loom::detail
