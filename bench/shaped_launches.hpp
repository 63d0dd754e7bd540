// Handwritten kernels tuned over shapes that the element-wise LOOM_EACH_ELEMENT forms do not
// cover (a row per work-item, a work-group per row, a band of rows, tiles in local memory): a
// list of named launches, every one checked against a host reference, then timed by
// bench::tune_configs; the fastest is the baseline, and its name goes in the label.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness.hpp"
#include "opencl_baseline.hpp"

namespace bench::ocl {

struct named_launch {
    cl::Kernel kernel; // its arguments bound
    cl::NDRange global, local;
    std::string name; // "form:geometry", as the tuning line and the label print it
};

inline void run_launch(const named_launch& l) {
    launch(l.kernel, l.global, l.local);
    env().queue.finish();
}

// `items` work-items in work-groups of `group` (0: the runtime's choice), the range rounded up
// to whole groups: the kernel tests its own bounds.
inline named_launch items_in_groups(const cl::Kernel& k, const std::string& form, std::size_t items,
                                    std::size_t group) {
    return {k, cl::NDRange(group ? round_up(items, group) : items), group ? cl::NDRange(group) : cl::NullRange,
            form + ":" + group_name(group)};
}

// One launch per work-group size of candidate_groups(k) that is no larger than `items`.
inline void add_group_sizes(std::vector<named_launch>& out, const cl::Kernel& k, const std::string& form,
                            std::size_t items) {
    for (std::size_t g : candidate_groups(k))
        if (g <= items) out.push_back(items_in_groups(k, form, items, g));
}

// A few work-items in groups of one, each taking a contiguous part of the work (what VexCL and
// Boost.Compute launch on CPUs): 1, 2, 4, 8, 16 and 32 per compute unit, at most `most`.
inline void add_chunked(std::vector<named_launch>& out, const cl::Kernel& k, const std::string& form,
                        std::size_t most) {
    std::size_t last = 0;
    for (std::size_t per_unit : {1, 2, 4, 8, 16, 32}) {
        const std::size_t items = std::min(most, std::size_t(env().compute_units) * per_unit);
        if (items == last) continue;
        last = items;
        out.push_back({k, cl::NDRange(items), cl::NDRange(1), form + ":" + std::to_string(items)});
    }
}

struct tuned_launches {
    std::vector<named_launch> launches;
    tuning tuned;
    named_launch& best() { return launches[tuned.best]; }
};

// Checks every launch with `check` (which poisons the output, runs the launch given, reads the
// output back and returns an error or nothing; a wrong one throws, naming the launch), then
// tunes over them (bench::tune_configs). Once per `what` in a process: asked again (an
// interleaved benchmark makes its handwritten instance anew), it checks the winner alone and
// keeps the first tuning.
inline tuned_launches check_and_tune(const std::string& what, std::vector<named_launch> launches,
                                     const std::function<std::string(const named_launch&)>& check, int reps = 3) {
    static std::map<std::string, tuning> tuned_before;
    tuned_launches t;
    t.launches = std::move(launches);
    auto checked = [&](const named_launch& l) {
        const std::string e = check(l);
        if (!e.empty()) throw std::runtime_error(l.name + ": " + e);
    };
    if (auto it = tuned_before.find(what); it != tuned_before.end()) {
        t.tuned = it->second;
        checked(t.best());
        return t;
    }
    std::vector<std::string> names;
    for (const named_launch& l : t.launches) {
        checked(l);
        names.push_back(l.name);
    }
    tuned_launches* raw = &t;
    t.tuned = tune_configs(
        what, names, [raw](std::size_t k) { run_launch(raw->launches[k]); }, reps, "shape");
    tuned_before[what] = t.tuned;
    return t;
}

} // namespace bench::ocl
