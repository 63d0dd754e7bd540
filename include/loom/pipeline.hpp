// loom::pipeline: stages composed once and run many times, back to back on the device.
//
//   loom::pipeline step(ctx);
//   step.stage([&] { a = x * x; }).stage([&] { b = a + y; }).stage([&] { z = b - x; });
//   for (int frame = 0; frame < 100; ++frame) step.run();
//
// A run records every stage's statements and launches them at the pipeline's end without
// waiting, so element-wise stages fuse into one kernel and no stage waits for the host.
#pragma once

#include <functional>
#include <vector>

#include "loom/context.hpp"

namespace loom {

class pipeline {
public:
    explicit pipeline(const context& ctx) : ctx_(ctx) {}

    pipeline& stage(std::function<void()> s) {
        stages_.push_back(std::move(s));
        return *this;
    }

    // One pass through every stage; returns when the work is enqueued.
    void run() {
        for (auto& s : stages_) s();
        detail::flush(*ctx_.impl(), detail::flush_point::pipeline);
    }

    std::size_t size() const { return stages_.size(); }

private:
    context ctx_;
    std::vector<std::function<void()>> stages_;
};

} // namespace loom
