// The one launch path (executor.hpp) and its log lines.
#include "runtime/executor.hpp"

#include <string>

#include "loom/error.hpp"
#include "loom/reduce.hpp"
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
    case launch_label::kind::sort_pass: line = "sort pass " + std::to_string(l.pass) + range; break;
    case launch_label::kind::held_pass:
        line = "held reduction pass";
        if (l.last) line += ", with statements 0-" + std::to_string(l.last - 1) + " at its end";
        break;
    case launch_label::kind::custom: line = std::string("kernel ") + l.name + " (loom::kernel)"; break;
    case launch_label::kind::block_map: line = "block map kernel over " + std::to_string(l.elements) + " blocks"; break;
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

void executor::allocate(buffer& b) {
    if (b.memory) return;
    b.memory = pool_->take(b.bytes());
    if (b.memory) {
        statistics_.memory_reused();
    } else {
        b.memory = allocate_new(b.bytes());
        statistics_.memory_allocated();
    }
    b.pool = pool_;
}

std::unique_ptr<backend::memory> executor::allocate_bytes(std::size_t bytes) { return allocate_new(bytes); }

std::unique_ptr<backend::memory> executor::allocate_new(std::size_t bytes) {
    try {
        return device_.allocate(bytes);
    } catch (const out_of_memory&) {
        if (memory_pool::trim_all() == 0) throw;
    }
    return device_.allocate(bytes);
}

void executor::check_room(std::uint64_t needed, const char* what) const {
    const backend::device_info& info = device_.info();
    const std::uint64_t total = info.global_memory;
    const auto fits = [&] {
        const std::uint64_t in_use = device_.memory_in_use();
        return total == 0 || (needed <= total && in_use <= total - needed);
    };
    if (fits() || (memory_pool::trim_all() != 0 && fits())) return;
    throw out_of_memory("loom: out of device memory: " + std::string(what) + " need " + std::to_string(needed) +
                        " bytes of new device memory, and " + info.name + " has " + std::to_string(total) +
                        " bytes in all, " + std::to_string(device_.memory_in_use()) +
                        " of them allocated already by this process's contexts; free vectors you no longer "
                        "need, or use smaller vectors or fewer at once");
}

namespace {

// The bytes scratch buffer `index` needs for a call, and whether it has them.
std::size_t scratch_bytes(const plan::plan& p, const plan::launch_sizes& sizes, std::uint32_t index) {
    return std::size_t(sizes.scratch_elements[index]) * size_of(p.scratch[index]);
}

bool scratch_fits(const plan_scratch& scratch, std::uint32_t index, std::size_t bytes) {
    return index < scratch.memory.size() && scratch.memory[index] && scratch.bytes[index] >= bytes;
}

} // namespace

void executor::allocate(const plan::plan& p, plan_scratch& scratch, const plan::launch_sizes& sizes,
                        const call_values& call) {
    // Added up first (each buffer once, however many slots name it), refused whole.
    std::uint64_t needed = 0;
    for (std::size_t s = 0; s < call.slot_count; ++s) {
        const buffer* b = call.slots[s].buffer.get();
        if (!b || b->memory) continue;
        std::size_t first = 0;
        while (call.slots[first].buffer.get() != b) ++first;
        if (first == s) needed += b->bytes();
    }
    for (std::size_t k = 0; k < call.result_count; ++k)
        if (!call.results[k]->memory) needed += call.results[k]->bytes();
    for (const plan::pass& pass : p.passes)
        for (const plan::argument& a : pass.arguments)
            if (a.from == plan::source::scratch && !scratch_fits(scratch, a.index, scratch_bytes(p, sizes, a.index)))
                needed += scratch_bytes(p, sizes, a.index);
    if (needed != 0) check_room(needed, "this call's vectors and scratch");

    for (std::size_t s = 0; s < call.slot_count; ++s)
        if (buffer* b = call.slots[s].buffer.get()) allocate(*b);
    for (std::size_t k = 0; k < call.result_count; ++k) allocate(*call.results[k]);
    scratch.memory.resize(p.scratch.size());
    scratch.bytes.resize(p.scratch.size(), 0);
    for (const plan::pass& pass : p.passes)
        for (const plan::argument& a : pass.arguments) {
            if (a.from != plan::source::scratch) continue;
            const std::size_t bytes = scratch_bytes(p, sizes, a.index);
            if (scratch_fits(scratch, a.index, bytes)) continue;
            scratch.memory[a.index] = device_.allocate(bytes);
            scratch.bytes[a.index] = bytes;
        }
}

void executor::bind(const plan::plan& p, std::size_t pass, const plan_scratch& scratch, const plan::launch_sizes& sizes,
                    const call_values& call, std::vector<backend::kernel_arg>& args) const {
    for (const plan::argument& a : p.passes[pass].arguments) {
        switch (a.from) {
        case plan::source::slot_buffer: args.push_back({call.slots[a.index].buffer->memory.get(), nullptr, 0}); break;
        case plan::source::slot_value: args.push_back({nullptr, &call.slots[a.index].bits, size_of(a.type)}); break;
        case plan::source::fused: bind(*call.fused_plan, call.fused_pass, call, args); break;
        case plan::source::guard: args.push_back({call.guard->memory.get(), nullptr, 0}); break;
        case plan::source::scratch: args.push_back({scratch.memory[a.index].get(), nullptr, 0}); break;
        case plan::source::result: args.push_back({call.results[a.index]->memory.get(), nullptr, 0}); break;
        case plan::source::identity: args.push_back({nullptr, &call.ops[a.index].identity, size_of(a.type)}); break;
        case plan::source::initial: args.push_back({nullptr, call.initial, size_of(a.type)}); break;
        case plan::source::capture:
            args.push_back({nullptr, &call.ops[a.index].captures[a.item], size_of(a.type)});
            break;
        case plan::source::extent:
            args.push_back(
                {nullptr, &sizes.extents[plan::sizes_column(p.passes[pass], pass)][a.index], sizeof(std::uint64_t)});
            break;
        case plan::source::flush_buffer: args.push_back({call.flush_buffers[a.index]->memory.get(), nullptr, 0}); break;
        case plan::source::statement_value: {
            const fusion::pending_statement& st = call.queue->statements[a.index];
            args.push_back({nullptr, &call.queue->slots[st.first_slot + a.item].bits, size_of(a.type)});
            break;
        }
        case plan::source::statement_length:
            args.push_back({nullptr, &call.queue->statements[a.index].length, sizeof(std::uint64_t)});
            break;
        case plan::source::packed_values: args.push_back({call.packed, nullptr, 0}); break;
        case plan::source::constant: args.push_back({nullptr, &a.index, sizeof(std::uint32_t)}); break;
        }
    }
}

void executor::bind(const plan::plan& p, std::size_t pass, const call_values& call,
                    std::vector<backend::kernel_arg>& args) const {
    static const plan_scratch no_scratch;
    static const plan::launch_sizes no_sizes;
    bind(p, pass, no_scratch, no_sizes, call, args);
}

void executor::launch(const plan::plan& p, std::size_t pass, backend::kernel& k,
                      const std::vector<backend::kernel_arg>& args, const plan::launch_sizes& sizes) {
    launch_label label;
    switch (p.passes[pass].kind) {
    case plan::pass_kind::scan: label.what = launch_label::kind::scan_pass; break;
    case plan::pass_kind::sort: label.what = launch_label::kind::sort_pass; break;
    case plan::pass_kind::block_map: label.what = launch_label::kind::block_map; break;
    default: label.what = launch_label::kind::reduce_pass; break;
    }
    const std::size_t column = plan::sizes_column(p.passes[pass], pass);
    label.elements = sizes.elements[column];
    label.pass = std::uint32_t(pass + 1);
    run(k, args.data(), args.size(), sizes.geometry[column], label);
}

void executor::run_passes(const plan::plan& p, plan_scratch& scratch, backend::kernel* const* kernels,
                          const plan::launch_sizes& sizes, const call_values& call,
                          std::vector<backend::kernel_arg>& args) {
    allocate(p, scratch, sizes, call);
    // (Every result is counted as written, those a merge only reads too: a halo recut, no harm.)
    for (std::size_t k = 0; k < call.result_count; ++k) note_write(*call.results[k]);
    for (std::size_t pass = 0; pass < p.passes.size(); ++pass) {
        args.clear();
        bind(p, pass, scratch, sizes, call, args);
        launch(p, pass, *kernels[pass], args, sizes);
    }
}

void executor::host_sync(const char* what) {
    statistics_.host_synced();
    if (!logging::enabled(logging::channel::launch)) return;
    logging::context_scope scope(context_id_);
    logging::write(logging::channel::launch, std::string("sync: ") + what);
}

} // namespace loom::detail
