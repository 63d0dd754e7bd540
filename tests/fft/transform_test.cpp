// The description of a transform, without a device: element counts of the half spectrum,
// which lengths clFFT takes, and how a transform is named in messages.
#include <doctest/doctest.h>

#include "fft/transform.hpp"

using loom::fourier::transform;
using loom::fourier::transform_kind;

TEST_CASE("transform_counts_the_half_spectrum_along_the_last_axis") {
    transform t;
    t.kind = transform_kind::real_to_complex;
    t.rank = 3;
    t.extents = {4, 6, 5};
    CHECK(t.points() == 120);
    CHECK(t.half_spectrum() == 4 * 6 * 3);
    CHECK(t.input_elements() == 120);
    CHECK(t.output_elements() == 72);
    t.kind = transform_kind::complex_to_real;
    CHECK(t.input_elements() == 72);
    CHECK(t.output_elements() == 120);
    t.kind = transform_kind::complex_to_complex;
    CHECK(t.input_elements() == 120);
    CHECK(t.output_elements() == 120);
}

TEST_CASE("clfft_takes_lengths_of_radices_2_3_5_7_11_13_only_and_names_the_first_other_factor") {
    transform t;
    t.rank = 2;
    for (std::uint64_t n : {1, 2, 1024, 105, 1001, 2 * 3 * 5 * 7 * 11 * 13}) {
        t.extents = {n, 8, 1};
        CHECK(loom::fourier::clfft_refuses(t).empty());
    }
    t.extents = {8, 17 * 3, 1};
    CHECK(loom::fourier::clfft_refuses(t) == "51 has the prime factor 17");
    t.extents = {19 * 23, 8, 1};
    CHECK(loom::fourier::clfft_refuses(t) == "437 has the prime factor 19");
    t.extents = {1009, 8, 1}; // a prime
    CHECK(loom::fourier::clfft_refuses(t) == "1009 has the prime factor 1009");
}

TEST_CASE("transform_describes_itself_for_messages") {
    transform t;
    t.rank = 1;
    t.extents = {1024, 1, 1};
    t.inverse = true;
    CHECK(describe(t) == "1-D complex-to-complex inverse transform of 1024 points in float");
    t.kind = transform_kind::real_to_complex;
    t.inverse = false;
    t.rank = 2;
    t.extents = {8, 6, 1};
    t.precision = loom::dtype::f64;
    CHECK(describe(t) == "2-D real-to-complex transform of 8 x 6 points in double");
}
