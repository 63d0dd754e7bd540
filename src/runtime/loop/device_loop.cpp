// loom::loop_while's runtime side: the guard that turns the body's kernels into no-ops
// once the device-side condition has fallen, and the swap log that lets the host take
// back the buffer swaps of the iterations it issued after that point. The host issues
// iterations ahead of the device and learns the condition only every check_every
// iterations, so up to check_every - 1 issued iterations may be idle.
#include <vector>

#include "loom/detail/vector_fields.hpp"
#include "loom/error.hpp"
#include "runtime/context_impl.hpp"

namespace loom::detail {

// One loom::swap made in a loop body, to take back if its iteration turns out idle.
struct device_loop_swap {
    std::uint64_t iteration;
    vector_fields a, b;
};

struct device_loop_state {
    buffer_ptr active;
    std::uint64_t iteration = 0;
    std::vector<device_loop_swap> swaps;
    bool log_lost = false; // a swap could not be logged (out of host memory)
};

loop_runtime::loop_runtime() = default;
loop_runtime::~loop_runtime() = default;

void loop_runtime::start_device_loop(const buffer_ptr& active) {
    auto state = std::make_unique<device_loop_state>();
    state->active = active;
    device_loop_ = std::move(state);
}

void loop_runtime::end_device_loop() { device_loop_.reset(); }

namespace {

device_loop_state* state_of(context_impl& ctx) { return ctx.loop().device_loop(); }

} // namespace

device_loop_scope::device_loop_scope(context_impl& ctx, const buffer_ptr& active) : ctx_(ctx), lock_(ctx.mutex()) {
    ctx_.require_one_device("loom::loop_while");
    if (ctx_.loop().device_loop())
        throw error("loom: loop_while inside the body of another loop_while on the same context is not supported; "
                    "use loom::loop (a fixed count) for the inner loop, or fold both conditions into one");
    ctx_.loop().start_device_loop(active);
}

device_loop_scope::~device_loop_scope() {
    try {
        ctx_.set_guard(nullptr); // a body that threw may leave guarded statements pending: run them guarded
        // ... and a held reduction pass: it takes the loop's flag, which dies with the loop.
        if (ctx_.loop().holding()) ctx_.release_held();
    } catch (...) {
        ctx_.drop_guard(); // the flush failed and dropped them; nothing is left to guard
        ctx_.drop_held();
    }
    ctx_.loop().end_device_loop();
}

void device_loop_scope::begin_body(std::uint64_t iteration) {
    device_loop_state& state = *state_of(ctx_);
    state.iteration = iteration;
    ctx_.set_guard(state.active.get());
}

void device_loop_scope::end_body() { ctx_.set_guard(nullptr); }

void device_loop_scope::end_iteration() { ctx_.run_held_with_epilogue(); }

void device_loop_scope::finish(std::uint64_t iterations_run) {
    device_loop_state& state = *state_of(ctx_);
    bool idle_swaps = false;
    for (const device_loop_swap& r : state.swaps) idle_swaps = idle_swaps || r.iteration >= iterations_run;
    if (state.log_lost && idle_swaps)
        throw error("loom: loop_while ran out of host memory logging loom::swap calls; the swapped vectors may "
                    "name each other's buffers");
    for (auto r = state.swaps.rbegin(); r != state.swaps.rend(); ++r)
        if (r->iteration >= iterations_run) exchange(r->a, r->b);
    state.swaps.clear();
}

bool note_swap(context_impl& ctx, const vector_fields& a, const vector_fields& b) noexcept {
    device_loop_state* state = state_of(ctx);
    if (!state) return false;
    try {
        state->swaps.push_back({state->iteration, a, b});
        return true;
    } catch (...) {
        state->log_lost = true;
        return false;
    }
}

void forget_swapped(context_impl& ctx, const vector_fields& v) noexcept {
    device_loop_state* state = state_of(ctx);
    if (!state) return;
    // A vector that dies inside the body (a local swapped with another) cannot be swapped
    // back; its partner is left as the body left it.
    auto& swaps = state->swaps;
    for (std::size_t k = swaps.size(); k-- > 0;)
        if (swaps[k].a.same_vector(v) || swaps[k].b.same_vector(v)) swaps.erase(swaps.begin() + std::ptrdiff_t(k));
}

} // namespace loom::detail
