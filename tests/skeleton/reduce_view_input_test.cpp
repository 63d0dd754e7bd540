// A reduction or scan over a view or a gather is refused with a loom::error that says so: its
// binding cannot see a view's length (the statement's), and must not read past the view.
// (Assigned to a vector first, the same values reduce as usual.)
#include "support.hpp"

using doctest::Contains;
using skeleton_test::ctx;

TEST_CASE("a_reduction_or_scan_over_a_view_or_gather_is_refused_with_a_loom_error") {
    loom::vector<float> x(ctx(), 10, 1.0f), y(ctx(), 5);
    loom::vector<std::int32_t> idx(ctx(), 5, 3);
    CHECK_THROWS_WITH_AS(loom::sum(x.slice(2, 5)), Contains("view or gather"), loom::error);
    CHECK_THROWS_WITH_AS(loom::max(loom::gather(x, idx) * 2.0f), Contains("view or gather"), loom::error);
    CHECK_THROWS_WITH_AS(loom::inclusive_scan(x.slice(0, 5), y), Contains("view or gather"), loom::error);
    y = x.slice(2, 5);
    CHECK(loom::sum(y) == 5.0f);
    CHECK(loom::sum(x) == 10.0f);
}
