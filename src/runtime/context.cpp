// loom::context and its implementation's lifetime: device selection from the options
// or the environment, and the final flush when the last owner lets go.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "loom/devices.hpp"
#include "loom/error.hpp"
#include "launch/policy.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/open_context.hpp"
#include "runtime/parts/parts_device.hpp"
#include "runtime/parts/rebalance.hpp"
#include "support/environment.hpp"
#include "support/log.hpp"

namespace loom {
namespace {

std::string from_env(const std::string& given, const char* variable) {
    if (!given.empty()) return given;
    return environment::text(variable).value_or("");
}

// An option given in context_options (0 or 1), else the environment's switch.
bool on_off_setting(int given, const char* variable, bool fallback, const char* what, const char* on_means,
                    const char* off_means) {
    if (given >= 0) return given != 0;
    return environment::flag(variable, fallback, what, on_means, off_means);
}

bool fusion_setting(int given) {
    return on_off_setting(given, "LOOM_FUSION", true, "a fusion setting", "to fuse statements into kernels",
                          "to run each statement as its own kernel");
}

bool tuning_setting(int given) {
    return on_off_setting(given, "LOOM_TUNE", false, "a tuning setting",
                          "to measure a few launch geometries at a kernel's first large launch and keep the fastest "
                          "with the kernel in the cache",
                          "");
}

bool contraction_setting(int given) {
    return on_off_setting(given, "LOOM_FP_CONTRACT", false, "a contraction setting",
                          "to let a * b + c become one fused multiply-add", "for results equal to the host's");
}

loom::balance balance_setting(loom::balance given) {
    if (given != loom::balance::from_environment) return given;
    const std::optional<std::string> value = environment::text("LOOM_BALANCE");
    if (!value || value->empty() || *value == "fixed") return loom::balance::fixed;
    if (*value == "dynamic") return loom::balance::dynamic;
    throw error("loom: LOOM_BALANCE=" + *value + " is not a balance; use fixed or dynamic");
}

bool profiling_setting(int given) {
    return on_off_setting(given, "LOOM_PROFILE", false, "a profiling setting",
                          "to time every kernel on the device (context::statistics().kernel_ns)", "");
}

// Every live context, for loom::finish(). Never destroyed: a static context may end after it.
struct context_registry {
    std::mutex lock;
    std::vector<std::weak_ptr<detail::context_impl>> contexts;
};

context_registry& registry() {
    static context_registry& r = *new context_registry;
    return r;
}

} // namespace

context::context() : context(context_options{}) {}

namespace {

// LOOM_DEVICE=all: every device of the backend (LOOM_BACKEND's, else the default device's, which
// `backend` is then set to), as a list ("0,1,2"), or the one device's index where it has one.
std::string every_device(std::string& backend) {
    const std::vector<device_description> all = devices();
    if (backend.empty() || backend == "auto")
        for (const device_description& d : all)
            if (d.is_default) backend = d.backend;
    const std::string chosen = backend;
    std::string list;
    for (const device_description& d : all)
        if (d.backend == chosen) list += (list.empty() ? "" : ",") + std::to_string(d.index);
    if (list.empty())
        throw no_device("loom: LOOM_DEVICE=all found no device" +
                        (chosen.empty() ? std::string() : " of the " + chosen + " backend") +
                        " (loom-info lists what this machine has)");
    return list;
}

} // namespace

context::context(const context_options& options) {
    std::string backend = from_env(options.backend, "LOOM_BACKEND");
    std::string device = from_env(options.device, "LOOM_DEVICE");
    if (device == "all") device = every_device(backend);
    const loom::balance balancing = balance_setting(options.balance);
    if (device.find_first_of(",/") != std::string::npos) {
        // Several devices: a context of one device (or sub-device) each, and one over them all.
        std::vector<context> parts;
        std::size_t start = 0;
        while (start <= device.size()) {
            const std::size_t comma = std::min(device.find(',', start), device.size());
            context_options one = options;
            one.backend = backend;
            if (balancing == loom::balance::dynamic) one.profiling = 1; // the parts' kernel times move the split
            one.device = device.substr(start, comma - start);
            const std::size_t slash = one.device.find('/');
            if (one.device.empty() || slash == 0)
                throw error("loom: LOOM_DEVICE=" + device +
                            " names an empty device; list devices by index or name, separated by commas (0,1), "
                            "and split one with /parts (0/2)");
            if (slash == std::string::npos) {
                parts.emplace_back(one);
            } else {
                // Device "<name>/<k>": k equal sub-devices of it (backend::open_sub_devices).
                const std::string count = one.device.substr(slash + 1);
                unsigned k = 0;
                const auto [end, bad] = std::from_chars(count.data(), count.data() + count.size(), k);
                if (bad != std::errc() || end != count.data() + count.size() || k < 2)
                    throw error("loom: LOOM_DEVICE=" + device + ": \"" + one.device +
                                "\" splits a device into a number of parts of 2 or more after the /, as in 0/2");
                one.device.resize(slash);
                std::vector<std::unique_ptr<backend::device>> subs =
                    backend::open_sub_devices(backend, one.device, k, profiling_setting(one.profiling));
                for (std::unique_ptr<backend::device>& sub : subs)
                    parts.emplace_back(detail::open_context(one, [&](bool) { return std::move(sub); }));
            }
            start = comma + 1;
        }
        *this = context(parts, balancing);
        return;
    }
    impl_ =
        detail::open_context(options, [&](bool profiling) { return backend::open_device(backend, device, profiling); });
}

namespace {

detail::context_ptr registered(detail::context_ptr impl) {
    context_registry& r = registry();
    std::lock_guard<std::mutex> guard(r.lock);
    r.contexts.push_back(impl);
    return impl;
}

} // namespace

context::context(const std::vector<context>& parts, loom::balance how) {
    std::vector<detail::context_ptr> impls;
    for (const context& c : parts) impls.push_back(c.impl());
    if (impls.empty()) throw error("loom: a context over several devices was given no contexts");
    detail::context_settings settings;
    if (impls[0]) settings = impls[0]->settings();
    impl_ = registered(std::make_shared<detail::context_impl>(std::move(impls), settings));
    impl_->set_dynamic_balance(how == loom::balance::dynamic);
}

context detail::open_ranked_context(const context& local, std::shared_ptr<const rank_group> ranks) {
    const context_ptr& own = local.impl();
    if (own->ranks())
        throw error("loom::mpi: the local context given is itself over MPI ranks; give this rank's "
                    "own context (one device, or several)");
    const std::vector<context_ptr> parts = own->several() ? own->parts() : std::vector<context_ptr>{own};
    return context(registered(std::make_shared<context_impl>(parts, own->settings(), std::move(ranks))));
}

std::size_t context::device_count() const { return impl_->several() ? impl_->parts().size() : 1; }

std::vector<double> context::split() const {
    std::lock_guard<std::recursive_mutex> guard(impl_->mutex());
    return impl_->several() ? impl_->shares() : std::vector<double>{1.0};
}

void context::set_split(const std::vector<double>& shares) {
    if (!impl_->several())
        throw error("loom::context::set_split: this context has one device; a split shares vectors between the "
                    "devices of a context over several (docs/multi-device.md)");
    if (impl_->ranks())
        throw error("loom::context::set_split: this context splits its vectors over MPI ranks, and moving a split "
                    "between ranks is not supported; the ranks' shares follow their devices (docs/multi-device.md)");
    detail::resplit(*impl_, shares);
}

std::vector<context> context::parts() const {
    std::vector<context> parts;
    for (const detail::context_ptr& part : impl_->parts()) parts.emplace_back(part);
    return parts;
}

// Every context is made here: context(options), and interop's over the caller's handles (interop.cpp).
detail::context_ptr detail::open_context(const context_options& options,
                                         const std::function<std::unique_ptr<backend::device>(bool)>& open) {
    const bool fusion = fusion_setting(options.fusion), fp_contract = contraction_setting(options.fp_contract);
    const bool profiling = profiling_setting(options.profiling), tune = tuning_setting(options.tune);
    detail::context_settings settings;
    settings.fusion = fusion;
    settings.fp_contract = fp_contract;
    settings.tune = tune;
    settings.form = launch::form_from_environment();
    auto impl = std::make_shared<detail::context_impl>(open(profiling), settings);
    context_registry& r = registry();
    std::lock_guard<std::mutex> guard(r.lock);
    r.contexts.erase(std::remove_if(r.contexts.begin(), r.contexts.end(), [](auto& w) { return w.expired(); }),
                     r.contexts.end());
    r.contexts.push_back(impl);
    return impl;
}

std::uint64_t context::id() const { return impl_->id(); }
std::string context::backend_name() const { return impl_->info().backend; }
std::string context::device_name() const { return impl_->info().name; }
std::string context::driver_version() const { return impl_->info().driver; }
bool context::has_fp64() const { return impl_->info().fp64; }
void context::finish() const { detail::finish(*impl_); }
context_statistics context::statistics() const {
    if (impl_->several()) { // the parts' counters, summed
        context_statistics sum;
        for (const detail::context_ptr& part : impl_->parts()) {
            const context_statistics s = context(part).statistics();
            sum.flushes += s.flushes;
            sum.statements += s.statements;
            sum.plans_made += s.plans_made;
            sum.plan_hits += s.plan_hits;
            sum.kernels_compiled += s.kernels_compiled;
            sum.disk_hits += s.disk_hits;
            sum.kernels_launched += s.kernels_launched;
            sum.host_syncs += s.host_syncs;
            sum.kernels_timed += s.kernels_timed;
            sum.kernel_ns += s.kernel_ns;
            sum.kernels_tuned += s.kernels_tuned;
            sum.buffers_allocated += s.buffers_allocated;
            sum.buffers_reused += s.buffers_reused;
        }
        return sum;
    }
    std::lock_guard<std::recursive_mutex> guard(impl_->mutex());
    context_statistics s = impl_->counters();
    // Every compile goes through the program cache, whichever skeleton asked for it.
    s.kernels_compiled = impl_->programs().stats().compiled;
    s.disk_hits = impl_->programs().stats().disk_hits;
    const backend::kernel_timing timed = impl_->device().timing();
    s.kernels_timed = timed.launches;
    s.kernel_ns = timed.ns;
    return s;
}

void finish() {
    std::vector<std::shared_ptr<detail::context_impl>> live;
    {
        context_registry& r = registry();
        std::lock_guard<std::mutex> guard(r.lock);
        for (auto& w : r.contexts)
            if (auto c = w.lock()) live.push_back(c);
    }
    for (auto& c : live) detail::finish(*c);
}

namespace detail {

namespace {
void finish_live_contexts_at_exit() {
    try {
        loom::finish();
    } catch (const std::exception& e) {
        logging::warn(std::string("pending statements failed at exit: ") + e.what());
    }
}
} // namespace

// Registered after each kernel the device compiler builds, so that the last registration runs
// before any static the compiler made while building is destroyed (exit runs handlers and
// static destructors in reverse order of registration, and compilers make some statics lazily,
// in later builds): the statements still pending at exit run while the compiler can still
// build them. A context destroyed later (a static one) then finds nothing left to compile.
void run_pending_work_before_compilers_exit() { std::atexit(finish_live_contexts_at_exit); }

namespace {
std::uint64_t next_context_id() {
    static std::atomic<std::uint64_t> made{0};
    return ++made;
}
} // namespace

context_impl::context_impl(std::unique_ptr<backend::device> dev, const context_settings& settings)
    : id_(next_context_id()), device_(std::move(dev)), settings_(settings), executor_(*device_, statistics_, id_),
      programs_(*device_, run_pending_work_before_compilers_exit),
      planner_(*device_, programs_, settings_, statistics_), plans_(programs_),
      maps_(*device_, executor_, programs_, statistics_, settings_) {}

namespace {

// What a context over `parts` reports of its device: their names joined by " | ", fp64 where
// every part has it, the smallest of the limits.
backend::device_info describe_parts(const std::vector<context_ptr>& parts, bool ranked) {
    if (parts.size() < (ranked ? 1u : 2u))
        throw error("loom: a context over several devices needs at least two parts, and was given " +
                    std::to_string(parts.size()));
    for (const context_ptr& p : parts)
        if (!p) throw error("loom: a context over several devices was given an empty context");
    backend::device_info info = parts[0]->info();
    for (std::size_t k = 1; k < parts.size(); ++k) {
        const backend::device_info& p = parts[k]->info();
        if (p.backend != info.backend) info.backend += "+" + p.backend;
        info.name += " | " + p.name;
        info.fp64 = info.fp64 && p.fp64;
        info.gpu = info.gpu || p.gpu;
        info.compute_units += p.compute_units;
        info.global_memory += p.global_memory;
        info.max_work_group = std::min(info.max_work_group, p.max_work_group);
        info.max_parameter_bytes = std::min(info.max_parameter_bytes, p.max_parameter_bytes);
    }
    return info;
}

// A part's first share of every vector, from its properties (docs/multi-device.md): its compute
// units, a GPU's counted 16 times (a GPU compute unit runs many more lanes at once than a CPU
// core). A starting rule; what the parts measure moves it (loom::balance).
double starting_weight(const backend::device_info& info) {
    return double(std::max(1u, info.compute_units)) * (info.gpu ? 16.0 : 1.0);
}

} // namespace

context_impl::context_impl(std::vector<context_ptr> parts, const context_settings& settings,
                           std::shared_ptr<const rank_group> ranks)
    : context_impl(make_parts_device(describe_parts(parts, ranks != nullptr), parts.at(0)->device(), parts.size()),
                   settings) {
    for (std::size_t k = 0; k < parts.size(); ++k) {
        if (parts[k]->several())
            throw error("loom: a context over several devices takes contexts of one device each; this part is "
                        "itself over " +
                        std::to_string(parts[k]->parts().size()) + " devices");
        for (std::size_t j = 0; j < k; ++j)
            if (parts[j] == parts[k])
                throw error("loom: a context over several devices was given one context twice; open a context per "
                            "device (two contexts may open one device)");
        weights_.push_back(starting_weight(parts[k]->info()));
    }
    double total = 0;
    for (double w : weights_) total += w;
    for (double& w : weights_) w /= total;
    timed_ns_.assign(parts.size(), 0);
    if (ranks) { // every rank's weight (its parts' together) and part count, from every rank
        const std::size_t n = ranks->size();
        const double mine[2] = {total, double(parts.size())};
        std::vector<double> all(2 * n);
        ranks->allgather(mine, all.data(), sizeof mine, std::vector<std::uint64_t>(n, 1));
        for (std::size_t r = 0; r < n; ++r) {
            rank_weights_.push_back(all[2 * r]);
            rank_parts_.push_back(std::uint64_t(all[2 * r + 1]));
            if (r < ranks->rank()) parts_before_ += std::size_t(all[2 * r + 1]);
        }
        ranks_ = std::move(ranks);
    }
    parts_ = std::move(parts);
}

std::vector<part_range> context_impl::split(std::uint64_t length) const {
    if (!ranks_) return detail::split(length, weights_);
    const part_range mine = rank_split(length)[ranks_->rank()];
    std::vector<part_range> parts = detail::split(mine.count, weights_);
    for (part_range& p : parts) p.first += mine.first;
    return parts;
}

void context_impl::require_one_device(const char* what) const {
    if (several()) throw error(needs_one_device(what, parts_.size()));
}

void context_impl::forget_dead_buffers() {
    parted_.erase(std::remove_if(parted_.begin(), parted_.end(), [](const auto& w) { return w.expired(); }),
                  parted_.end());
}

context_impl::~context_impl() {
    logging::context_scope scope(id_);
    try {
        flush(flush_cause::context_end);
        device_->finish();
    } catch (const std::exception& e) {
        logging::warn(std::string("pending statements failed while a context was destroyed: ") + e.what());
    }
}

void flush(context_impl& ctx, flush_point at) {
    logging::context_scope scope(ctx.id());
    ctx.flush(at == flush_point::loop       ? flush_cause::loop
              : at == flush_point::pipeline ? flush_cause::pipeline
                                            : flush_cause::skeleton);
}

void finish(context_impl& ctx) {
    std::lock_guard<std::recursive_mutex> guard(ctx.mutex());
    if (ctx.dynamic_balance()) return rebalance(ctx); // finishes every part, then judges the split
    for (const context_ptr& part : ctx.parts()) {     // enqueued on every part before any waits
        std::lock_guard<std::recursive_mutex> part_guard(part->mutex());
        part->flush(flush_cause::finish);
    }
    for (const context_ptr& part : ctx.parts()) finish(*part);
    logging::context_scope scope(ctx.id());
    ctx.flush(flush_cause::finish);
    ctx.device().finish();
    ctx.note_host_sync("finish");
}

} // namespace detail
} // namespace loom
