// Moving the split of a context over several devices (docs/multi-device.md): by the caller's
// weights (context::set_split), or toward equal kernel time per part from what the parts'
// profiling events measured (loom::balance::dynamic, in the manner of STEPOCL).
#pragma once

#include <cstdint>
#include <vector>

namespace loom::detail {

class context_impl;

// STEPOCL's damped step: each share r_k <- r_k * (1 + (t_mean / t_k - 1) / damping), t_k the
// part's kernel time over the last period, t_mean their mean; then scaled to sum to 1. A part
// that measured no time keeps its share. Pure: unit-tested without a device.
std::vector<double> balanced_shares(const std::vector<double>& shares, const std::vector<double>& times,
                                    double damping);

// Whether the parts' times agree within `tolerance` of their mean (|t_k - t_mean| <= tolerance *
// t_mean for every part): the split then stays.
bool times_agree(const std::vector<double>& times, double tolerance);

// Gives ctx (several()) the shares `shares` (positive; scaled to sum to 1) and moves the data of
// every vector on it to the new split: every part's pending work runs first, then each vector
// whose cut moved is read and written back in its new parts. Throws loom::error for shares that
// do not name one positive number per part.
void resplit(context_impl& ctx, std::vector<double> shares);

// loom::balance::dynamic: the parts' kernel time since the last call (their profiling events,
// after a finish of every part), and, where the times disagree by more than the tolerance, one
// damped step of the shares with the data moved; each step logged on the balance channel. A
// period with too little kernel time to judge (under 100 microseconds on a part) moves nothing.
void rebalance(context_impl& ctx);

} // namespace loom::detail
