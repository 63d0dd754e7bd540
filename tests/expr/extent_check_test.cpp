// The one shape check of 2-D and 3-D statements (loom/expr/extent_check.hpp), driven directly,
// without a device: which operands give extents, which are checked against them, and that a
// mismatch reads alike in both ranks and names both shapes.
#include <loom/expr/extent_check.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "error_support.hpp"

using loom::expr::extent_check;
using loom::expr::extent_check3;
using loom_test_errors::error_of;

TEST_CASE("extent_check_words_a_mismatch_of_terms_alike_in_2d_and_3d_naming_the_axis") {
    extent_check c2("a matrix assignment");
    c2.target({3, 4});
    CHECK(error_of([&] {
              c2.term({3, 5});
          }) == "loom: shape mismatch in a matrix assignment: the target, a 3 x 4 matrix and a 3 x 5 matrix differ in "
                "their columns; element-wise matrix expressions need equal shapes");
    extent_check3 c3("a loom::array3 assignment");
    c3.target({2, 3, 4});
    CHECK(error_of([&] {
              c3.term({2, 4, 3});
          }) ==
          "loom: shape mismatch in a loom::array3 assignment: the target, a 2 x 3 x 4 array and a 2 x 4 x 3 array "
          "differ in their extents along axis 1; element-wise 3-D expressions need equal shapes");
}

TEST_CASE("extent_check_compares_1d_operands_with_each_other_and_with_the_extents_product") {
    extent_check3 c("a loom::array3 assignment");
    c.elements(24, extent_check3::operand::vector);
    CHECK(error_of([&] { c.elements(20, extent_check3::operand::view); }) ==
          "loom: shape mismatch in a loom::array3 assignment: a vector of 24 elements and a view of 20 elements "
          "differ in their lengths; element-wise 3-D expressions need equal shapes");
    c.term({2, 3, 4});
    c.finish(); // 24 elements: agrees
    CHECK(c.extents() == extent_check3::extents_type{2, 3, 4});

    extent_check m("a matrix assignment");
    m.term({3, 4});
    m.elements(10, extent_check::operand::vector);
    CHECK(error_of([&] { m.finish(); }) ==
          "loom: shape mismatch in a matrix assignment: a vector of 10 elements in an expression over 3 x 4 (12 "
          "elements, from a 3 x 4 matrix); broadcast a vector along the rows or columns with loom::as_row or "
          "loom::as_column");
}

TEST_CASE("extent_check_takes_2d_extents_from_broadcasts_and_3d_extents_from_arrays_only") {
    extent_check m("a matrix built from an expression");
    m.along(1, 5); // loom::as_row of 5 elements: 5 columns
    m.along(0, 3); // loom::as_column of 3: 3 rows
    m.finish();
    CHECK(m.extent(0) == 3);
    CHECK(m.extent(1) == 5);
    CHECK(error_of([&] { m.along(1, 4); }) ==
          "loom: shape mismatch in a matrix built from an expression: loom::as_row of a vector of 5 elements (? x "
          "5) and loom::as_row of a vector of 4 elements (? x 4) differ in their columns; element-wise matrix "
          "expressions need equal shapes");

    extent_check3 a("a loom::array3 built from an expression");
    a.along(0, 2);
    a.along(1, 3);
    a.along(2, 4);
    CHECK(error_of([&] { a.finish(); }) == "loom: a loom::array3 built from an expression needs the extents of its "
                                           "expression, and it names none: add a loom::array3");
    a.term({2, 3, 5});
    CHECK(error_of([&] { a.finish(); }) ==
          "loom: shape mismatch in a loom::array3 built from an expression: loom::along<2> of a vector of 4 "
          "elements in an expression over a 2 x 3 x 5 array (axis 2 has 5)");
}

TEST_CASE("extent_check_refuses_a_third_axis_in_2d_and_extents_whose_product_overflows") {
    extent_check m("a matrix assignment");
    CHECK(loom_test_errors::has(error_of([&] { m.along(2, 4); }), "this expression is 2-D"));
    m.along(0, std::uint64_t(1) << 40);
    m.along(1, std::uint64_t(1) << 30);
    CHECK(error_of([&] { m.finish(); }) ==
          "loom: a matrix assignment: 1099511627776 x 1073741824 elements do not fit in 64 bits");
}
