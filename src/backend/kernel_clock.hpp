// Kernel timing with profiling on, shared by the backends: each launch leaves a record (an
// OpenCL profiling event, a pair of CUDA events) in launch order, and its time is taken
// once the device has run it. The queue is in order, so the finished launches are always
// the oldest ones: a collection reads from the front and stops at the first still running,
// without waiting for it.
#pragma once

#include <cstddef>
#include <deque>
#include <utility>

#include "backend/device.hpp"

namespace loom::backend {

// `Device` provides, for its `Record`:
//   bool finished(Record&)           has the device run it (never waits)
//   std::uint64_t elapsed_ns(Record&) its device time, start to end (only once finished)
//   void wait(Record&)               waits until it has run
//   void retire(Record&)             after its time is taken (a pool may reuse it)
template <class Record, class Device> class kernel_clock {
public:
    explicit kernel_clock(Device& device) : device_(device) {}

    // A loop that never waits for the device would otherwise keep a record per launch for
    // as long as it runs. Past this many, the oldest half is waited for and collected: by
    // then the device is thousands of launches behind, so the wait costs nothing the host
    // would not wait anyway.
    static constexpr std::size_t max_pending = 8192;

    void launched(Record r) {
        pending_.push_back(std::move(r));
        if (pending_.size() < max_pending) return;
        collect();
        if (pending_.size() < max_pending) return;
        device_.wait(pending_[max_pending / 2]);
        collect();
    }

    // Every finished launch taken; the total so far.
    kernel_timing collect() {
        while (!pending_.empty() && device_.finished(pending_.front())) {
            Record& r = pending_.front();
            total_.ns += device_.elapsed_ns(r);
            ++total_.launches;
            device_.retire(r);
            pending_.pop_front();
        }
        return total_;
    }

    // Records of launches still running, for a device that is closing (not timed).
    template <class F> void drop_pending(F&& release) {
        for (Record& r : pending_) release(r);
        pending_.clear();
    }

private:
    Device& device_;
    std::deque<Record> pending_;
    kernel_timing total_;
};

} // namespace loom::backend
