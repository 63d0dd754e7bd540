// Expressions that outlive the vectors they name (issue 23, item 7): an expression holds each
// vector's buffer by shared ownership, counted as a vector's, so it reads what the vector held
// when it was destroyed, pending statements included, and never freed memory. Through operators,
// Loom functions, stencil reads, gathers, broadcasts, device scalars, views, matrices and traced
// lambdas, with fusion on and off.
#include "support.hpp"

#include <cmath>
#include <functional>
#include <optional>

#include "loom/matrix.hpp"

using namespace loom_test;

namespace {

// An expression type over two float vectors, for an optional to hold across scopes.
using sum_expression = decltype(std::declval<loom::vector<float>&>() + std::declval<loom::vector<float>&>() * 2.0f);

} // namespace

TEST_CASE("an expression kept after its vectors are destroyed reads their last values") {
    for (bool fused : {true, false}) {
        CAPTURE(fused);
        loom::context_options o;
        o.fusion = fused ? 1 : 0;
        loom::context c(o);
        const std::size_t n = 1001;
        loom::vector<float> y(c, n);
        std::optional<sum_expression> e;
        {
            loom::vector<float> x(c, n, 1.0f), z(c, n, 3.0f);
            x = z * 2.0f + 0.5f; // still pending when x dies: its store must not be elided
            e.emplace(x + z * 2.0f);
        }
        y = *e; // 6.5 + 6
        CHECK(y.to_host() == std::vector<float>(n, 12.5f));
        y = *e + 1.0f; // again, after the flush that ran the first
        CHECK(y.to_host() == std::vector<float>(n, 13.5f));
    }
}

TEST_CASE("Loom functions, stencil reads, gathers and broadcasts hold their vectors too") {
    const std::size_t n = 64;
    std::vector<float> hx(n);
    for (std::size_t i = 0; i < n; ++i) hx[i] = float(i) * 0.25f;
    loom::vector<float> y(ctx(), n);
    std::function<void()> assign_all; // built where the vectors live, run after they are gone
    {
        loom::vector<float> x(ctx(), hx);
        loom::vector<std::int32_t> idx(ctx(), n);
        idx = loom::cast<std::int32_t>(n - 1 - loom::index()); // reversed
        auto e1 = loom::sin(x) + loom::shift(x, 1) + loom::gather(x, idx);
        assign_all = [&y, e1] { y = e1; };
    }
    assign_all();
    const std::vector<float> got = y.to_host();
    for (std::size_t i = 0; i < n; ++i) {
        const float expected = std::sin(hx[i]) + hx[std::min(i + 1, n - 1)] + hx[n - 1 - i];
        CHECK(got[i] == doctest::Approx(expected).epsilon(1e-6));
    }

    // A grid read and a row broadcast over vectors that are gone.
    const std::size_t rows = 4, cols = 8;
    loom::matrix<float> m(ctx(), rows, cols);
    std::function<void()> fill;
    {
        loom::vector<float> g(ctx(), hx.begin(), hx.begin() + rows * cols), r(ctx(), cols, 2.0f);
        auto grid_read = loom::at(loom::grid(g, cols, rows), 1, 0);
        auto broadcast = loom::as_row(r);
        fill = [&m, grid_read, broadcast] {
            loom::vector<float> flat(ctx(), rows * cols);
            flat = grid_read * 1.0f;
            m = broadcast * loom::reshape(flat, rows, cols);
        };
    }
    fill();
    std::vector<float> hm;
    loom::copy(m, hm);
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j)
            CHECK(hm[i * cols + j] == 2.0f * hx[i * cols + std::min(j + 1, cols - 1)]);
}

TEST_CASE("a device scalar in a kept expression: its current value while it lives, its last one after") {
    const std::size_t n = 33;
    loom::vector<float> x(ctx(), n, 2.0f), y(ctx(), n);
    std::function<void()> assign_later;
    {
        loom::scalar<float> s(ctx(), 3.0f);
        auto e = x * s + 1.0f;
        s = 5.0f; // the expression reads the scalar's buffer: it sees this value
        y = e;
        CHECK(y.to_host() == std::vector<float>(n, 11.0f));
        s = s * 2.0f; // pending when s dies
        assign_later = [&y, e] { y = e; };
    }
    assign_later();
    CHECK(y.to_host() == std::vector<float>(n, 21.0f));
}

TEST_CASE("views, matrices and traced lambdas hold what they read too") {
    for (bool fused : {true, false}) {
        CAPTURE(fused);
        loom::context_options o;
        o.fusion = fused ? 1 : 0;
        loom::context c(o);
        const std::size_t rows = 7, cols = 9, n = rows * cols;
        std::vector<float> hx(n), hv(cols);
        for (std::size_t i = 0; i < n; ++i) hx[i] = float(i) * 0.5f;
        for (std::size_t j = 0; j < cols; ++j) hv[j] = float(j) + 1.0f;
        loom::vector<float> y(c, n), half(c, n / 2);
        loom::matrix<float> m_out(c, rows, cols);
        std::function<void()> assign_all; // built where the objects live, run after they are gone
        {
            loom::vector<float> x(c, hx), v(c, hv);
            loom::matrix<float> a(c, rows, cols, hx);
            x = x * 2.0f;                            // pending when x dies: kept for the view and the traced result
            auto view = x.slice(1, n / 2, 2) + 1.0f; // odd elements of x
            auto traced = loom::map([](auto p, auto q) { return p * q; }, x, x); // a traced lambda's result
            auto over_matrix = a * loom::as_row(v) - 1.0f;                       // a matrix and a broadcast
            assign_all = [&, view, traced, over_matrix] {
                half = view;
                y = traced;
                m_out = over_matrix;
            };
        }
        assign_all();
        const std::vector<float> got_half = half.to_host(), got_y = y.to_host(), got_m = m_out.to_host();
        for (std::size_t i = 0; i < n / 2; ++i) CHECK(got_half[i] == hx[1 + 2 * i] * 2.0f + 1.0f);
        for (std::size_t i = 0; i < n; ++i) CHECK(got_y[i] == (hx[i] * 2.0f) * (hx[i] * 2.0f));
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < cols; ++j) CHECK(got_m[i * cols + j] == hx[i * cols + j] * hv[j] - 1.0f);
    }
}

TEST_CASE("a view outlives its vector and still assigns into the vector's buffer") {
    // A view of a vector that is then destroyed keeps the buffer; writing through it is harmless
    // (nothing reads that buffer afterwards), and reading it gives the values last stored.
    const std::size_t n = 32;
    std::optional<loom::vector_view<float>> view;
    {
        loom::vector<float> x(ctx(), n, 3.0f);
        view.emplace(x.slice(0, n / 2));
    }
    *view = *view * 2.0f; // writes the kept buffer
    loom::vector<float> y(ctx(), n / 2);
    y = *view + 1.0f;
    CHECK(y.to_host() == std::vector<float>(n / 2, 7.0f));
}
