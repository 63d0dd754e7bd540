// Boost.Compute baselines run on the device and in-order queue of the handwritten ones
// (bench::ocl::env()), so every variant of a benchmark shares one device.
#pragma once

#include <boost/compute/command_queue.hpp>
#include <boost/compute/container/vector.hpp>

#include <cstddef>

#include "opencl_baseline.hpp"

namespace bench {

// Two float vectors of n elements on that queue, uploaded from host data.
struct boost_vectors {
    boost::compute::command_queue queue;
    boost::compute::vector<float> x, y;

    boost_vectors(const float* hx, const float* hy, std::size_t n)
        : queue(ocl::env().queue()), x(hx, hx + n, queue), y(hy, hy + n, queue) {}
};

} // namespace bench
