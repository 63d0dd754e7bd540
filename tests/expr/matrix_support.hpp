// Shared helpers for the matrix tests: a fused and an unfused context, the odd shapes every
// matrix feature runs at, and seeded host matrices (the suite's seed, printed once).
#pragma once

#include "support.hpp"

namespace loom_matrix_test {

// fuse 1: the default; 0: one kernel per statement (LOOM_FUSION=0), the tested reference.
inline loom::context& context_with(int fuse) {
    static loom::context fused(loom::context_options{"opencl", "", 1});
    static loom::context unfused(loom::context_options{"opencl", "", 0});
    return fuse ? fused : unfused;
}

struct extents {
    std::size_t rows, cols;
};

// 1 x 1, a row, a column, and odd sizes that tile nothing (16-lane blocks, 256-wide groups).
inline const std::vector<extents>& shapes() {
    static const std::vector<extents> s = {{1, 1}, {1, 67}, {67, 1}, {37, 53}};
    return s;
}

inline std::string describe(const extents& e) { return std::to_string(e.rows) + " x " + std::to_string(e.cols); }

// rows * cols values in [lo, hi], row-major, from the suite's seed and `stream`.
template <class T> std::vector<T> random_matrix(const extents& e, T lo, T hi, std::uint64_t stream) {
    return loom_test::random_values<T>(e.rows * e.cols, lo, hi, stream * 1000003u + e.rows * 131u + e.cols);
}

} // namespace loom_matrix_test
