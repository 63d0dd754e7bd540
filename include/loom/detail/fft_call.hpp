// What loom::fft's front end (loom/fft.hpp) asks of the library behind it; defined in
// src/fft/fft.cpp. The kind of transform is one enumeration shared by both sides.
#pragma once

#include <array>
#include <cstdint>

#include "loom/detail/runtime.hpp"

namespace loom::detail {

enum class fft_kind : std::uint8_t {
    complex_to_complex, // forward or inverse, n complex values to n
    real_to_complex,    // forward: n real values to the half spectrum (last extent n/2 + 1)
    complex_to_real,    // inverse: the half spectrum to n real values
};

// One transform of `input` (complex or real, float or double, as its buffer says) over `rank`
// extents, slowest first (for the real kinds, the real signal's), every one > 0.
struct fft_call {
    const buffer_ptr* input = nullptr;
    fft_kind kind = fft_kind::complex_to_complex;
    bool inverse = false;
    unsigned rank = 1;
    std::array<std::uint64_t, 3> extents{1, 1, 1};
};

// Checks that the device's library takes the transform, opens the library (a loom::error, with
// nothing run, when either fails), runs the pending statements, then enqueues the transform
// into `output`, unscaled. `input` is only read.
void run_fft(context_impl& ctx, const fft_call& call, const buffer_ptr& output);

} // namespace loom::detail
