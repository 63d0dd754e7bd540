// The executor with a recording device (tests/recording_device.hpp): for the plans of a flush,
// a reduction, a scan and an axis reduction it allocates what their passes name, binds each
// argument from where the plan says, and launches each pass at the call's geometry.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "loom/loom.hpp"
#include "recording_device.hpp"
#include "runtime/buffer.hpp"
#include "runtime/executor.hpp"
#include "skeleton/plan_axis_reduce.hpp"
#include "skeleton/plan_reduce.hpp"
#include "skeleton/plan_scan.hpp"

namespace {

using loom::testing::recording_device;

loom::backend::device_info cpu_info() {
    loom::backend::device_info info;
    info.name = "recording CPU";
    info.compute_units = 4;
    info.max_work_group = 1024;
    info.fp64 = true;
    return info;
}

// A buffer of the call (an input vector, a result) with no memory yet.
loom::detail::buffer_ptr vector_buffer(std::uint64_t length, loom::dtype type) {
    auto b = std::make_shared<loom::detail::buffer>();
    b->length = length;
    b->type = type;
    return b;
}

// Kernels stand in for the plan's compiled ones: the executor launches what it is given.
std::vector<std::unique_ptr<loom::backend::kernel>> kernels_for(const loom::plan::plan& p) {
    std::vector<std::unique_ptr<loom::backend::kernel>> k;
    for (std::size_t i = 0; i < p.passes.size(); ++i)
        k.push_back(std::make_unique<recording_device::named_kernel>(p.passes[i].kernel.name));
    return k;
}

struct harness {
    recording_device device{cpu_info()};
    loom::detail::run_statistics statistics;
    loom::detail::executor run{device, statistics, 1};
    loom::detail::plan_scratch scratch;
    std::vector<loom::backend::kernel_arg> args;

    void run_all(const loom::plan::plan& p, const loom::plan::launch_sizes& sizes,
                 const loom::detail::call_values& call) {
        const auto kernels = kernels_for(p);
        run.allocate(p, scratch, sizes, call);
        for (std::size_t pass = 0; pass < p.passes.size(); ++pass) {
            args.clear();
            run.bind(p, pass, scratch, sizes, call, args);
            run.launch(p, pass, *kernels[pass], args, sizes);
        }
    }
};

} // namespace

TEST_CASE("executor: a two-pass reduction allocates its input, partials and result, then binds and launches both") {
    harness h;
    loom::vector<float> x;
    const std::vector<std::uint32_t> classes{0};
    const auto op = loom::expr::operation<float>(loom::detail::plus_operation{}, 0.0f);
    loom::skeleton::reduce_request r;
    r.input = loom::expr::input_shape(x);
    r.slot_class = &classes;
    r.ops = &op;
    r.op_count = 1;
    r.geometry = loom::launch::reduce_geometry_for(h.device.info(), 1 << 20);
    REQUIRE(r.geometry.groups > 1);
    const loom::plan::plan p = loom::skeleton::plan_reduce(r, h.device.dialect()).plan;
    const loom::plan::launch_sizes sizes = loom::skeleton::reduce_launch(r.geometry, 1 << 20, 1);

    loom::fusion::bound_slot slot{vector_buffer(1 << 20, loom::dtype::f32), {}};
    loom::detail::call_values call;
    call.slots = &slot;
    call.slot_count = 1;
    call.ops = &op;
    h.run_all(p, sizes, call);

    // The input vector, the partials (one per group), the host's result: nothing else.
    CHECK(h.device.allocations == std::vector<std::size_t>{std::size_t(4) << 20, r.geometry.groups * 4, 4});
    REQUIRE(h.device.launches.size() == 2);
    const auto& pass1 = h.device.launches[0];
    CHECK(pass1.geometry.global_items == r.geometry.groups * r.geometry.group);
    REQUIRE(pass1.args.size() == 4);
    CHECK(pass1.args[0].buffer == slot.buffer->memory.get());
    CHECK(pass1.args[1].buffer == h.scratch.memory[0].get());
    CHECK(pass1.args[3].as_u64() == std::uint64_t(1) << 20);
    const auto& pass2 = h.device.launches[1];
    CHECK(pass2.geometry.global_items == r.geometry.group);
    CHECK(pass2.args[0].buffer == h.scratch.memory[0].get());
    CHECK(pass2.args[1].buffer == h.scratch.memory[1].get());
    CHECK(pass2.args[3].as_u64() == r.geometry.groups);
    CHECK(h.statistics.counters().kernels_launched == 2);

    SUBCASE("a second call allocates nothing; a larger one grows the partials only") {
        h.device.allocations.clear();
        h.run_all(p, sizes, call);
        CHECK(h.device.allocations.empty());
        loom::plan::launch_sizes more = sizes;
        more.scratch_elements[0] *= 2;
        h.run_all(p, more, call);
        CHECK(h.device.allocations == std::vector<std::size_t>{r.geometry.groups * 8});
    }
}

namespace {

// An exclusive int32 + scan of 5000 elements from 7, planned in `form` (none: the device's)
// and run on the harness.
struct scan_run {
    harness h;
    loom::vector<std::int32_t> x;
    const std::vector<std::uint32_t> classes{0};
    const loom::detail::skeleton_operation op = loom::expr::operation<std::int32_t>(loom::detail::plus_operation{}, 0);
    loom::skeleton::scan_request r;
    loom::fusion::bound_slot slot{vector_buffer(5000, loom::dtype::i32), {}};
    const loom::detail::buffer_ptr output = vector_buffer(5000, loom::dtype::i32);
    const loom::detail::scalar_bits init = loom::detail::scalar_bits::of(std::int32_t(7));

    explicit scan_run(std::optional<loom::ir::map_form> form) {
        r.input = loom::expr::input_shape(x);
        r.slot_class = &classes;
        r.op = &op;
        r.exclusive = true;
        r.geometry = loom::launch::scan_geometry_for(h.device.info(), form, 5000, 4);
        const loom::plan::plan p = loom::skeleton::plan_scan(r, h.device.dialect());
        const loom::plan::launch_sizes sizes = loom::skeleton::scan_launch(r.geometry, 5000);
        loom::detail::call_values call;
        call.slots = &slot;
        call.slot_count = 1;
        call.results = &output;
        call.result_count = 1;
        call.ops = &op;
        call.initial = &init;
        h.run_all(p, sizes, call);
    }
};

} // namespace

TEST_CASE("executor: a scan binds totals and offsets between its passes and its output last") {
    scan_run run(std::nullopt);
    REQUIRE(run.r.geometry.chunked);
    harness& h = run.h;
    const auto& r = run.r;
    const auto& slot = run.slot;
    const auto& output = run.output;

    REQUIRE(h.device.launches.size() == 3);
    const auto& totals = h.scratch.memory[0];
    const auto& offsets = h.scratch.memory[1];
    CHECK(h.device.launches[0].args[1].buffer == totals.get());
    CHECK(h.device.launches[1].args[0].buffer == totals.get());
    CHECK(h.device.launches[1].args[1].buffer == offsets.get());
    const auto& last = h.device.launches[2].args;
    CHECK(last[0].buffer == slot.buffer->memory.get());
    CHECK(last[1].buffer == output->memory.get());
    CHECK(last[2].buffer == offsets.get());
    CHECK(last[4].as_u64() == 7);                      // the exclusive scan's first value
    CHECK(h.device.launches[0].args[3].as_u64() == 0); // pass 1 starts each chunk from the identity
    CHECK(last[6].as_u64() == 5000);
    CHECK(h.device.launches[1].geometry.global_items == r.geometry.group);
}

TEST_CASE("executor: a single-pass scan clears its tiles' status, then reads, writes and publishes in one pass") {
    scan_run run(loom::ir::map_form::grid_stride);
    REQUIRE(!run.r.geometry.chunked);
    harness& h = run.h;
    const auto& r = run.r;
    const auto& slot = run.slot;
    const auto& output = run.output;

    REQUIRE(h.device.launches.size() == 2);
    const std::uint64_t tiles = (5000 + r.geometry.chunk - 1) / r.geometry.chunk;
    CHECK(r.geometry.groups == tiles);
    const auto& status = h.scratch.memory[2];
    REQUIRE(status);
    CHECK(h.scratch.bytes[2] == (tiles + 1) * 4); // a word a tile, then the ticket counter
    CHECK(h.device.launches[0].args[0].buffer == status.get());
    CHECK(h.device.launches[0].args[1].as_u64() == tiles + 1);
    const auto& scan = h.device.launches[1].args;
    CHECK(scan[0].buffer == slot.buffer->memory.get());
    CHECK(scan[1].buffer == output->memory.get());
    CHECK(scan[2].buffer == h.scratch.memory[0].get()); // the tiles' totals
    CHECK(scan[3].buffer == h.scratch.memory[1].get()); // their inclusive folds
    CHECK(scan[4].buffer == status.get());
    CHECK(scan[6].as_u64() == 7); // the exclusive scan's first value
    CHECK(scan[7].as_u64() == r.geometry.chunk);
    CHECK(scan[8].as_u64() == 5000);
    CHECK(h.device.launches[1].geometry.global_items == tiles * r.geometry.group);
}

TEST_CASE("executor: an axis reduction writes its result vector, with rows and cols by value") {
    harness h;
    loom::vector<double> x;
    const std::vector<std::uint32_t> classes{0};
    const auto op = loom::expr::operation<double>(loom::detail::max_operation{}, 0.0);
    loom::skeleton::axis_request r;
    r.input = loom::expr::input_shape(x);
    r.slot_class = &classes;
    r.ops = &op;
    r.axis = 1;
    r.geometry = loom::launch::axis_geometry_for(h.device.info(), std::nullopt, 1, 300, 40);
    const loom::plan::plan p = loom::skeleton::plan_axis_reduce(r, h.device.dialect());
    const loom::plan::launch_sizes sizes = loom::skeleton::axis_launch(r.geometry, 300, 40);

    loom::fusion::bound_slot slot{vector_buffer(300 * 40, loom::dtype::f64), {}};
    const loom::detail::buffer_ptr rows = vector_buffer(300, loom::dtype::f64);
    loom::detail::call_values call;
    call.slots = &slot;
    call.slot_count = 1;
    call.results = &rows;
    call.result_count = 1;
    call.ops = &op;
    h.run_all(p, sizes, call);

    CHECK(h.device.allocations == std::vector<std::size_t>{300 * 40 * 8, 300 * 8});
    REQUIRE(h.device.launches.size() == 1);
    const auto& args = h.device.launches[0].args;
    REQUIRE(args.size() == 5);
    CHECK(args[1].buffer == rows->memory.get());
    CHECK(args[3].as_u64() == 300);
    CHECK(args[4].as_u64() == 40);
    CHECK(h.device.launches[0].geometry.global_items == r.geometry.items);
}

TEST_CASE("executor: a flush's map pass binds its buffers by class, its statements' values and length, packed "
          "scalars and the guard; a pass that runs the flush's fused pass binds that pass's arguments in place") {
    harness h;
    namespace plan = loom::plan;
    // Statement 0 reads slot 0 (a vector) and slot 1 (a scalar); statement 1 is 300 long.
    loom::fusion::statement_queue queue;
    queue.slots.push_back({vector_buffer(100, loom::dtype::f32), {}});
    queue.slots.push_back({nullptr, loom::detail::scalar_bits::of(2.5f)});
    queue.statements.push_back({nullptr, vector_buffer(100, loom::dtype::f32), 0, 100});
    queue.statements.push_back({nullptr, vector_buffer(300, loom::dtype::f32), 2, 300});
    std::vector<loom::detail::buffer*> classes{queue.statements[0].target.get(), queue.slots[0].buffer.get()};
    for (loom::detail::buffer* b : classes) h.run.allocate(*b);
    const loom::detail::buffer_ptr flag = vector_buffer(1, loom::dtype::i32);
    h.run.allocate(*flag);
    const auto packed = h.run.allocate_bytes(16);

    plan::plan flush;
    flush.passes.resize(2);
    flush.passes[0].kind = plan::pass_kind::map;
    flush.passes[0].arguments = {{plan::source::flush_buffer, 0, 0, loom::dtype::boolean},
                                 {plan::source::flush_buffer, 1, 0, loom::dtype::boolean},
                                 {plan::source::statement_value, 0, 1, loom::dtype::f32},
                                 {plan::source::packed_values, 0, 0, loom::dtype::boolean},
                                 {plan::source::guard, 0, 0, loom::dtype::boolean},
                                 {plan::source::statement_length, 1, 0, loom::dtype::boolean}};
    flush.passes[1].kind = plan::pass_kind::fused;
    flush.passes[1].arguments = {{plan::source::flush_buffer, 1, 0, loom::dtype::boolean},
                                 {plan::source::statement_value, 0, 1, loom::dtype::f32}};
    loom::detail::call_values call;
    call.flush_buffers = classes.data();
    call.queue = &queue;
    call.packed = packed.get();
    call.guard = flag.get();

    std::vector<loom::backend::kernel_arg> args;
    h.run.bind(flush, 0, call, args);
    REQUIRE(args.size() == 6);
    CHECK(args[0].buffer == classes[0]->memory.get());
    CHECK(args[1].buffer == classes[1]->memory.get());
    CHECK(args[2].value == &queue.slots[1].bits);
    CHECK(args[2].size == 4);
    CHECK(args[3].buffer == packed.get());
    CHECK(args[4].buffer == flag->memory.get());
    CHECK(*static_cast<const std::uint64_t*>(args[5].value) == 300);

    // A reduction's first pass that runs the fused pass: its own input first, then the flush's.
    plan::plan reduce;
    reduce.passes.resize(1);
    reduce.passes[0].arguments = {{plan::source::guard, 0, 0, loom::dtype::boolean},
                                  {plan::source::fused, 0, 0, loom::dtype::boolean},
                                  {plan::source::extent, 0, 0, loom::dtype::boolean}};
    call.fused_plan = &flush;
    call.fused_pass = 1;
    loom::plan::launch_sizes sizes;
    sizes.extents[0][0] = 77;
    args.clear();
    h.run.bind(reduce, 0, h.scratch, sizes, call, args);
    REQUIRE(args.size() == 4);
    CHECK(args[0].buffer == flag->memory.get());
    CHECK(args[1].buffer == classes[1]->memory.get());
    CHECK(args[2].value == &queue.slots[1].bits);
    CHECK(*static_cast<const std::uint64_t*>(args[3].value) == 77);
}
