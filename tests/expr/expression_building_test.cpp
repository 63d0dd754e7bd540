// How operators and functions build a tree (issue 38, item 4): a temporary child is moved into its
// parent, a named one copied, so a statement written in one line copies no terminal, and an
// expression used n times copies its terminals n times, not once per level of the tree above.
// A terminal that counts its copies shows it; vectors' values show that the trees built so are
// the ones the statements compute (against host loops), with fusion on and off.
#include "support.hpp"

#include <utility>

using namespace loom_test;

namespace {

// A terminal value that counts its copies (moves are free). Only built, never lowered.
struct counted {
    static inline int copies = 0;
    counted() = default;
    counted(const counted&) { ++copies; }
    counted(counted&&) noexcept = default;
    counted& operator=(const counted&) {
        ++copies;
        return *this;
    }
    counted& operator=(counted&&) noexcept = default;
};

auto counted_terminal() { return loom::expr::make_terminal(counted{}); }

} // namespace

TEST_CASE("a temporary child is moved into its parent, a named one copied once per use") {
    counted::copies = 0;
    auto t = counted_terminal();
    CHECK(counted::copies == 0);

    SUBCASE("a chain of temporaries copies nothing") {
        auto e = ((std::move(t) + 1.0f) * 2.0f - 3.0f) / 4.0f;
        CHECK(counted::copies == 0);
        auto f = loom::sqrt(loom::fma(std::move(e), 2.0f, 1.0f));
        auto g = loom::where(counted_terminal() > 0.0f, -counted_terminal(), loom::cast<double>(std::move(f)));
        (void)g;
        CHECK(counted::copies == 0);
    }
    SUBCASE("a named expression is copied at each use, and only there") {
        const auto a = t * t; // t named: two copies
        CHECK(counted::copies == 2);
        const auto b = loom::fma(a, a, a) + loom::exp(a * 2.0f); // a named, used four times
        CHECK(counted::copies == 2 + 4 * 2);
        auto tuple = std::make_tuple(b * 1.0f, loom::cast<double>(b)); // b named, used twice
        CHECK(counted::copies == 10 + 2 * 8);
        (void)tuple;
    }
}

TEST_CASE("trees built from temporaries and named parts compute what they say") {
    const std::size_t n = 257;
    const std::vector<float> hx = random_values(n, -2.0f, 2.0f, 3811), hy = random_values(n, 0.5f, 3.0f, 3812);
    for (loom::context* c : {&ctx(), &unfused_ctx()}) {
        loom::vector<float> x(*c, hx), y(*c, hy), out1(*c, n), out2(*c, n), out3(*c, n);
        {
            auto d = x - y;     // named, used three times
            auto s = d * d + 1; // built from a copy, then named
            out1 = loom::sqrt(std::move(s)) * d + loom::where(d > 0.0f, d, -d);
            out2 = -(x * 2.0f + y) / (y + 1.0f); // temporaries only
        }
        out3 = x;
        out3 += (x * y - 1.0f) * 0.5f; // a compound assignment's temporary operand
        const std::vector<float> g1 = out1.to_host(), g2 = out2.to_host(), g3 = out3.to_host();
        for (std::size_t i = 0; i < n; ++i) {
            const float d = hx[i] - hy[i];
            CHECK(g1[i] == doctest::Approx(std::sqrt(d * d + 1) * d + (d > 0.0f ? d : -d)).epsilon(1e-5));
            CHECK(g2[i] == doctest::Approx(-(hx[i] * 2.0f + hy[i]) / (hy[i] + 1.0f)).epsilon(1e-5));
            CHECK(g3[i] == doctest::Approx(hx[i] + (hx[i] * hy[i] - 1.0f) * 0.5f).epsilon(1e-5));
        }
    }
}
