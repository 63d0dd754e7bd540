// The flush: pending statements -> plan key -> (cached) plan -> allocations -> launches.
// On a plan-cache hit this path does no string work, no source hashing and no heap
// allocation: the key and argument arrays reuse their capacity from earlier flushes.
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "codegen/emit.hpp"
#include "launch/policy.hpp"
#include "runtime/context_impl.hpp"
#include "runtime/kernel_observer.hpp"
#include "support/log.hpp"

namespace loom::detail {

std::size_t plan_key_hash::operator()(const std::vector<std::uint32_t>& key) const {
    return std::size_t(XXH3_64bits(key.data(), key.size() * sizeof(std::uint32_t)));
}

namespace {

std::uint32_t class_of(buffer& b, std::uint64_t generation, std::vector<buffer*>& classes) {
    if (b.flush_mark != generation) {
        b.flush_mark = generation;
        b.flush_class = std::uint32_t(classes.size());
        classes.push_back(&b);
    }
    return b.flush_class;
}

} // namespace

const char* name_of(flush_cause c) {
    switch (c) {
    case flush_cause::host_read: return "host_read";
    case flush_cause::host_write: return "host_write";
    case flush_cause::finish: return "finish";
    case flush_cause::statement_limit: return "statement_limit";
    case flush_cause::byte_limit: return "byte_limit";
    case flush_cause::skeleton: return "skeleton";
    case flush_cause::loop: return "loop";
    case flush_cause::pipeline: return "pipeline";
    case flush_cause::context_end: return "context_end";
    }
    return "?";
}

// A scalar slot's value class: equal scalars (type and bits) share one, so the kernel passes
// them as one parameter and the expressions over them merge (Black-Scholes written as one
// expression per output repeats its scalars, and each repeat was a new parameter that kept
// the repeated erf() calls apart). Neighbour operands keep no class: changing an offset must
// not change the plan. Only the first 32 distinct values get classes, which bounds the
// search on the dispatch path.
std::uint32_t context_impl::scalar_class(const detail::slot_info& slot, std::uint64_t bits) {
    if (slot.neighbour_operand) return fusion::no_buffer;
    const std::pair<dtype, std::uint64_t> value{slot.type, bits};
    for (std::size_t c = 0; c < scalar_values_.size(); ++c)
        if (scalar_values_[c] == value) return std::uint32_t(c);
    if (scalar_values_.size() == 32) return fusion::no_buffer;
    scalar_values_.push_back(value);
    return std::uint32_t(scalar_values_.size() - 1);
}

// The plan key: fusion switch and guard; per statement its shape, length class, target class and
// slot classes (buffer classes, scalar value classes); then per buffer class whether a live vector
// names it.
void context_impl::assign_classes(plan_purpose purpose) {
    ++flush_generation_;
    key_.clear();
    class_buffers_.clear();
    lengths_.clear();
    scalar_values_.clear();
    slot_scalar_.resize(queue_.slots.size());
    key_.push_back((fusion_ ? 1u : 0u) | (guard_ ? 2u : 0u) | (std::uint32_t(purpose) << 2));
    for (const fusion::pending_statement& st : queue_.statements) {
        std::uint32_t length_class = 0;
        while (length_class < lengths_.size() && lengths_[length_class] != st.length) ++length_class;
        if (length_class == lengths_.size()) lengths_.push_back(st.length);
        key_.push_back(st.shape->id);
        key_.push_back(length_class);
        key_.push_back(class_of(*st.target, flush_generation_, class_buffers_));
        const std::size_t slot_count = st.shape->slots.size();
        for (std::size_t s = 0; s < slot_count; ++s) {
            const fusion::bound_slot& slot = queue_.slots[st.first_slot + s];
            if (slot.buffer) {
                key_.push_back(class_of(*slot.buffer, flush_generation_, class_buffers_));
            } else {
                slot_scalar_[st.first_slot + s] = scalar_class(st.shape->slots[s], slot.bits);
                key_.push_back(slot_scalar_[st.first_slot + s]);
            }
        }
    }
    // Liveness is read once, here: a vector may die on another thread at any moment, and the
    // plan must be the one its key describes (make_plan reads these words, not the counts).
    live_words_ = key_.size();
    for (const buffer* b : class_buffers_) key_.push_back(b->vector_refs.load() > 0 ? 1u : 0u);
}

std::unique_ptr<compiled_plan> context_impl::make_plan(plan_purpose purpose) {
    const bool into_reduction = purpose == plan_purpose::reduction_input;
    fusion::plan_request request;
    request.fuse = fusion_;
    request.limits.max_parameters = fusion::parameter_limit_for(info().max_parameter_bytes);
    request.pack_scalars = purpose == plan_purpose::statements && !guard_; // kernels launched as maps
    for (std::size_t c = 0; c < class_buffers_.size(); ++c) {
        request.buffer_types.push_back(class_buffers_[c]->type);
        request.buffer_live.push_back(key_[live_words_ + c] != 0);
    }
    for (const fusion::pending_statement& st : queue_.statements) {
        fusion::planned_statement ps;
        ps.shape = st.shape;
        ps.target = st.target->flush_class;
        std::uint32_t length_class = 0;
        while (lengths_[length_class] != st.length) ++length_class;
        ps.length_class = length_class;
        for (std::size_t s = 0; s < st.shape->slots.size(); ++s) {
            const fusion::bound_slot& slot = queue_.slots[st.first_slot + s];
            ps.slot_buffer.push_back(slot.buffer ? slot.buffer->flush_class : fusion::no_buffer);
            ps.slot_scalar.push_back(slot.buffer ? fusion::no_buffer : slot_scalar_[st.first_slot + s]);
        }
        request.statements.push_back(std::move(ps));
    }
    auto compiled = std::make_unique<compiled_plan>();
    compiled->plan = fusion::plan_kernels(request);
    compiled->ends_in_reduction = into_reduction;
    if (into_reduction) {
        const fusion::kernel_group& last = compiled->plan.groups.back();
        compiled->last_group_fused = last.first < last.last;
    }
    compiled->launches.resize(compiled->plan.groups.size());
    if (purpose == plan_purpose::epilogue && compiled->plan.groups.size() == 1) {
        // The held pass compiles it into its own source (run_held_with_epilogue).
        compiled->epilogue = true;
        compiled->plan.groups[0].kernel.double_grid_division = !info().gpu && info().fp64;
        return compiled;
    }
    // Compile every kernel before any runs: a build failure must leave vectors untouched. The
    // new ones compile together (program_cache::entries).
    std::vector<cache::program_cache::request> sources;
    std::vector<cache::cached_kernel**> destinations;
    for (std::size_t k = 0; k < compiled->plan.groups.size(); ++k) {
        fusion::kernel_group& g = compiled->plan.groups[k];
        g.kernel.guarded = guard_ != nullptr;
        g.kernel.double_grid_division = !info().gpu && info().fp64;
        g.kernel.form = form_ ? *form_ : launch::map_form_for(info());
        // The reduction's input: the reduction compiles it into its own first pass.
        if (into_reduction && k + 1 == compiled->plan.groups.size()) continue;
        group_launch& out = compiled->launches[k];
        if (const kernel_observer& observe = current_kernel_observer()) observe(g.kernel);
        const std::string summary = "statements " + std::to_string(g.first) + "-" + std::to_string(g.last) + ", " +
                                    std::to_string(g.loaded.size()) + " loads, " + std::to_string(g.stored.size()) +
                                    " stores, " + std::to_string(g.elided.size()) + " elided";
        sources.push_back({codegen::emit(g.kernel, device_->dialect()), summary});
        destinations.push_back(&out.kernel);
        if (launch::wants_grid_form(info())) out.grid_widths = ir::grid_width_params(g.kernel);
        if (!out.grid_widths.empty()) {
            ir::kernel grid = g.kernel;
            grid.grid_width_param = out.grid_widths[0];
            if (const kernel_observer& observe = current_kernel_observer()) observe(grid);
            sources.push_back({codegen::emit(grid, device_->dialect()), summary + ", on whole rows"});
            destinations.push_back(&out.grid_kernel);
        }
    }
    const std::vector<cache::cached_kernel*> kernels = programs_.entries(sources);
    for (std::size_t i = 0; i < kernels.size(); ++i) *destinations[i] = kernels[i];
    return compiled;
}

compiled_plan& context_impl::plan_for_key(plan_purpose purpose) {
    auto it = plans_.find(key_);
    if (it != plans_.end()) {
        ++stats_.plan_hits;
        return *it->second;
    }
    auto made = make_plan(purpose);
    ++stats_.plans_made;
    return *plans_.emplace(key_, std::move(made)).first->second;
}

// Allocates what the plan's kernels bind and no buffer has yet. What the flush needs is added
// up first and refused with a loom::error when the device cannot hold it beside the memory
// every context of the process holds on it already (backend::memory_ledger): some drivers
// (PoCL) abort the process when a lazy allocation fails inside a launch. Refused before any
// of it is allocated, so the flush fails whole.
void context_impl::allocate_buffers(const compiled_plan& p) {
    std::uint64_t needed = 0;
    counted_.assign(class_buffers_.size(), 0); // keeps its capacity: no allocation once warm
    for (const fusion::kernel_group& g : p.plan.groups)
        for (const fusion::arg_binding& a : g.args)
            if (a.kind == ir::param_kind::buffer && !class_buffers_[a.buffer]->memory && !counted_[a.buffer]) {
                counted_[a.buffer] = 1;
                needed += class_buffers_[a.buffer]->bytes();
            }
    const std::uint64_t total = info().global_memory, in_use = device_->memory_in_use();
    if (total != 0 && (needed > total || in_use > total - needed))
        throw out_of_memory(
            "loom: out of device memory: these statements need " + std::to_string(needed) +
            " bytes of new device memory, and " + info().name + " has " + std::to_string(total) + " bytes in all, " +
            std::to_string(in_use) +
            " of them allocated already by this process's contexts; free vectors you no longer need, or "
            "use smaller vectors or fewer at once");
    for (const fusion::kernel_group& g : p.plan.groups)
        for (const fusion::arg_binding& a : g.args)
            if (a.kind == ir::param_kind::buffer) {
                buffer& b = *class_buffers_[a.buffer];
                if (!b.memory) b.memory = device_->allocate(b.bytes());
            }
}

void context_impl::bind_arguments(const fusion::kernel_group& g, std::vector<backend::kernel_arg>& args) const {
    for (std::size_t a = 0; a < g.args.size(); ++a) {
        const fusion::arg_binding& bind = g.args[a];
        if (bind.kind == ir::param_kind::buffer) {
            args.push_back({class_buffers_[bind.buffer]->memory.get(), nullptr, 0});
        } else if (!g.kernel.params[a].packed) {
            const fusion::pending_statement& st = queue_.statements[bind.statement];
            args.push_back({nullptr, &queue_.slots[st.first_slot + bind.slot].bits, size_of(g.kernel.params[a].type)});
        }
    }
}

// The grid width every 2-D read of a kernel uses, from the arguments bound in args_
// (width parameters are 64-bit); 0 when they differ.
std::uint64_t context_impl::common_grid_width(const std::vector<std::uint32_t>& params) const {
    std::int64_t width = 0;
    for (std::size_t j = 0; j < params.size(); ++j) {
        std::int64_t w = 0;
        std::memcpy(&w, args_[params[j]].value, sizeof w);
        if (w <= 0 || (j > 0 && w != width)) return 0;
        width = w;
    }
    return std::uint64_t(width);
}

// Uploads the values of g's packed scalars into `into` (made on first use) and returns it.
// The write waits for the kernels before it, which may still read the buffer's last values.
const backend::memory& context_impl::upload_packed_scalars(const fusion::kernel_group& g,
                                                           std::unique_ptr<backend::memory>& into) {
    packed_values_.clear();
    for (std::size_t a = 0; a < g.args.size(); ++a) {
        if (!g.kernel.params[a].packed) continue;
        const fusion::pending_statement& st = queue_.statements[g.args[a].statement];
        packed_values_.push_back(queue_.slots[st.first_slot + g.args[a].slot].bits);
    }
    const std::size_t bytes = packed_values_.size() * sizeof(std::uint64_t);
    if (!into) into = device_->allocate(bytes);
    device_->write(*into, 0, packed_values_.data(), bytes);
    note_host_sync("packed scalars");
    return *into;
}

void context_impl::launch(compiled_plan& p) {
    for (std::size_t k = 0; k < p.plan.groups.size(); ++k) {
        group_launch& planned = p.launches[k];
        if (!planned.kernel) continue; // a reduction's input (flush_into_reduction)
        launch_batch();                // loop iterations gathered before it run first
        const fusion::kernel_group& g = p.plan.groups[k];
        const std::uint64_t& length = queue_.statements[g.first].length;
        args_.clear();
        bind_arguments(g, args_);
        if (ir::packs_scalars(g.kernel))
            args_.push_back({&upload_packed_scalars(g, planned.packed_scalars), nullptr, 0});
        if (g.kernel.guarded) args_.push_back({guard_->memory.get(), nullptr, 0});
        args_.push_back({nullptr, &length, sizeof length});
        cache::cached_kernel* kernel = planned.kernel;
        const std::uint64_t width = planned.grid_kernel ? common_grid_width(planned.grid_widths) : 0;
        backend::geometry geo;
        if (width && launch::grid_geometry(info(), g.kernel.form, width, length, geo)) kernel = planned.grid_kernel;
        geo = map_launch(*kernel, g, length, kernel == planned.grid_kernel ? width : 0);
        execute(*kernel->kernel, args_.data(), args_.size(), geo);
        if (logging::enabled(logging::channel::launch))
            logging::write(
                logging::channel::launch,
                "kernel " + std::to_string(k) + " over " + std::to_string(length) + " elements (statements " +
                    std::to_string(g.first) + "-" + std::to_string(g.last) + "), " + std::to_string(geo.global_items) +
                    " work-items" +
                    (kernel == planned.grid_kernel ? ", on whole rows of " + std::to_string(width) : std::string()));
    }
}

void context_impl::note_host_sync(const char* what) {
    ++stats_.host_syncs;
    if (!logging::enabled(logging::channel::launch)) return;
    logging::context_scope scope(id_);
    logging::write(logging::channel::launch, std::string("sync: ") + what);
}

void context_impl::set_guard(buffer* flag) {
    flush(flush_cause::loop);
    if (flag && !flag->memory) flag->memory = device_->allocate(flag->bytes());
    guard_ = flag;
}

// Plans the queued statements (a cached plan when the key is known), allocates, launches.
void context_impl::run_planned(flush_cause cause, plan_purpose purpose) {
    assign_classes(purpose);
    const std::uint64_t made_before = stats_.plans_made;
    compiled_plan& p = plan_for_key(purpose);
    allocate_buffers(p);
    if (logging::enabled(logging::channel::fusion)) log_plan(p, stats_.plans_made == made_before, cause);
    launch(p);
    last_plan_ = &p;
    ++stats_.flushes;
    stats_.statements += queue_.statements.size() - (p.ends_in_reduction ? 1 : 0);
}

void context_impl::flush(flush_cause cause) {
    std::lock_guard<std::recursive_mutex> guard(mutex_);
    logging::context_scope scope(id_);
    // A held pass runs before anything after it; the device loop's own boundaries (nothing
    // pending) keep it for the bookkeeping that follows.
    if (holding() && !(cause == flush_cause::loop && queue_.empty())) release_held();
    if (queue_.empty()) return;
    start_pending_window();
    try {
        run_planned(cause);
    } catch (...) {
        keep_initial_contents();
        queue_.clear();
        throw;
    }
    queue_.drop_statements(); // a skeleton's input, bound before this flush, stays
}

void context_impl::log_plan(const compiled_plan& p, bool cached, flush_cause cause) const {
    auto names = [](const std::vector<std::uint32_t>& classes) {
        std::string s;
        for (std::uint32_t c : classes) s += (s.empty() ? "b" : " b") + std::to_string(c);
        return s.empty() ? std::string("-") : s;
    };
    auto without = [](std::vector<std::uint32_t> classes, std::uint32_t c) {
        classes.erase(std::remove(classes.begin(), classes.end(), c), classes.end());
        return classes;
    };
    const std::size_t statements = queue_.statements.size() - (p.ends_in_reduction ? 1 : 0);
    logging::write(logging::channel::fusion,
                   std::string("flush (") + name_of(cause) + "): " + std::to_string(statements) + " statements" +
                       (p.ends_in_reduction ? " + a reduction's input" : "") + " -> " +
                       std::to_string(p.plan.groups.size() - (p.ends_in_reduction && !p.last_group_fused ? 1 : 0)) +
                       " kernels (" + (cached ? "cached plan" : "new plan") + ")");
    for (std::size_t k = 0; k < p.plan.groups.size(); ++k) {
        const fusion::kernel_group& g = p.plan.groups[k];
        if (p.epilogue) {
            logging::write(logging::channel::fusion, "kernel " + std::to_string(k) + ": statements " +
                                                         std::to_string(g.first) + "-" + std::to_string(g.last) +
                                                         " run at the end of the held reduction pass; loads " +
                                                         names(g.loaded) + "; stores " + names(g.stored));
            continue;
        }
        if (p.ends_in_reduction && k + 1 == p.plan.groups.size()) {
            if (p.last_group_fused)
                logging::write(logging::channel::fusion,
                               "kernel " + std::to_string(k) + ": statements " + std::to_string(g.first) + "-" +
                                   std::to_string(g.last - 1) + " run in the reduction's first pass; loads " +
                                   names(g.loaded) + "; stores " + names(g.stored) + "; elides " +
                                   names(without(g.elided, reduction_sink_->flush_class)));
            continue;
        }
        std::string line = "kernel " + std::to_string(k) + ": statements " + std::to_string(g.first) + "-" +
                           std::to_string(g.last) + " length " + std::to_string(queue_.statements[g.first].length) +
                           "; loads " + names(g.loaded) + "; stores " + names(g.stored) + "; elides " +
                           names(g.elided) + "; ends " + fusion::name_of(g.reason);
        if (g.reason == fusion::boundary::neighbour_read)
            line += " (statement " + std::to_string(g.last + 1) + " reads b" + std::to_string(g.reason_buffer) +
                    " at other indices; statement " + std::to_string(g.reason_statement) + " writes it)";
        if (g.reason == fusion::boundary::gather_read)
            line += " (statement " + std::to_string(g.last + 1) + " gathers from b" + std::to_string(g.reason_buffer) +
                    ", which statement " + std::to_string(g.reason_statement) + " writes)";
        if (g.reason == fusion::boundary::view_write)
            line += " (statement " + std::to_string(g.last + 1) + " touches b" + std::to_string(g.reason_buffer) +
                    ", which statement " + std::to_string(g.reason_statement) + " writes through a view or scatter)";
        if (g.reason == fusion::boundary::neighbour_write)
            line += " (statement " + std::to_string(g.last + 1) + " writes b" + std::to_string(g.reason_buffer) +
                    ", which statement " + std::to_string(g.reason_statement) + " reads at other indices)";
        if (g.reason == fusion::boundary::length_change)
            line += " (length " + std::to_string(queue_.statements[g.last].length) +
                    " != " + std::to_string(queue_.statements[g.last + 1].length) + ")";
        logging::write(logging::channel::fusion, line);
    }
}

} // namespace loom::detail
