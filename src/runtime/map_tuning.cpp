// The launch geometry of a map kernel (map_launcher::geometry_of), and its tuning (context_options::tune, LOOM_TUNE).
// With tuning on, a kernel's first launch over a large range measures the launch policy's
// candidate geometries (launch::tuning_candidates) and keeps the fastest with the kernel: in
// memory, and in its disk cache entry, so that later processes launch tuned without
// measuring. A stored choice is used whether or not tuning is on.
#include <algorithm>
#include <chrono>

#include "launch/policy.hpp"
#include "runtime/map_launcher.hpp"
#include "support/log.hpp"

namespace loom::detail {
namespace {

// Below this a launch is too short for its geometry to matter or to be measured well.
constexpr std::uint64_t tune_min_elements = std::uint64_t(1) << 20;
constexpr int tune_repetitions = 5; // timed rounds over the candidates, after a warm-up; the median counts

// The record's form: a grid kernel on rows in a non-chunked form tunes its group's shape
// (launch::grid_shape), which its record says.
const char* form_name(ir::map_form f, bool on_rows) {
    if (f == ir::map_form::chunked) return "chunked";
    return on_rows ? "grid_rows" : "grid_stride";
}

// The launch for `choice`: on whole rows of `width` where the grid form takes them, else the 1-D
// launch, whose work-items take `lanes` elements each (the vector form, codegen/vector_map.hpp).
backend::geometry launch_shape(const backend::device_info& device, ir::map_form form, std::uint64_t length,
                               std::uint64_t width, unsigned lanes, launch::geometry_choice choice) {
    backend::geometry geo;
    if (width && launch::grid_geometry(device, form, width, length, geo, choice)) return geo;
    return launch::map_geometry(device, form, (length + lanes - 1) / lanes, choice);
}

} // namespace

backend::geometry map_launcher::geometry_of(cache::cached_kernel& k, const fusion::kernel_group& g,
                                            const flush_planner& planner, std::uint64_t length, std::uint64_t width,
                                            unsigned lanes) {
    if (settings_.tune && !k.tuning && length >= tune_min_elements && !g.kernel.guarded)
        tune(k, g, planner, length, width, lanes);
    launch::geometry_choice choice;
    if (k.tuning) choice.value = k.tuning->choice;
    return launch_shape(device_.info(), g.kernel.form, length, width, lanes, choice);
}

// Runs every candidate on copies of the buffers the kernel writes, so that the vectors keep
// their values: a kernel may read what it writes (y = y + x), and must run on them once.
void map_launcher::tune(cache::cached_kernel& k, const fusion::kernel_group& g, const flush_planner& planner,
                        std::uint64_t length, std::uint64_t width, unsigned lanes) {
    // width is set only for a grid kernel launched on rows (map_launcher::launch).
    const std::vector<launch::geometry_choice> candidates =
        width ? launch::grid_tuning_candidates(device_.info(), g.kernel.form)
              : launch::tuning_candidates(device_.info(), g.kernel.form);
    cache::tuning_record record;
    record.form = form_name(g.kernel.form, width != 0);
    record.elements = length;
    record.choice = candidates.empty() ? 1 : candidates.front().value;
    std::vector<std::unique_ptr<backend::memory>> scratch;
    std::vector<backend::kernel_arg> trial = args_;
    try {
        // Arguments follow the parameters, packed scalars left out (bind_arguments).
        for (std::size_t a = 0, position = 0; a < g.args.size(); ++a) {
            if (g.kernel.params[a].packed) continue;
            const std::size_t at = position++;
            if (g.args[a].kind != ir::param_kind::buffer || !g.kernel.params[a].written) continue;
            const buffer& b = planner.buffer_of(g.args[a].buffer);
            scratch.push_back(executor_.allocate_bytes(b.bytes()));
            device_.copy(*b.memory, *scratch.back(), b.bytes());
            trial[at].buffer = scratch.back().get();
        }
        // Round by round over the candidates, after a warm-up of each (PoCL builds a work-group
        // function per geometry at its first launch), so that no candidate is measured cold. A
        // candidate the kernel cannot launch with is dropped at its warm-up: a kernel with many
        // registers may not run in blocks as large as the device allows (NVIDIA's OpenCL refused
        // 1024 work-items for a 200-statement stencil on an H100), and the others still count.
        std::vector<launch::geometry_choice> usable;
        std::vector<backend::geometry> geometries;
        for (const launch::geometry_choice& c : candidates) {
            const backend::geometry geo = launch_shape(device_.info(), g.kernel.form, length, width, lanes, c);
            try {
                device_.launch(*k.kernel, trial.data(), trial.size(), geo);
                device_.finish();
            } catch (const error& e) {
                if (usable.empty() && &c == &candidates.back()) throw; // none launches: tuning is skipped, as below
                if (logging::enabled(logging::channel::launch))
                    logging::write(logging::channel::launch, "tuning " + k.k.hex() + ": candidate " +
                                                                 std::to_string(c.value) + " dropped: " + e.what());
                continue;
            }
            usable.push_back(c);
            geometries.push_back(geo);
        }
        std::vector<std::vector<double>> us(usable.size());
        for (int r = 0; r < tune_repetitions; ++r)
            for (std::size_t c = 0; c < usable.size(); ++c) {
                const auto start = std::chrono::steady_clock::now();
                device_.launch(*k.kernel, trial.data(), trial.size(), geometries[c]);
                device_.finish();
                us[c].push_back(
                    std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
            }
        double best = 0;
        for (std::size_t c = 0; c < usable.size(); ++c) {
            std::sort(us[c].begin(), us[c].end());
            const double median = us[c][us[c].size() / 2];
            record.measured.emplace_back(usable[c].value, median);
            if (c == 0 || median < best) { // the first usable (the default where it runs) wins ties
                best = median;
                record.choice = usable[c].value;
            }
        }
    } catch (const error& e) { // no memory for the copies, say: launch with the default, measure no more
        if (logging::enabled(logging::channel::launch))
            logging::write(logging::channel::launch, std::string("tuning skipped: ") + e.what());
        k.tuning = record;
        return;
    }
    executor_.host_sync("tuning");
    statistics_.kernel_tuned();
    if (logging::enabled(logging::channel::launch))
        logging::write(logging::channel::launch, "tuned " + k.k.hex() + ": " + cache::describe(record));
    programs_.record_tuning(k, std::move(record));
}

} // namespace loom::detail
