// loom::loop_while's runtime state in a context (docs/skeleton-loop.md):
// - the guard: while it is set, every kernel the body launches is a guarded variant that does
//   nothing once the device-side condition has fallen;
// - the device loop running (its swap log, device_loop.cpp);
// - the held pass: a reduction into device scalars in the body offers its last pass here
//   (context_impl::offer_last_pass) instead of launching it, so that the loop's bookkeeping
//   statements can run at its end, saving a launch an iteration;
// - the batch: iterations whose held pass with bookkeeping is one work-group, gathered and
//   launched as one looped kernel (iteration_batch.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backend/device.hpp"
#include "fusion/statement_queue.hpp"
#include "ir/kernel.hpp"
#include "runtime/buffer.hpp"
#include "runtime/executor.hpp"
#include "runtime/loop/iteration_batch.hpp"

namespace loom::detail {

// What builds a held pass's variants with the loop's bookkeeping at its end: the skeleton
// whose pass it is (a reduction plan's pass, runtime/reduce_epilogues.hpp).
class epilogue_source {
public:
    // The pass with `bookkeeping` run by its work-item 0 at its end; `key` is the plan key of
    // the bookkeeping statements. With a `rotation` (iteration_batch::rotation), the looped
    // variant that runs a batch of iterations; null when the device compiler rejects it (the
    // batch then runs a launch an iteration).
    virtual backend::kernel* with_epilogue(const ir::kernel& bookkeeping, const std::vector<std::uint32_t>& key,
                                           const std::vector<std::uint32_t>* rotation) = 0;
    virtual ~epilogue_source() = default;
};

// A reduction's last pass, offered to the loop: launched later, alone or with bookkeeping.
struct offered_pass {
    backend::kernel* kernel = nullptr;
    const std::vector<backend::kernel_arg>* args = nullptr;
    backend::geometry geometry;
    epilogue_source* source = nullptr;
    const buffer_ptr* results = nullptr; // the device scalars it writes, kept alive until it runs
    std::size_t result_count = 0;
};

struct device_loop_state;

class loop_runtime {
public:
    loop_runtime();
    ~loop_runtime();

    // The guard (set and cleared by the context with nothing pending).
    buffer* guard() const { return guard_; }
    void set_guard(buffer* flag) { guard_ = flag; }

    // The loom::loop_while running, if any (they do not nest).
    device_loop_state* device_loop() const { return device_loop_.get(); }
    void start_device_loop(const buffer_ptr& active);
    void end_device_loop();

    bool holding() const { return held_.kernel || !batch_.empty(); }
    bool holds_pass() const { return held_.kernel != nullptr; }
    // Keeps `pass` back, with every buffer the queue names (the pass may read what it wrote).
    void hold(const offered_pass& pass, const fusion::statement_queue& queue);
    // The held pass's arguments, to which the bookkeeping's are appended.
    const std::vector<backend::kernel_arg>& held_arguments() const { return held_.args; }
    // Runs the held pass with `bookkeeping` (`statements` of it) at its end, `args` its arguments
    // followed by the bookkeeping's, which `queue` names: joins the batch when the pass is one
    // work-group, else launches now. `key`: the bookkeeping's plan key.
    void run_with_bookkeeping(executor& run, const ir::kernel& bookkeeping, const std::vector<std::uint32_t>& key,
                              std::vector<backend::kernel_arg>& args, std::uint32_t statements,
                              const fusion::statement_queue& queue);
    // Launches the batch, then the held pass.
    void release(executor& run);
    // Launches the batch (iterations gathered before anything else runs).
    void launch_batch(executor& run);
    // After a failure: neither the held pass nor the batch will run.
    void drop();

private:
    struct held_pass {
        backend::kernel* kernel = nullptr; // null: nothing is held
        std::vector<backend::kernel_arg> args;
        std::vector<std::uint64_t> values; // the bytes of the by-value arguments, which args point to
        std::vector<buffer_ptr> keep;      // the buffers the arguments name stay alive until it runs
        backend::geometry geometry;
        epilogue_source* source = nullptr;
    };

    buffer* guard_ = nullptr;
    std::unique_ptr<device_loop_state> device_loop_;
    held_pass held_;
    iteration_batch batch_;
    // What the batch's looped variant is built from: the held pass's source and the bookkeeping.
    epilogue_source* batch_source_ = nullptr;
    const ir::kernel* batch_bookkeeping_ = nullptr; // owned by the bookkeeping's cached plan
    std::vector<std::uint32_t> batch_key_;
    std::uint32_t batch_statements_ = 0;
    std::vector<backend::kernel_arg> batch_args_; // scratch for the launch
};

} // namespace loom::detail
