// Moving the split of a context over several devices; see rebalance.hpp.
#include "runtime/parts/rebalance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "loom/error.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/parts/parted_buffer.hpp"
#include "support/log.hpp"

namespace loom::detail {
namespace {

// A period of kernel time below this on some part says too little to move the split on.
constexpr double least_period_ns = 100e3;
// STEPOCL's damping (Q) and the agreement at which the split stays.
constexpr double damping = 2.0;
constexpr double tolerance = 0.05;

std::vector<double> normalized(std::vector<double> shares) {
    double total = 0;
    for (double s : shares) total += s;
    for (double& s : shares) s /= total;
    return shares;
}

std::string shares_text(const std::vector<double>& shares) {
    std::string text;
    for (double s : shares) {
        char cell[32];
        std::snprintf(cell, sizeof cell, "%s%.4f", text.empty() ? "" : " ", s);
        text += cell;
    }
    return text;
}

// Every part's pending work run and waited for.
void finish_parts(context_impl& ctx) {
    for (const context_ptr& part : ctx.parts()) {
        std::lock_guard<std::recursive_mutex> guard(part->mutex());
        part->flush(flush_cause::finish);
    }
    for (const context_ptr& part : ctx.parts()) finish(*part);
}

// One vector's new parts for `shares`, its data moved into them (nothing of `b` changed yet).
std::vector<buffer_ptr> moved_parts(context_impl& ctx, buffer& b, const std::vector<double>& shares) {
    const std::vector<part_range> to = split(b.length, shares);
    std::vector<buffer_ptr> parts;
    for (std::size_t k = 0; k < to.size(); ++k) {
        parts.push_back(new_buffer(ctx.parts()[k], to[k].count, b.type));
        parts.back()->vector_refs = b.parts[k]->vector_refs.load();
        parts.back()->name = b.parts[k]->name;
    }
    // Each new part's elements from the old parts that hold them: copied on the devices where the
    // new part's can copy from the old part's (sub-devices of one OpenCL device), through the host
    // otherwise. An old part no kernel or transfer touched has no memory, and nothing to keep.
    const std::vector<part_range> from = ctx.split(b.length);
    for (std::size_t k = 0; k < to.size(); ++k)
        copy_from_parts(ctx, b, from, to[k].first, to[k].count, k, *parts[k], 0);
    return parts;
}

} // namespace

std::vector<double> balanced_shares(const std::vector<double>& shares, const std::vector<double>& times, double q) {
    double mean = 0;
    std::size_t timed = 0;
    for (double t : times)
        if (t > 0) {
            mean += t;
            ++timed;
        }
    if (timed == 0) return normalized(shares);
    mean /= double(timed);
    std::vector<double> next = shares;
    for (std::size_t k = 0; k < next.size(); ++k)
        if (times[k] > 0) next[k] *= 1.0 + (mean / times[k] - 1.0) / q;
    return normalized(next);
}

bool times_agree(const std::vector<double>& times, double within) {
    double mean = 0;
    for (double t : times) mean += t;
    mean /= double(times.size());
    for (double t : times)
        if (std::fabs(t - mean) > within * mean) return false;
    return true;
}

void resplit(context_impl& ctx, std::vector<double> shares) {
    if (shares.size() != ctx.parts().size())
        throw error("loom::context::set_split: " + std::to_string(shares.size()) + " shares for a context of " +
                    std::to_string(ctx.parts().size()) + " devices; give one share per device");
    for (double s : shares)
        if (!(s > 0) || !std::isfinite(s))
            throw error("loom::context::set_split: every share must be a positive number (a part may not be empty "
                        "of every vector); got " +
                        shares_text(shares));
    shares = normalized(shares);
    std::lock_guard<std::recursive_mutex> guard(ctx.mutex());
    finish_parts(ctx);
    // Every vector's new parts made and filled first, so that a failure (out of memory) leaves
    // every vector and the split as they were; then all of them swapped in.
    std::vector<buffer_ptr> live;
    std::vector<std::vector<buffer_ptr>> next;
    for (const std::weak_ptr<buffer>& w : ctx.parted_buffers())
        if (buffer_ptr b = w.lock()) {
            next.push_back(moved_parts(ctx, *b, shares));
            live.push_back(std::move(b));
        }
    for (std::size_t j = 0; j < live.size(); ++j) live[j]->parts.swap(next[j]);
    ctx.set_shares(std::move(shares));
    ctx.forget_dead_buffers();
}

void rebalance(context_impl& ctx) {
    std::lock_guard<std::recursive_mutex> guard(ctx.mutex());
    finish_parts(ctx);
    // A period too short to judge is not thrown away: it grows until every part has run enough
    // (a fast GPU may need many calls to reach it).
    std::vector<double> times;
    std::vector<std::uint64_t> now;
    bool enough = true;
    for (std::size_t k = 0; k < ctx.parts().size(); ++k) {
        now.push_back(ctx.parts()[k]->device().timing().ns);
        times.push_back(double(now.back() - ctx.timed_ns()[k]));
        enough = enough && times.back() >= least_period_ns;
    }
    if (!enough) return;
    ctx.timed_ns() = now;
    const std::vector<double> shares = ctx.shares();
    std::vector<double> ms;
    for (double t : times) ms.push_back(t * 1e-6);
    if (times_agree(times, tolerance)) {
        if (logging::enabled(logging::channel::balance))
            logging::write(logging::channel::balance, "kernel time (ms) " + shares_text(ms) + " within " +
                                                          std::to_string(int(tolerance * 100)) +
                                                          "% of their mean: the split stays at " + shares_text(shares));
        return;
    }
    std::vector<double> next = balanced_shares(shares, times, damping);
    if (logging::enabled(logging::channel::balance))
        logging::write(logging::channel::balance, "kernel time (ms) " + shares_text(ms) + ": split " +
                                                      shares_text(shares) + " -> " + shares_text(next));
    resplit(ctx, std::move(next));
}

} // namespace loom::detail
